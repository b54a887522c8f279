package dev.agentmemory.langchain4j.reliability;

import dev.agentmemory.core.Caller;
import dev.agentmemory.core.ForgetMode;
import dev.agentmemory.core.ForgetReceipt;
import dev.agentmemory.core.ForgetTarget;
import dev.agentmemory.core.MemoryKey;
import dev.agentmemory.core.MemoryRecord;
import dev.agentmemory.langchain4j.AgentMemory;
import dev.agentmemory.langchain4j.SessionRef;
import dev.agentmemory.langchain4j.framing.MemoryFramer;
import dev.agentmemory.langchain4j.tools.Summarizer;
import dev.agentmemory.testing.DiskScan;
import dev.agentmemory.testing.langchain4j.ScriptedChatModel;
import dev.agentmemory.testing.langchain4j.SharedEmbeddingModel;
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
import dev.langchain4j.rag.query.Query;
import dev.langchain4j.service.AiServices;
import dev.langchain4j.service.MemoryId;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 6, test 6 (plugin side): forgetting for real through AgentMemory with the episodic index
 * on disk and a Summarizer. Values enter through real AiServices turns (the user's words, the
 * remember tool with a valid quote) and a summary; then one goes by the forget tool with the
 * user's quoted request, one by the engine's forget of its key, and the whole session by the
 * chat memory store's {@code deleteMessages}. After a hard forget and {@code compact()}, no byte
 * of them is left in any file under the data directory (H2 file, episodic index), the readable
 * log, any summary, or any later retrieval or framed block; values that were not forgotten are
 * still found by the same scan (the control). After a soft forget, no later recall, framed block
 * or summary holds them.
 */
@Tag("slow")
class PluginForgettingTest {

    interface Assistant {
        String chat(@MemoryId SessionRef id, @dev.langchain4j.service.UserMessage String text);
    }

    private static final byte[] KEY = "forgetting-framing-key-012345678".getBytes();
    private static final SessionRef ALICE_1 = new SessionRef("fg", "alice", "s1");
    private static final SessionRef ALICE_2 = new SessionRef("fg", "alice", "s2");
    private static final SessionRef BOB_1 = new SessionRef("fg", "bob", "s1");
    private static final List<String> FORGOTTEN = List.of("PINVALUE4471", "STREETVALUE9902", "NOTEVALUE5513");
    private static final List<String> KEPT = List.of("KEEPALICE3321", "JQZXBOBW7781");

    @TempDir
    Path dir;

    /**
     * The files under {@code dir} holding {@code value} as written or lower-cased: the index keeps
     * the analysed term (lower case) in its terms dictionary and the text in its stored fields,
     * which are LZ4-compressed, so a value that repeats part of an earlier one ("KEEPALICE" before
     * "KEEPALICE3321") need not appear there as one run of bytes; its term always does.
     */
    private static List<Path> onDisk(Path dir, String value) {
        java.util.Set<Path> files = new java.util.LinkedHashSet<>(DiskScan.filesContaining(dir, value));
        files.addAll(DiskScan.filesContaining(dir, value.toLowerCase(java.util.Locale.ROOT)));
        return List.copyOf(files);
    }

    private final MemoryFramer framer = MemoryFramer.builder().key(KEY).build();

    /** Remembers "my pin/street/name is X" with the user's words as the quote, forgets the pin when asked, echoes the rest. */
    private AiMessage model(ChatRequest r) {
        ChatMessage last = r.messages().get(r.messages().size() - 1);
        if (last instanceof ToolExecutionResultMessage result) {
            return AiMessage.from("ok: " + result.text());
        }
        String text = framer.stripFrames(ScriptedChatModel.lastUserText(r));
        String token = text.substring(text.lastIndexOf(' ') + 1);
        for (String[] k : new String[][] {{"my pin is ", "card.pin"}, {"my street is ", "home.street"},
                {"my name is ", "profile.name"}}) {
            if (text.startsWith(k[0])) {
                return call("remember", "{\"key\":\"" + k[1] + "\",\"value\":\"" + token
                        + "\",\"kind\":\"fact\",\"userQuote\":\"" + text + "\"}");
            }
        }
        if (text.equals("please forget my pin")) {
            return call("forget", "{\"key\":\"card.pin\",\"scope\":\"persistent\",\"userQuote\":\"" + text + "\"}");
        }
        return AiMessage.from("echo: " + text);
    }

    private static AiMessage call(String tool, String args) {
        return AiMessage.from(ToolExecutionRequest.builder().id("c-" + tool).name(tool).arguments(args).build());
    }

    /** The summarizer's model writes back everything it was shown, so a summary holds the values. */
    private static final ScriptedChatModel SUMMARY_MODEL =
            new ScriptedChatModel(r -> AiMessage.from("Summary: " + ScriptedChatModel.lastUserText(r)));

    private void converse(Assistant assistant) {
        assistant.chat(ALICE_1, "my pin is PINVALUE4471");
        assistant.chat(ALICE_1, "my street is STREETVALUE9902");
        assistant.chat(ALICE_1, "the note for the order says NOTEVALUE5513");
        for (int i = 0; i < 4; i++) {
            assistant.chat(ALICE_1, "filler turn number " + i);
        }
        assistant.chat(ALICE_2, "my name is KEEPALICE3321");
        assistant.chat(BOB_1, "my pin is JQZXBOBW7781");
    }

    private Assistant assistant(AgentMemory memory) {
        return AiServices.builder(Assistant.class).chatModel(new ScriptedChatModel(this::model))
                .chatMemoryProvider(memory.chatMemoryProvider())
                .retrievalAugmentor(memory.retrievalAugmentor())
                .tools(memory.tools())
                .build();
    }

    /** What later recall can show alice: retrieval, a framed block, summaries, chat memory windows. */
    private List<String> aliceReads(AgentMemory memory, Summarizer summarizer) {
        List<String> out = new ArrayList<>();
        for (SessionRef ref : List.of(ALICE_1, ALICE_2)) {
            String q = "what are my pin PINVALUE4471, street STREETVALUE9902 and note NOTEVALUE5513?";
            Metadata md = Metadata.builder().chatMessage(UserMessage.from(q))
                    .invocationContext(InvocationContext.builder().chatMemoryId(ref).build()).build();
            for (Content c : memory.contentRetriever().retrieve(Query.from(q, md))) {
                out.add(c.textSegment().text());
            }
            ChatMessage augmented = memory.retrievalAugmentor().augment(new AugmentationRequest(UserMessage.from(q), md))
                    .chatMessage();
            out.add(framer.parse(((UserMessage) augmented).singleText()).toString());
            summarizer.summaries(ref).forEach(s -> out.add(Summarizer.summaryText(s)));
            memory.chatMemoryStore().getMessages(ref).forEach(m -> out.add(m.toString()));
        }
        return out;
    }

    @Test
    void should_leave_no_byte_of_hard_forgotten_values_under_the_data_directory_when_compacted() {
        Path data = dir.resolve("data");
        // given: a conversation, a summary, and a restart, so that the index has committed everything to disk
        try (AgentMemory memory = hardMemory(data)) {
            converse(assistant(memory));
            Summarizer summarizer = Summarizer.builder(memory.engine(), SUMMARY_MODEL).minMessages(2).build();
            MemoryRecord summary = summarizer.summarize(ALICE_1).orElseThrow();
            assertThat(Summarizer.summaryText(summary)).contains("PINVALUE4471", "STREETVALUE9902", "NOTEVALUE5513");
        }
        for (String v : FORGOTTEN) {
            assertThat(onDisk(data.resolve("mem.recall"), v)).as("control: %s in the index files", v)
                    .isNotEmpty();
            assertThat(onDisk(data, v)).as("control: %s in the database file", v)
                    .anyMatch(f -> f.getFileName().toString().endsWith(".mv.db"));
        }
        try (AgentMemory memory = hardMemory(data)) {
            Assistant assistant = assistant(memory);
            Summarizer summarizer = Summarizer.builder(memory.engine(), SUMMARY_MODEL).minMessages(2).build();
            Caller alice = memory.caller(ALICE_1);
            assertThat(memory.engine().current(alice, alice.persistent(), MemoryKey.of("card.pin"))).isPresent();
            List<String> before = aliceReads(memory, summarizer);
            before.addAll(memory.engine().admin().readableLog(alice));
            for (String v : FORGOTTEN) {
                assertThat(String.join("\n", before)).as("control: %s readable before forgetting", v).contains(v);
            }

            // when: the forget tool with the user's request, the engine's forget of a key, deleteMessages
            String forgot = assistant.chat(ALICE_1, "please forget my pin");
            ForgetReceipt street = memory.engine().forget(alice,
                    ForgetTarget.key(alice.persistent(), MemoryKey.of("home.street")), ForgetMode.HARD);
            memory.chatMemoryStore().deleteMessages(ALICE_1);
            memory.engine().admin().compact();

            // then
            assertThat(forgot).startsWith("ok: Forgot card.pin in persistent memory: 1 version(s)");
            assertThat(street.recordIds()).hasSize(1);
            List<String> after = aliceReads(memory, summarizer);
            after.addAll(memory.engine().admin().readableLog(alice));
            String reads = String.join("\n", after);
            List<String> leftOpen = new ArrayList<>();
            for (String v : FORGOTTEN) {
                assertThat(reads).as("%s in a later read", v).doesNotContain(v);
                onDisk(data, v).forEach(f -> leftOpen.add(v + " in " + data.relativize(f)));
            }
            for (String v : KEPT) {
                assertThat(onDisk(data, v)).as("control: %s still on disk", v).isNotEmpty();
            }
            System.out.printf("FORGETTING (plugin, hard, index open): values=%d, files scanned=%s, leftovers=%s%n",
                    FORGOTTEN.size(), files(data), leftOpen);
            assertThat(leftOpen).isEmpty();
            assertThat(memory.engine().admin().audit(alice, java.time.Duration.ofDays(1)).replayMatches()).isTrue();
        }
        // and after close (the index commits) nothing came back
        List<String> leftClosed = new ArrayList<>();
        for (String v : FORGOTTEN) {
            onDisk(data, v).forEach(f -> leftClosed.add(v + " in " + data.relativize(f)));
        }
        for (String v : KEPT) {
            assertThat(onDisk(data.resolve("mem.recall"), v)).as("control: %s in the index", v).isNotEmpty();
        }
        System.out.printf("FORGETTING (plugin, hard, closed): values=%d, controls found=%d, leftovers=%s%n",
                FORGOTTEN.size(), KEPT.size(), leftClosed);
        assertThat(leftClosed).isEmpty();
    }

    @Test
    void should_never_show_a_soft_forgotten_value_again() {
        try (AgentMemory memory = AgentMemory.builder().h2File(dir.resolve("soft")).embeddingModel(SharedEmbeddingModel.get())
                .framingKey(KEY).windowSize(4).build()) {
            // given
            Assistant assistant = assistant(memory);
            converse(assistant);
            Summarizer summarizer = Summarizer.builder(memory.engine(), SUMMARY_MODEL).minMessages(2).build();
            summarizer.summarize(ALICE_1).orElseThrow();
            Caller alice = memory.caller(ALICE_1);

            // when: soft forgets through the same three doors
            String forgot = assistant.chat(ALICE_1, "please forget my pin");
            memory.engine().forget(alice, ForgetTarget.key(alice.persistent(), MemoryKey.of("home.street")), ForgetMode.SOFT);
            memory.chatMemoryStore().deleteMessages(ALICE_1);

            // then
            assertThat(forgot).startsWith("ok: Forgot card.pin");
            List<String> reads = aliceReads(memory, summarizer);
            reads.addAll(aliceReads(memory, summarizer));
            for (String v : FORGOTTEN) {
                assertThat(String.join("\n", reads)).as("%s in a later read", v).doesNotContain(v);
            }
            assertThat(String.join("\n", reads)).contains("KEEPALICE3321");
            System.out.printf("FORGETTING (plugin, soft): values=%d, later reads checked=%d (retriever, framed block, "
                    + "summaries, windows; the readable log keeps soft-forgotten values for audit), none holds them%n", FORGOTTEN.size(), reads.size());
        }
    }

    private static AgentMemory hardMemory(Path data) {
        return AgentMemory.builder().h2File(data.resolve("mem")).embeddingModel(SharedEmbeddingModel.get())
                .framingKey(KEY).windowSize(4).deleteMode(ForgetMode.HARD).build();
    }

    private static long files(Path dir) {
        try (var s = java.nio.file.Files.walk(dir)) {
            return s.filter(java.nio.file.Files::isRegularFile).count();
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
