package dev.agentmemory.langchain4j.tools;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.agentmemory.core.Caller;
import dev.agentmemory.core.engine.MemoryEngine;
import dev.agentmemory.core.MemoryKey;
import dev.agentmemory.core.MemoryRecord;
import dev.agentmemory.core.MemoryRecord.Status;
import dev.agentmemory.core.store.InMemoryEventStore;
import dev.agentmemory.langchain4j.SessionRef;
import dev.agentmemory.langchain4j.plainwords.Attribute;
import dev.agentmemory.langchain4j.plainwords.PlainWords;
import dev.agentmemory.langchain4j.plainwords.PlainWordsPairs;
import dev.agentmemory.testing.TestClock;
import dev.agentmemory.testing.langchain4j.ScriptedChatModel;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.SystemMessage;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The model-backed extractor and the plain-words rules agree on the key names: over every
 * positive pair of both halves of the plain-words pair set, a scripted extractor model that writes
 * the key the prompt lists for the statement's attribute stores the older and the newer statement
 * as two versions of one key, the newer superseding the older, and the rules read both
 * statements as that same key. The prompt the model is sent lists every attribute key with its
 * meaning.
 */
class StateExtractorPlainWordsTest {

    private final TestClock clock = new TestClock(Instant.parse("2025-01-06T09:00:00Z"));

    /** A model that sets {@code key} to the statement's text, after checking the prompt lists the key. */
    private static ScriptedChatModel modelWriting(String key, List<String> prompts) {
        return new ScriptedChatModel(r -> {
            prompts.add(((SystemMessage) r.messages().get(0)).text());
            ObjectNode root = JsonNodeFactory.instance.objectNode();
            root.putArray("operations").addObject().put("op", "set").put("scope", "persistent").put("key", key)
                    .put("value", ScriptedChatModel.lastUserText(r).replaceAll("(?s).*\"text\":\"([^\"]*)\".*", "$1"))
                    .put("kind", "observation").put("confidence", 0.8);
            return AiMessage.from(root.toString());
        });
    }

    @Test
    void should_store_both_statements_under_the_key_the_rules_read_for_every_positive_pair() throws IOException {
        List<PlainWordsPairs.Pair> pairs = new ArrayList<>(PlainWordsPairs.load("/plain-words/development.txt"));
        pairs.addAll(PlainWordsPairs.load("/plain-words/held-out.txt"));
        List<String> prompts = new ArrayList<>();
        int checked = 0;
        int agreed = 0;
        List<String> disagreements = new ArrayList<>();
        for (PlainWordsPairs.Pair p : pairs) {
            if (!p.positive()) {
                continue;
            }
            if (p.ending()) {
                // an ending is the rules' (an extractor model's invalidation is its own path): they end
                // the value the older statement set, under the same key
                List<PlainWords.Statement> held = PlainWords.read(p.older());
                assertThat(PlainWords.ends(p.newer())).as("line %d", p.line())
                        .anyMatch(e -> e.attribute().key().path().equals(p.key())
                                && held.stream().anyMatch(h -> h.attribute() == e.attribute() && e.ends(h.value())));
                continue;
            }
            checked++;
            SessionRef ref = SessionRef.of("acme/u" + checked + "/s");
            Caller caller = ref.caller("assistant");
            MemoryEngine engine = MemoryEngine.builder().store(new InMemoryEventStore()).clock(clock).build();
            StateExtractor extractor = StateExtractor.builder(engine, modelWriting(p.expected(), prompts)).build();

            Conversation.user(engine, ref, p.older());
            assertThat(extractor.extract(ref.toString()).succeeded()).isTrue();
            clock.advance(Duration.ofDays(29));
            Conversation.user(engine, ref, p.newer());
            assertThat(extractor.extract(ref.toString()).succeeded()).isTrue();

            List<MemoryRecord> history = engine.history(caller, caller.persistent(), MemoryKey.of(p.expected()));
            assertThat(history).as("line %d", p.line()).extracting(r -> r.value().text())
                    .containsExactly(p.older(), p.newer());
            assertThat(history).extracting(MemoryRecord::status).containsExactly(Status.SUPERSEDED, Status.ACTIVE);
            assertThat(history.get(1).sourceRef()).isEqualTo("message:s#1");

            List<String> ruleKeysOld = PlainWords.read(p.older()).stream().map(s -> s.attribute().key().path()).toList();
            List<String> ruleKeysNew = PlainWords.read(p.newer()).stream().map(s -> s.attribute().key().path()).toList();
            if (ruleKeysOld.contains(p.expected()) && ruleKeysNew.contains(p.expected())) {
                agreed++;
            } else {
                disagreements.add(p.line() + ": rules read " + ruleKeysOld + " / " + ruleKeysNew + ", extractor " + p.expected());
            }
        }
        System.out.println("extractor and rules agree on the key of " + agreed + " of " + checked + " positive pairs");
        disagreements.forEach(d -> System.out.println("  " + d));
        assertThat(checked).isGreaterThanOrEqualTo(100);
        // the rules' misses are the pairs they do not read at all (recall); where they read, the key is the same
        assertThat(disagreements).allSatisfy(d -> assertThat(d).contains("[]"));
        assertThat(agreed).isGreaterThanOrEqualTo(checked * 9 / 10);
        // every prompt sent lists every attribute key with its meaning
        assertThat(prompts).hasSize(checked * 2).allSatisfy(prompt -> {
            for (Attribute a : Attribute.values()) {
                assertThat(prompt).contains(a.key().path() + " (" + a.meaning() + ")");
            }
        });
    }
}
