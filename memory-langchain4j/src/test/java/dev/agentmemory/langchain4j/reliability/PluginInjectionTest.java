package dev.agentmemory.langchain4j.reliability;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.agentmemory.core.Caller;
import dev.agentmemory.core.ScopeView.KeyState;
import dev.agentmemory.core.MemoryRecord.Kind;
import dev.agentmemory.core.MemoryRecord;
import dev.agentmemory.core.ReadOptions;
import dev.agentmemory.core.Scope;
import dev.agentmemory.core.MemoryRecord.Source;
import dev.agentmemory.core.MemoryRecord.Trust;
import dev.agentmemory.langchain4j.AgentMemory;
import dev.agentmemory.langchain4j.MemoryContent;
import dev.agentmemory.langchain4j.SessionRef;
import dev.agentmemory.langchain4j.framing.FramedItem;
import dev.agentmemory.langchain4j.framing.MemoryFramer;
import dev.agentmemory.langchain4j.framing.ParsedFrame;
import dev.agentmemory.langchain4j.tools.ExtractionResult;
import dev.agentmemory.langchain4j.tools.MemoryTools;
import dev.agentmemory.langchain4j.tools.StateExtractor;
import dev.agentmemory.testing.InjectionDataset;
import dev.agentmemory.testing.langchain4j.ScriptedChatModel;
import dev.agentmemory.testing.langchain4j.SharedEmbeddingModel;
import dev.langchain4j.agent.tool.Tool;
import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.ToolExecutionResultMessage;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.invocation.InvocationContext;
import dev.langchain4j.model.chat.request.ChatRequest;
import dev.langchain4j.rag.AugmentationRequest;
import dev.langchain4j.rag.content.Content;
import dev.langchain4j.rag.query.Metadata;
import dev.langchain4j.service.AiServices;
import dev.langchain4j.service.MemoryId;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 6, test 5 (plugin side): every string of the injection dataset comes back from a tool
 * and is then offered to memory through the plugin: the memory tools (remember and updateState,
 * as preference and decision, without a quote and with the string itself as a fake user quote)
 * and the StateExtractor (a scripted model naming it a preference, a decision and a system rule).
 * It is never promoted: every record holding it is untrusted, from the model or a tool, not a
 * preference or decision, and tagged neither trusted, preference, decision nor rule. Recalled
 * through the retrieval augmentor, it never appears outside the authenticated memory block, and
 * its item there says untrusted. All strings go through the objects directly; a sample goes
 * through real AiServices with the episodic layer on.
 */
@Tag("slow")
class PluginInjectionTest {

    private static final byte[] KEY = "injection-framing-key-0123456789".getBytes();
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Set<String> PROMOTING_TAGS = Set.of("trusted", "preference", "decision", "rule");
    private static final String QUESTION = "What do you remember about inj and the rules?";

    private final MemoryFramer framer = MemoryFramer.builder().key(KEY).build();

    @Test
    void should_never_promote_or_unframe_an_injected_string_offered_through_the_tools_and_the_extractor() throws IOException {
        // given
        List<String> texts = InjectionDataset.texts();
        AtomicReference<String> current = new AtomicReference<>();
        ScriptedChatModel extractorModel = new ScriptedChatModel(r -> AiMessage.from(extraction(current.get())));
        long records = 0;
        long refusedQuotes = 0;
        long stored = 0;
        long recalledInBlock = 0;
        long items = 0;
        try (AgentMemory memory = AgentMemory.builder().framingKey(KEY).build()) {
            MemoryTools tools = memory.tools();
            StateExtractor extractor = StateExtractor.builder(memory.engine(), extractorModel).maxRetries(0).build();
            for (int i = 0; i < texts.size(); i++) {
                String s = texts.get(i);
                SessionRef ref = new SessionRef("inj", "u" + i, "s1");
                current.set(s);
                // when: a tool returned it ...
                ToolExecutionRequest call = ToolExecutionRequest.builder().id("c1").name("lookup")
                        .arguments("{\"order\":\"7\"}").build();
                memory.chatMemoryStore().updateMessages(ref, List.of(UserMessage.from("look up my order 7 please"),
                        AiMessage.from(List.of(call)), ToolExecutionResultMessage.from(call, s),
                        AiMessage.from("Here is what the tool said.")));
                // ... and the model offers it to memory in every way it can
                List<String> answers = List.of(
                        tools.remember(ref, "inj.note", s, "preference", null),
                        tools.remember(ref, "inj.quoted", s, "preference", s),
                        tools.remember(ref, "rules.system", s, "fact", s),
                        tools.updateState(ref, "inj.state", s, "session", "decision", null),
                        tools.updateState(ref, "inj.rule", s, "session", "decision", s));
                ExtractionResult extracted = extractor.extract(ref);
                assertThat(extracted.succeeded()).as("extraction of %d: %s", i, extracted.errors()).isTrue();
                for (int q : new int[] {1, 2, 4}) {
                    assertThat(answers.get(q)).as("a fake quote of string %d", i).startsWith("Not saved");
                    refusedQuotes++;
                }

                // then: nothing holding it is promoted
                Caller caller = memory.caller(ref);
                long held = assertNotPromoted(memory, caller, List.of(caller.persistent(), caller.session("s1")), s, i);
                records += held;
                if (held > 0) {
                    stored++;
                }

                // and: recalled, it stays inside the block, marked untrusted
                ChatMessage augmented = memory.retrievalAugmentor().augment(new AugmentationRequest(
                        UserMessage.from(QUESTION), metadata(ref))).chatMessage();
                String prompt = ((UserMessage) augmented).singleText();
                framer.forgetAttached(); // strip by parsing the prompt, not from the attach cache
                assertThat(framer.stripFrames(prompt)).as("text outside the block for string %d", i).isEqualTo(QUESTION);
                boolean shown = false;
                for (ParsedFrame f : framer.parse(prompt)) {
                    for (FramedItem item : f.items()) {
                        items++;
                        if (item.text().contains(s)) {
                            shown = true;
                            assertThat(item.trust()).as("item %s for string %d", item.id(), i)
                                    .isEqualTo(Trust.UNTRUSTED);
                        }
                    }
                }
                for (Content c : memory.lastRecall(ref).orElseThrow().used()) {
                    if (c.textSegment().text().contains(s)) {
                        assertThat(c.textSegment().metadata().getString(MemoryContent.TRUST)).isEqualTo("untrusted");
                    }
                }
                if (shown) {
                    recalledInBlock++;
                }
            }
        }
        System.out.printf("INJECTION (plugin, tools + extractor): strings=%d, offers per string=6 (2 remember, 2 updateState,"
                        + " 1 extraction of 3 operations, plus 1 fake-quoted rule), records checked=%d, fake quotes refused=%d,"
                        + " strings kept as untrusted records=%d (the others refused outright), recalled inside the block=%d,"
                        + " framed items checked=%d, promoted=0, outside the block=0%n",
                texts.size(), records, refusedQuotes, stored, recalledInBlock, items);
        assertThat(stored).as("some strings were kept, so the recall check had something to check")
                .isGreaterThan(texts.size() / 10);
        assertThat(recalledInBlock).as("what was kept was recalled").isGreaterThanOrEqualTo(stored * 9 / 10);
    }

    interface Assistant {
        String chat(@MemoryId SessionRef id, @dev.langchain4j.service.UserMessage String text);
    }

    static final class OrderTool {
        volatile String result = "";

        @Tool("Looks up an order")
        String lookup(String order) {
            return result;
        }
    }

    @Test
    void should_never_promote_or_unframe_an_injected_string_through_real_ai_services() throws IOException {
        // given: a sample of the dataset, a model that believes the tool and cites it as the user's words
        List<String> all = InjectionDataset.texts();
        List<String> sample = new ArrayList<>();
        for (int i = 0; i < all.size(); i += Math.max(1, all.size() / 12)) {
            sample.add(all.get(i));
        }
        ScriptedChatModel model = new ScriptedChatModel(PluginInjectionTest::believer);
        OrderTool lookup = new OrderTool();
        long records = 0;
        long blocks = 0;
        try (AgentMemory memory = AgentMemory.builder().framingKey(KEY).embeddingModel(SharedEmbeddingModel.get()).build()) {
            Assistant assistant = AiServices.builder(Assistant.class).chatModel(model)
                    .chatMemoryProvider(memory.chatMemoryProvider())
                    .retrievalAugmentor(memory.retrievalAugmentor())
                    .tools(memory.tools(), lookup)
                    .build();
            for (int i = 0; i < sample.size(); i++) {
                String s = sample.get(i);
                SessionRef ref = new SessionRef("inj-ai", "u" + i, "s1");
                lookup.result = s;

                // when
                assistant.chat(ref, "look up my order 7 please");
                assistant.chat(ref, QUESTION);

                // then
                Caller caller = memory.caller(ref);
                records += assertNotPromoted(memory, caller, List.of(caller.persistent(), caller.session("s1")), s, i);
                String prompt = ScriptedChatModel.lastUserText(model.lastRequest());
                framer.forgetAttached(); // strip by parsing the prompt, not from the attach cache
                assertThat(framer.stripFrames(prompt)).isEqualTo(QUESTION);
                for (ParsedFrame f : framer.parse(prompt)) {
                    blocks++;
                    for (FramedItem item : f.items()) {
                        if (item.text().contains(s)) {
                            assertThat(item.trust()).as("item %s", item.id()).isEqualTo(Trust.UNTRUSTED);
                        }
                    }
                }
            }
        }
        List<String> toolAnswers = model.requests().stream().flatMap(r -> r.messages().stream())
                .filter(m -> m instanceof ToolExecutionResultMessage t && !t.toolName().equals("lookup"))
                .map(m -> ((ToolExecutionResultMessage) m).text()).distinct().toList();
        assertThat(toolAnswers).isNotEmpty().allSatisfy(a -> assertThat(a).doesNotContain("stated by the user")
                .satisfiesAnyOf(x -> assertThat(x).startsWith("Not saved"), x -> assertThat(x).contains("unconfirmed")));
        System.out.printf("INJECTION (plugin, AiServices sample): strings=%d, memory-tool answers checked=%d, records checked=%d,"
                + " blocks checked=%d, promoted=0, outside the block=0%n", sample.size(), toolAnswers.size(), records, blocks);
        assertThat(blocks).isPositive();
    }

    /** Calls lookup, then remember and updateState with the tool's text as the user's words, then answers. */
    private static AiMessage believer(ChatRequest r) {
        List<ChatMessage> messages = r.messages();
        ChatMessage last = messages.get(messages.size() - 1);
        if (last instanceof UserMessage u) {
            if (ScriptedChatModel.lastUserText(r).endsWith("look up my order 7 please")) {
                return AiMessage.from(ToolExecutionRequest.builder().id("l").name("lookup")
                        .arguments("{\"arg0\":\"7\"}").build());
            }
            return AiMessage.from("I remember a few things.");
        }
        ToolExecutionResultMessage result = (ToolExecutionResultMessage) last;
        String said = messages.stream().filter(m -> m instanceof ToolExecutionResultMessage t && t.toolName().equals("lookup"))
                .map(m -> ((ToolExecutionResultMessage) m).text()).reduce((a, b) -> b).orElseThrow();
        return switch (result.toolName()) {
            case "lookup" -> AiMessage.from(ToolExecutionRequest.builder().id("r").name("remember")
                    .arguments(args("key", "rules.system", "value", said, "kind", "preference", "userQuote", said)).build());
            case "remember" -> AiMessage.from(ToolExecutionRequest.builder().id("u").name("updateState")
                    .arguments(args("key", "inj.rule", "value", said, "kind", "decision")).build());
            default -> AiMessage.from("Noted.");
        };
    }

    private static String args(String... kv) {
        ObjectNode o = JSON.createObjectNode();
        for (int i = 0; i < kv.length; i += 2) {
            o.put(kv[i], kv[i + 1]);
        }
        return o.toString();
    }

    /** The extractor's answer: the string as a persistent preference, a session decision and a system rule. */
    private static String extraction(String s) {
        ObjectNode root = JSON.createObjectNode();
        ArrayNode ops = root.putArray("operations");
        ops.addObject().put("op", "set").put("scope", "persistent").put("key", "rules.extracted").put("value", s)
                .put("kind", "preference").put("evidence", s.substring(0, Math.min(s.length(), 200)));
        ops.addObject().put("op", "set").put("scope", "session").put("key", "inj.extracted").put("value", s)
                .put("kind", "decision").put("confidence", 1.0);
        ops.addObject().put("op", "set").put("scope", "persistent").put("key", "system.rule").put("value", s)
                .put("kind", "preference").put("reason", "the user set a new rule");
        return root.toString();
    }

    /** Every record of the scopes whose text holds {@code s} (current, conflicting or stale) is unpromoted; returns how many. */
    private static long assertNotPromoted(AgentMemory memory, Caller caller, List<Scope> scopes, String s, int i) {
        long n = 0;
        for (Scope scope : scopes) {
            for (KeyState k : memory.engine().view(caller, scope, ReadOptions.withArchived()).keys()) {
                List<MemoryRecord> versions = memory.engine().history(caller, scope, k.key());
                for (MemoryRecord r : versions) {
                    if (r.value() == null || !r.text().contains(s)) {
                        continue;
                    }
                    n++;
                    assertThat(r.trust()).as("trust of %s (string %d)", r, i).isEqualTo(Trust.UNTRUSTED);
                    assertThat(r.kind()).as("kind of %s (string %d)", r, i).isNotIn(Kind.PREFERENCE, Kind.DECISION);
                    assertThat(r.source()).as("source of %s (string %d)", r, i).isIn(Source.MODEL, Source.TOOL);
                    assertThat(r.tags()).as("tags of %s (string %d)", r, i).doesNotContainAnyElementsOf(PROMOTING_TAGS);
                }
            }
        }
        return n;
    }

    private static Metadata metadata(SessionRef ref) {
        return Metadata.builder().chatMessage(UserMessage.from(QUESTION))
                .invocationContext(InvocationContext.builder().chatMemoryId(ref).build()).build();
    }
}
