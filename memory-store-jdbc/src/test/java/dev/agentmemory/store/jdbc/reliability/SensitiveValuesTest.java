package dev.agentmemory.store.jdbc.reliability;

import dev.agentmemory.core.Caller;
import dev.agentmemory.core.MemoryRecord.Kind;
import dev.agentmemory.core.engine.MemoryEngine;
import dev.agentmemory.core.MemoryKey;
import dev.agentmemory.core.MemoryRecord;
import dev.agentmemory.core.Proposal.Outcome;
import dev.agentmemory.core.Proposal;
import dev.agentmemory.core.MemoryRecord.Source;
import dev.agentmemory.store.jdbc.JdbcStores;
import dev.agentmemory.testing.DiskScan;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 6, test 7: values marked sensitive (by kind, by key pattern, by the proposal) never
 * appear in clear in the readable event log, in outcome reasons or in a record's string form;
 * with an encryption key configured, no value appears in the database files either (raw bytes
 * scanned; the same writes without a key are the control that shows the scan can see them).
 */
class SensitiveValuesTest {

    private final Caller alice = Caller.of("bank", "alice");

    private List<String> writeSensitive(MemoryEngine engine, List<MemoryRecord> records, List<String> reasons) {
        records.add(engine.write(alice, Proposal.set(alice.persistent(), "card.number", "SENSITIVE-by-key-4111")
                .kind(Kind.DECISION).build()));
        records.add(engine.write(alice, Proposal.set(alice.persistent(), "account.iban", "SENSITIVE-by-kind-DE89")
                .kind(Kind.REFERENCE).build()));
        records.add(engine.write(alice, Proposal.set(alice.session("s1"), "pin", "SENSITIVE-by-proposal-1234")
                .sensitive().build()));
        // an update and a conflict on a sensitive key: reasons and versions must not leak either
        records.add(engine.write(alice, Proposal.set(alice.persistent(), "card.number", "SENSITIVE-by-key-5500")
                .kind(Kind.DECISION).build()));
        Outcome conflict = engine.propose(alice, Proposal.set(alice.persistent(), "card.number", "SENSITIVE-conflict-6011")
                .kind(Kind.OBSERVATION).source(Source.TOOL).build());
        records.add(conflict.record());
        reasons.add(String.valueOf(conflict.reason()));
        engine.write(alice, Proposal.set(alice.persistent(), "profile.city", "PLAIN-city-Hailan").kind(Kind.DECISION).build());
        return List.of("SENSITIVE-by-key-4111", "SENSITIVE-by-kind-DE89", "SENSITIVE-by-proposal-1234",
                "SENSITIVE-by-key-5500", "SENSITIVE-conflict-6011");
    }

    private static MemoryEngine.Builder configured() {
        return MemoryEngine.builder().sensitiveKeys("card\\..*").sensitiveKind(Kind.REFERENCE);
    }

    @Test
    void should_never_show_a_sensitive_value_in_clear_when_logs_reasons_or_records_are_printed(@TempDir Path dir) {
        try (MemoryEngine engine = configured().store(JdbcStores.h2File(dir.resolve("plain"))).build()) {
            // given
            List<MemoryRecord> records = new ArrayList<>();
            List<String> reasons = new ArrayList<>();
            List<String> secrets = writeSensitive(engine, records, reasons);

            // when
            String readable = String.join("\n", engine.admin().readableLog(alice));

            // then
            for (String s : secrets) {
                assertThat(readable).as("readable log").doesNotContain(s);
                assertThat(reasons.toString()).as("outcome reasons").doesNotContain(s);
                for (MemoryRecord r : records) {
                    assertThat(r.toString()).as("string form of a sensitive record").doesNotContain(s);
                }
            }
            assertThat(records).allMatch(MemoryRecord::sensitive);
            assertThat(readable).contains("PLAIN-city-Hailan").contains("[redacted]");
            // the engine still serves the value to its owner
            assertThat(engine.current(alice, alice.persistent(), MemoryKey.of("card.number"))).get()
                    .extracting(MemoryRecord::text).isEqualTo("SENSITIVE-by-key-5500");
            // control: without a key the database holds the values in clear
            assertThat(DiskScan.filesContaining(dir, "SENSITIVE-by-key-4111")).isNotEmpty();
            System.out.printf("SENSITIVE: values=%d, absent from readable log (%d lines), reasons and record strings%n",
                    secrets.size(), engine.admin().readableLog(alice).size());
        }
    }

    @Test
    void should_keep_every_value_out_of_the_database_file_when_an_encryption_key_is_configured(@TempDir Path dir) {
        byte[] key = new byte[32];
        new java.security.SecureRandom().nextBytes(key);
        List<String> secrets;
        try (MemoryEngine engine = configured().encryptionKey(key).store(JdbcStores.h2File(dir.resolve("sealed"))).build()) {
            // given
            secrets = new ArrayList<>(writeSensitive(engine, new ArrayList<>(), new ArrayList<>()));
            secrets.add("PLAIN-city-Hailan");
            engine.admin().compact();

            // then
            for (String s : secrets) {
                assertThat(DiskScan.filesContaining(dir, s)).as("%s in the encrypted database", s).isEmpty();
            }
        }
        // and: the same key reads everything back after a restart; no key cannot
        try (MemoryEngine engine = configured().encryptionKey(key).store(JdbcStores.h2File(dir.resolve("sealed"))).build()) {
            assertThat(engine.current(alice, alice.persistent(), MemoryKey.of("card.number"))).get()
                    .extracting(MemoryRecord::text).isEqualTo("SENSITIVE-by-key-5500");
            assertThat(engine.admin().audit(alice, java.time.Duration.ofDays(1)).replayMatches()).isTrue();
        }
        System.out.printf("SENSITIVE (encrypted): values scanned absent in %d database bytes: %d%n",
                DiskScan.bytes(dir), secrets.size());
    }
}
