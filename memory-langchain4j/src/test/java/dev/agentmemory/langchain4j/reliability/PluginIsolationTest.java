package dev.agentmemory.langchain4j.reliability;

import dev.agentmemory.core.MemoryRecord.Access;
import dev.agentmemory.core.MemoryException;
import dev.agentmemory.core.Caller;
import dev.agentmemory.core.MemoryRecord.Kind;
import dev.agentmemory.core.engine.MemoryEngine;
import dev.agentmemory.core.Proposal;
import dev.agentmemory.core.MemoryRecord.Source;
import dev.agentmemory.langchain4j.AgentMemory;
import dev.agentmemory.langchain4j.MemoryContent;
import dev.agentmemory.langchain4j.SessionRef;
import dev.agentmemory.langchain4j.framing.FramedItem;
import dev.agentmemory.langchain4j.framing.MemoryFramer;
import dev.agentmemory.langchain4j.framing.ParsedFrame;
import dev.agentmemory.testing.langchain4j.ScriptedChatModel;
import dev.agentmemory.testing.langchain4j.SharedEmbeddingModel;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.invocation.InvocationContext;
import dev.langchain4j.invocation.InvocationParameters;
import dev.langchain4j.rag.AugmentationRequest;
import dev.langchain4j.rag.content.Content;
import dev.langchain4j.rag.query.Metadata;
import dev.langchain4j.rag.query.Query;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Issue 6, test 4 (plugin side): randomised tenants, users and agents (one AgentMemory per agent
 * over one engine, each with its episodic layer) write records with every access level and chat
 * messages, each carrying a marker naming who wrote it and how it may be read. Every retrieval
 * and every framed block for one (tenant, user, agent) holds only that tenant's and user's
 * markers (all layers, episodic included), no private record of another agent and no protected
 * record of another owner (state and persistent layers). A query whose invocation parameters
 * name another tenant or user than its memory id is refused.
 */
@Tag("slow")
class PluginIsolationTest {

    private static final byte[] KEY = "isolation-framing-key-0123456789".getBytes();
    private static final Pattern MARKER = Pattern.compile("ISO(\\d)(\\d)(\\d)([BRO])(\\d)K");
    private static final List<String> AGENTS = List.of("a0", "a1", "a2");
    private static final int TENANTS = 2;
    private static final int USERS = 2;

    private final MemoryFramer framer = MemoryFramer.builder().key(KEY).build();

    /** Who wrote a marker and how it may be read: B public, R private, O protected with owner {@code owner}. */
    private record Mark(int tenant, int user, int agent, char access, int owner) {
        static Mark of(Matcher m) {
            return new Mark(Integer.parseInt(m.group(1)), Integer.parseInt(m.group(2)), Integer.parseInt(m.group(3)),
                    m.group(4).charAt(0), Integer.parseInt(m.group(5)));
        }

        String text() {
            return "ISO" + tenant + user + agent + access + owner + "K";
        }

        /** Whether agent {@code reader} of the same user may read the record this marks. */
        boolean readableBy(int reader) {
            return switch (access) {
                case 'R' -> reader == agent;
                case 'O' -> reader == agent || reader == owner;
                default -> true;
            };
        }
    }

    private static SessionRef ref(int t, int u, int a) {
        return new SessionRef("iso" + t, "u" + u, "s-" + AGENTS.get(a));
    }

    @Test
    void should_never_show_one_user_or_agent_what_belongs_to_another_when_recalling_through_the_plugin() {
        Random random = new Random(4);
        long contentsChecked = 0;
        long framedChecked = 0;
        long queries = 0;
        long refused = 0;
        try (MemoryEngine engine = MemoryEngine.builder().build()) {
            List<AgentMemory> memories = new ArrayList<>();
            for (String agent : AGENTS) {
                memories.add(AgentMemory.builder().engine(engine).agent(agent).embeddingModel(SharedEmbeddingModel.get())
                        .framingKey(KEY).build());
            }
            try {
                // given: each agent writes, for each user, records of every access level and a chat turn
                List<Mark> marks = new ArrayList<>();
                for (int t = 0; t < TENANTS; t++) {
                    for (int u = 0; u < USERS; u++) {
                        for (int a = 0; a < AGENTS.size(); a++) {
                            Caller caller = new Caller("iso" + t, "u" + u, AGENTS.get(a));
                            int owner = random.nextInt(AGENTS.size());
                            for (char access : new char[] {'B', 'R', 'O'}) {
                                Mark m = new Mark(t, u, a, access, access == 'O' ? owner : 0);
                                marks.add(m);
                                Proposal.Builder p = Proposal.set(random.nextBoolean() ? caller.persistent()
                                                : caller.session(ref(t, u, a).session()),
                                        "note." + access + a, "code " + m.text())
                                        .kind(Kind.DECISION).source(Source.USER, "msg-1")
                                        .access(access == 'B' ? Access.PUBLIC : access == 'R' ? Access.PRIVATE : Access.PROTECTED);
                                if (access == 'O') {
                                    p.owner(AGENTS.get(owner));
                                }
                                engine.write(caller, p.build());
                            }
                            Mark said = new Mark(t, u, a, 'B', 9);
                            memories.get(a).chatMemoryStore().updateMessages(ref(t, u, a), List.of(
                                    UserMessage.from("my code is " + said.text()), AiMessage.from("noted " + said.text())));
                        }
                    }
                }

                // when: every agent recalls for every user, with queries naming everyone's markers
                for (int round = 0; round < 3; round++) {
                    for (int t = 0; t < TENANTS; t++) {
                        for (int u = 0; u < USERS; u++) {
                            for (int a = 0; a < AGENTS.size(); a++) {
                                String q = "what is the code " + marks.get(random.nextInt(marks.size())).text() + " or "
                                        + marks.get(random.nextInt(marks.size())).text() + "?";
                                AgentMemory memory = memories.get(a);
                                Metadata md = metadata(q, ref(t, u, a), Map.of());
                                List<Content> found = memory.contentRetriever().retrieve(Query.from(q, md));
                                for (Content c : found) {
                                    String layer = c.textSegment().metadata().getString(MemoryContent.LAYER);
                                    check(t, u, a, c.textSegment().text(), !"episodic".equals(layer));
                                    contentsChecked++;
                                }
                                String prompt = ((UserMessage) memory.retrievalAugmentor()
                                        .augment(new AugmentationRequest(UserMessage.from(q), md)).chatMessage()).singleText();
                                for (ParsedFrame f : framer.parse(prompt)) {
                                    for (FramedItem item : f.items()) {
                                        check(t, u, a, item.text(), !"episodic".equals(item.extra().get("layer")));
                                        framedChecked++;
                                    }
                                }
                                check(t, u, a, framer.stripFrames(prompt).replace(q, ""), true);
                                queries++;

                                // and: invocation parameters naming someone else are refused
                                int ot = random.nextInt(TENANTS);
                                int ou = ot == t ? (u + 1) % USERS : random.nextInt(USERS);
                                Metadata other = metadata(q, ref(t, u, a), Map.of("tenant", "iso" + ot, "user", "u" + ou));
                                assertThatThrownBy(() -> memory.contentRetriever().retrieve(Query.from(q, other)))
                                        .isInstanceOf(MemoryException.AccessDenied.class)
                                        .hasMessageContaining("iso" + ot + "/u" + ou);
                                assertThatThrownBy(() -> memory.retrievalAugmentor()
                                        .augment(new AugmentationRequest(UserMessage.from(q), other)))
                                        .isInstanceOf(MemoryException.AccessDenied.class);
                                refused += 2;
                            }
                        }
                    }
                }
            } finally {
                memories.forEach(AgentMemory::close);
            }
        }
        System.out.printf("ISOLATION (plugin): tenants=%d, users=%d, agents=%d, queries=%d, retrieved contents checked=%d,"
                        + " framed items checked=%d, foreign invocation parameters refused=%d, leaks=0%n",
                TENANTS, TENANTS * USERS, AGENTS.size(), queries, contentsChecked, framedChecked, refused);
        assertThat(contentsChecked).isGreaterThan(queries * 3);
    }

    /** The markers in {@code text} belong to the reader's tenant and user and, when {@code accessChecked}, are readable by its agent. */
    private static void check(int t, int u, int a, String text, boolean accessChecked) {
        Matcher m = MARKER.matcher(text);
        while (m.find()) {
            Mark mark = Mark.of(m);
            assertThat(mark.tenant() + "/" + mark.user()).as("%s shown to iso%d/u%d/%s", mark.text(), t, u, AGENTS.get(a))
                    .isEqualTo(t + "/" + u);
            if (accessChecked) {
                assertThat(mark.readableBy(a)).as("%s shown to agent %s", mark.text(), AGENTS.get(a)).isTrue();
            }
        }
    }

    interface Assistant {
        String chat(@dev.langchain4j.service.MemoryId SessionRef id, @dev.langchain4j.service.UserMessage String text,
                    InvocationParameters parameters);
    }

    @Test
    void should_refuse_a_turn_through_ai_services_when_invocation_parameters_name_another_user() {
        try (AgentMemory memory = AgentMemory.builder().embeddingModel(SharedEmbeddingModel.get()).framingKey(KEY).build()) {
            // given
            Caller bob = new Caller("iso1", "u0", "assistant");
            memory.engine().write(bob, Proposal.set(bob.persistent(), "note", "code ISO100B0K").kind(Kind.DECISION)
                    .source(Source.USER, "m").build());
            ScriptedChatModel model = new ScriptedChatModel(r -> AiMessage.from("answer"));
            Assistant assistant = dev.langchain4j.service.AiServices.builder(Assistant.class).chatModel(model)
                    .chatMemoryProvider(memory.chatMemoryProvider()).retrievalAugmentor(memory.retrievalAugmentor()).build();
            SessionRef alice = ref(0, 0, 0);

            // when / then: alice's memory id with parameters naming bob is refused before the model sees anything
            assertThatThrownBy(() -> assistant.chat(alice, "what is the code?",
                    new InvocationParameters(Map.of("tenant", "iso1", "user", "u0"))))
                    .isInstanceOf(MemoryException.AccessDenied.class).hasMessageContaining("iso1/u0");
            assertThat(model.requests()).isEmpty();
            // and the same turn with matching parameters goes through, without bob's memory
            assertThat(assistant.chat(alice, "what is the code?",
                    new InvocationParameters(Map.of("tenant", "iso0", "user", "u0")))).isEqualTo("answer");
            assertThat(ScriptedChatModel.lastUserText(model.lastRequest())).doesNotContain("ISO100B0K");
        }
    }

    @Test
    void should_never_show_an_agent_another_agents_private_record_through_the_episodic_layer() {
        try (MemoryEngine engine = MemoryEngine.builder().build();
             AgentMemory reader = AgentMemory.builder().engine(engine).agent("a1").embeddingModel(SharedEmbeddingModel.get())
                     .framingKey(KEY).build()) {
            // given
            Caller writer = new Caller("iso0", "u0", "a0");
            engine.write(writer, Proposal.set(writer.persistent(), "secret.plan", "the private plan is ISO000R0K")
                    .kind(Kind.DECISION).source(Source.USER, "m").access(Access.PRIVATE).build());
            String q = "what is the private plan?";

            // when
            List<Content> found = reader.contentRetriever().retrieve(Query.from(q, metadata(q, ref(0, 0, 1), Map.of())));

            // then
            assertThat(found).extracting(c -> c.textSegment().text()).noneMatch(s -> s.contains("ISO000R0K"));
        }
    }

    private static Metadata metadata(String text, SessionRef ref, Map<String, Object> params) {
        return Metadata.builder().chatMessage(UserMessage.from(text)).invocationContext(InvocationContext.builder()
                .chatMemoryId(ref).invocationParameters(new InvocationParameters(new HashMap<>(params))).build()).build();
    }
}
