package dev.agentmemory.core;

import dev.agentmemory.core.engine.MemoryEngine;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import dev.agentmemory.core.MemoryRecord.Access;
import dev.agentmemory.core.MemoryRecord.Source;
import dev.agentmemory.core.MemoryRecord.Kind;

class ReadableLogAccessTest {

    @Test
    void should_redact_another_agents_private_value_when_reading_the_readable_log() {
        // given
        MemoryEngine engine = MemoryEngine.builder().build();
        Caller billing = new Caller("shop", "alice", "billing");
        Caller support = new Caller("shop", "alice", "support");
        engine.write(billing, Proposal.set(billing.persistent(), "card.last4", "4242")
                .kind(Kind.OBSERVATION).source(Source.SYSTEM).access(Access.PRIVATE).build());

        // when
        String asSupport = String.join("\n", engine.admin().readableLog(support));
        String asBilling = String.join("\n", engine.admin().readableLog(billing));

        // then
        assertThat(asSupport).doesNotContain("\"4242\"").contains("card.last4 v1 = [redacted]");
        assertThat(asBilling).contains("\"4242\"");
    }
}
