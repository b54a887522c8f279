package dev.agentmemory.store.jdbc.reliability;

import dev.agentmemory.testing.DiskScan;
import dev.agentmemory.core.Caller;
import dev.agentmemory.core.MemoryRecord.Kind;
import dev.agentmemory.core.engine.MemoryEngine;
import dev.agentmemory.core.MemoryException;
import dev.agentmemory.core.MemoryKey;
import dev.agentmemory.core.Proposal;
import dev.agentmemory.store.jdbc.JdbcStores;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A value changed in the file behind the engine's back is neither served nor audited as
 * consistent: the audit and the read fail naming the file and the damaged user, other users
 * are still served.
 */
class AuditSeesDamageTest {

    @Test
    void should_fail_the_audit_and_the_read_of_a_user_whose_stored_value_was_altered(@TempDir Path dir) throws Exception {
        Caller alice = Caller.of("shop", "alice");
        Caller bob = Caller.of("shop", "bob");
        try (MemoryEngine engine = MemoryEngine.builder().store(JdbcStores.h2File(dir.resolve("mem"))).build()) {
            engine.write(alice, Proposal.set(alice.persistent(), "iban", "DE44-5001-0517-5407").kind(Kind.DECISION).build());
            engine.write(bob, Proposal.set(bob.persistent(), "iban", "FR76-3000-6000-0112").kind(Kind.DECISION).build());
        }
        // one digit of alice's value changed in every copy in the file ("5407" becomes "5417")
        Path file = dir.resolve("mem.mv.db");
        byte[] bytes = Files.readAllBytes(file);
        byte[] needle = "5001-0517-5407".getBytes(StandardCharsets.UTF_8);
        int changed = 0;
        for (int i = 0; i + needle.length <= bytes.length; i++) {
            if (DiskScan.indexOf(java.util.Arrays.copyOfRange(bytes, i, i + needle.length), needle) == 0) {
                bytes[i + needle.length - 2] = '1';
                changed++;
            }
        }
        assertThat(changed).isPositive();
        Files.write(file, bytes);

        try (MemoryEngine engine = MemoryEngine.builder().store(JdbcStores.h2File(dir.resolve("mem"))).build()) {
            assertThatThrownBy(() -> engine.admin().audit(alice, Duration.ofDays(1)))
                    .isInstanceOf(MemoryException.class)
                    .hasMessageContaining(file.toString())
                    .hasMessageContaining("partition shop/alice is damaged at seq 1");
            assertThatThrownBy(() -> engine.current(alice, alice.persistent(), MemoryKey.of("iban")))
                    .isInstanceOf(MemoryException.class)
                    .hasMessageContaining(file.toString());
            assertThat(engine.admin().audit(bob, Duration.ofDays(1)).replayMatches()).isTrue();
            assertThat(engine.current(bob, bob.persistent(), MemoryKey.of("iban"))).isPresent();
        }
    }
}
