package dev.agentmemory.store.jdbc.engine;

import dev.agentmemory.core.ForgetMode;
import dev.agentmemory.core.ForgetTarget;
import dev.agentmemory.core.MemoryRecord.Kind;
import dev.agentmemory.core.engine.MemoryEngine;
import dev.agentmemory.core.MemoryKey;
import dev.agentmemory.core.Proposal;
import dev.agentmemory.core.Scope;
import dev.agentmemory.core.spi.EventStore;
import dev.agentmemory.core.spi.Partition;
import dev.agentmemory.store.jdbc.JdbcStores;
import dev.agentmemory.core.testing.MemoryEngineStorageContract;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class H2FileEngineStorageTest extends MemoryEngineStorageContract {

    @TempDir
    Path dir;

    private Path file() {
        return dir.resolve("memory");
    }

    @Override
    protected EventStore newStore() {
        return JdbcStores.h2File(file());
    }

    @Override
    protected EventStore reopen() {
        return JdbcStores.h2File(file());
    }

    /** Reads the payload column with plain JDBC, past the store's own code. */
    @Override
    protected List<String> rawPayloads(Partition partition) {
        String url = "jdbc:h2:file:" + file().toAbsolutePath() + ";WRITE_DELAY=0;DB_CLOSE_ON_EXIT=FALSE";
        try (Connection c = DriverManager.getConnection(url, "sa", "");
             PreparedStatement ps = c.prepareStatement(
                     "SELECT payload FROM memory_events WHERE tenant = ? AND user_id = ? ORDER BY seq")) {
            ps.setString(1, partition.tenant());
            ps.setString(2, partition.user());
            List<String> out = new ArrayList<>();
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.add(rs.getString(1));
                }
            }
            return out;
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    @Test
    void should_keep_data_and_not_revive_purged_values_when_compacted_after_hard_forget() {
        // given
        Scope p = ALICE.persistent();
        engine.write(ALICE, Proposal.set(p, "home", "purge-me-7f3a9c").kind(Kind.OBSERVATION).build());
        engine.write(ALICE, Proposal.set(p, "lang", "keep-me-5b2e1d").kind(Kind.PREFERENCE).build());

        // when
        engine.forget(ALICE, ForgetTarget.key(p, MemoryKey.of("home")), ForgetMode.HARD);
        engine.admin().compact();
        MemoryEngine reopened = restart(b -> b);

        // then
        assertThat(String.join("\n", rawPayloads(partition(ALICE)))).doesNotContain("purge-me-7f3a9c");
        assertThat(reopened.view(ALICE, p).values()).containsOnlyKeys(MemoryKey.of("lang"));
        assertThat(reopened.admin().audit(ALICE, java.time.Duration.ofDays(1)).replayMatches()).isTrue();
        reopened.write(ALICE, Proposal.set(p, "lang", "after-compact").kind(Kind.PREFERENCE).build());
        assertThat(reopened.admin().log(ALICE)).hasSize(4);
    }
}
