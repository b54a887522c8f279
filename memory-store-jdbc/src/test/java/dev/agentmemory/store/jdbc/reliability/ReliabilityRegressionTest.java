package dev.agentmemory.store.jdbc.reliability;

import dev.agentmemory.core.Caller;
import dev.agentmemory.core.ForgetTarget;
import dev.agentmemory.core.engine.MemoryEngine;
import dev.agentmemory.core.engine.MemoryEngine.Messages;
import dev.agentmemory.core.MemoryKey;
import dev.agentmemory.core.Proposal.Outcome;
import dev.agentmemory.core.Proposal;
import dev.agentmemory.core.ReadOptions;
import dev.agentmemory.core.event.StoredMessage;
import dev.agentmemory.store.jdbc.JdbcStores;
import dev.agentmemory.testing.DiskScan;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Arrays;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Regressions for bugs the reliability tests found, each named after what broke. */
class ReliabilityRegressionTest {

    private final Caller alice = Caller.of("shop", "alice");

    @Test
    void should_refuse_a_lone_surrogate_in_free_text_when_h2_would_store_a_replacement_character(@TempDir Path dir) {
        // given: an H2 file store, which keeps text as UTF-8 (a lone surrogate becomes '?')
        try (MemoryEngine engine = MemoryEngine.builder().store(JdbcStores.h2File(dir.resolve("m"))).build()) {
            engine.tasks().start(alice, "s1", "t1", "fine");

            // when / then: title, alias, action and message text are refused, not mangled
            assertThatThrownBy(() -> engine.tasks().start(alice, "s1", "t2", "broken \uD83D title"))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("lone surrogate").hasMessageContaining("broken ");
            assertThatThrownBy(() -> engine.aliases().register(alice, "order:1", "the \uDE00 order"))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("lone surrogate");
            assertThatThrownBy(() -> engine.ledger().begin(alice, "op\uD800", "refund", dev.agentmemory.core.MemoryValue.of(1)))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("lone surrogate");
            assertThatThrownBy(() -> engine.messages().change(alice, "chat", w -> new Messages.WindowChange(List.of(),
                    List.of(new StoredMessage(0, 0, "USER", "{\"t\":\"x\"}", "half \uD83D")))))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("lone surrogate");
            assertThatThrownBy(() -> engine.write(alice, Proposal.set(alice.session("s1"), "k", "v")
                    .source(dev.agentmemory.core.MemoryRecord.Source.TOOL, "call\uDC00").kind(dev.agentmemory.core.MemoryRecord.Kind.OBSERVATION).build()))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("lone surrogate");

            // and: the live state still equals the stored log, nothing half-written
            assertThat(engine.admin().audit(alice, Duration.ofDays(1)).replayMatches()).isTrue();
            assertThat(engine.tasks().list(alice, "s1")).extracting(t -> t.task()).containsExactly("t1");
            assertThat(engine.messages().window(alice, "chat")).isEmpty();
            assertThat(engine.admin().log(alice)).hasSize(1);
        }
    }

    @Test
    void should_reject_a_ttl_beyond_the_time_range_when_it_used_to_throw_arithmetic_exception() {
        // given
        MemoryEngine engine = MemoryEngine.builder().clock(Clock.fixed(Instant.parse("2024-10-15T10:00:00Z"), ZoneOffset.UTC)).build();

        // when
        Outcome o = engine.propose(alice, Proposal.set(alice.session("s1"), "k", "v")
                .ttl(Duration.ofSeconds(Long.MAX_VALUE)).build());

        // then
        assertThat(o.result()).isEqualTo(Outcome.Result.REJECTED);
        assertThat(o.reason()).isEqualTo("ttl PT2562047788015215H30M7S from 2024-10-15T10:00:00Z lies beyond the "
                + "representable time range");
        assertThat(engine.admin().log(alice)).isEmpty();
    }

    @Test
    void should_name_the_null_when_an_index_list_or_argument_is_null_instead_of_a_bare_npe() {
        MemoryEngine engine = MemoryEngine.builder().build();
        assertThatThrownBy(() -> new Messages.WindowChange(Arrays.asList(1L, null), List.of()))
                .isInstanceOf(NullPointerException.class).hasMessage("evicted index");
        assertThatThrownBy(() -> ForgetTarget.messages("s1", Arrays.asList(1L, null)))
                .isInstanceOf(NullPointerException.class).hasMessage("message index");
        assertThatThrownBy(() -> engine.messages().change(alice, "s1", null))
                .isInstanceOf(NullPointerException.class).hasMessage("compute");
        assertThatThrownBy(() -> engine.view(alice, alice.session("s1"), null))
                .isInstanceOf(NullPointerException.class).hasMessage("options");
        assertThatThrownBy(() -> engine.keyState(alice, alice.session("s1"), MemoryKey.of("k"), (ReadOptions) null))
                .isInstanceOf(NullPointerException.class).hasMessage("options");
        assertThatThrownBy(() -> engine.tasks().start(null, "s1", "t1", null))
                .isInstanceOf(NullPointerException.class).hasMessage("caller");
        assertThatThrownBy(() -> engine.tasks().end(null, "s1", "t1"))
                .isInstanceOf(NullPointerException.class).hasMessage("caller");
    }

    @Test
    void should_leave_live_values_readable_as_bytes_when_compacted_so_a_scan_can_prove_purged_ones_gone(@TempDir Path dir) {
        // given: SHUTDOWN COMPACT used to compress every page, which made a byte scan blind
        try (MemoryEngine engine = MemoryEngine.builder().store(JdbcStores.h2File(dir.resolve("m"))).build()) {
            engine.write(alice, Proposal.set(alice.session("s1"), "keep", "still-here-after-compaction").build());
            engine.write(alice, Proposal.set(alice.session("s1"), "drop", "purged-by-hard-forget").build());
            engine.forget(alice, ForgetTarget.key(alice.session("s1"), MemoryKey.of("drop")), dev.agentmemory.core.ForgetMode.HARD);

            // when
            engine.admin().compact();

            // then
            assertThat(DiskScan.filesContaining(dir, "still-here-after-compaction")).isNotEmpty();
            assertThat(DiskScan.filesContaining(dir, "purged-by-hard-forget")).isEmpty();
            assertThat(engine.current(alice, alice.session("s1"), MemoryKey.of("keep"))).isPresent();
        }
    }

    @Test
    void should_redact_a_sensitive_value_when_a_record_is_printed() {
        MemoryEngine engine = MemoryEngine.builder().build();
        dev.agentmemory.core.MemoryRecord r = engine.write(alice, Proposal.set(alice.session("s1"), "pin", "1234-secret")
                .sensitive().build());
        assertThat(r.toString()).doesNotContain("1234-secret").contains("value=[redacted]").contains("key=pin");
        assertThat(r.text()).isEqualTo("1234-secret");
    }
}
