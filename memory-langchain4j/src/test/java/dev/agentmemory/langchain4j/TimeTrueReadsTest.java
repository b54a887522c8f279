package dev.agentmemory.langchain4j;

import dev.agentmemory.core.Caller;
import dev.agentmemory.core.MemoryRecord.Kind;
import dev.agentmemory.core.MemoryKey;
import dev.agentmemory.core.MemoryRecord;
import dev.agentmemory.core.MemoryValue;
import dev.agentmemory.core.Proposal;
import dev.agentmemory.core.ScopeView;
import dev.agentmemory.core.MemoryRecord.Source;
import dev.agentmemory.core.TaskInfo;
import dev.agentmemory.langchain4j.framing.FramedItem;
import dev.agentmemory.testing.TestClock;
import dev.agentmemory.testing.langchain4j.ScriptedChatModel;
import dev.agentmemory.testing.langchain4j.SharedEmbeddingModel;
import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.ToolExecutionResultMessage;
import dev.langchain4j.model.chat.request.ChatRequest;
import dev.langchain4j.service.AiServices;
import dev.langchain4j.service.MemoryId;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 23, items 1 and 2, the way a user meets them: an AiService with a scripted model, a clock
 * moved across months. The billing system writes who the billing contact is with validity windows
 * (Priya until March, Tom from March to June); the user states both in one message; a refund task
 * holds a card number and is put aside; an exchange task moves to another chat and is put aside
 * there; both tasks' facts pass their re-verify deadline. At every step the whole request the model
 * receives (persistent memory, task state, the open-task list, past messages, summaries) must say
 * what applies at that time: the version in its window is current, a version whose window has not
 * begun is upcoming with its valid-from, one whose window ended is not current, and facts past their
 * deadline are flagged wherever they are stated, also inside suspended and moved tasks.
 */
class TimeTrueReadsTest {

    interface Assistant {
        String chat(@MemoryId SessionRef session, @dev.langchain4j.service.UserMessage String text);
    }

    private static final SessionRef S1 = new SessionRef("acme", "dana", "s1");
    private static final SessionRef S2 = new SessionRef("acme", "dana", "s2");
    private static final MemoryKey CONTACT = MemoryKey.of("billing.contact");
    private static final Instant MARCH = Instant.parse("2025-03-01T00:00:00Z");
    private static final Instant JUNE = Instant.parse("2025-06-01T00:00:00Z");

    /** Starts, resumes and fills tasks when asked, in the user's quoted words; notes tool results. */
    private static AiMessage agent(AgentMemory memory, ChatRequest r) {
        ChatMessage last = r.messages().get(r.messages().size() - 1);
        if (last instanceof ToolExecutionResultMessage) {
            return AiMessage.from("Noted.");
        }
        String said = memory.framer().stripFrames(ScriptedChatModel.lastUserText(r));
        if (said.contains("start the refund")) {
            return call("startTask", "{\"task\":\"refund-1\",\"title\":\"refund\"}");
        }
        if (said.contains("card 4242")) {
            return call("updateState", "{\"key\":\"refund.card\",\"value\":\"4242\",\"userQuote\":\"refund goes to card 4242\"}");
        }
        if (said.contains("start the exchange")) {
            return call("startTask", "{\"task\":\"exchange-7\",\"title\":\"exchange\"}");
        }
        if (said.contains("aubergine")) {
            return call("updateState", "{\"key\":\"exchange.color\",\"value\":\"aubergine\",\"userQuote\":\"the aubergine one\"}");
        }
        if (said.contains("resume the exchange")) {
            return call("resumeTask", "{\"task\":\"exchange-7\",\"startedIn\":\"s1\"}");
        }
        if (said.contains("start the shipping")) {
            return call("startTask", "{\"task\":\"shipping-3\",\"title\":\"shipping\"}");
        }
        return AiMessage.from("Sure.");
    }

    /** Summaries restate the values the excerpt names. */
    private static final ScriptedChatModel SUMMARIES = new ScriptedChatModel(r -> {
        String excerpt = ScriptedChatModel.lastUserText(r);
        List<String> facts = new ArrayList<>();
        for (String v : List.of("4242", "aubergine", "Priya", "Tom")) {
            if (excerpt.contains(v)) {
                facts.add(v);
            }
        }
        return AiMessage.from(facts.isEmpty() ? "Small talk." : "The user mentioned " + String.join(" and ", facts) + ".");
    });

    private static AiMessage call(String tool, String args) {
        return AiMessage.from(List.of(ToolExecutionRequest.builder().id("c-" + tool + "-" + args.hashCode())
                .name(tool).arguments(args).build()));
    }

    private static List<FramedItem> layer(List<FramedItem> items, String layer) {
        return items.stream().filter(i -> layer.equals(i.extra().get(FramedItem.LAYER))).toList();
    }

    private static FramedItem only(List<FramedItem> items, String layer, String textPart) {
        List<FramedItem> found = items.stream().filter(i -> layer.equals(i.extra().get(FramedItem.LAYER))
                && i.text().contains(textPart)).toList();
        assertThat(found).as("%s items saying %s in %s", layer, textPart, items).hasSize(1);
        return found.get(0);
    }

    private static FramedItem byId(List<FramedItem> items, String id) {
        List<FramedItem> found = items.stream().filter(i -> i.id().equals(id)).toList();
        assertThat(found).as("items %s in %s", id, items).hasSize(1);
        return found.get(0);
    }

    private static void moveTo(TestClock clock, Instant t) {
        clock.advance(Duration.between(clock.instant(), t));
    }

    @Test
    void should_frame_what_applies_at_the_time_of_the_read_in_every_layer_across_months() {
        TestClock clock = new TestClock(Instant.parse("2025-01-10T09:00:00Z"));
        try (AgentMemory memory = AgentMemory.builder().embeddingModel(SharedEmbeddingModel.get())
                .windowSize(2).summarizer(SUMMARIES, 2).resultsPerLayer(20, 10, 60).minScore(0.0).blockBudget(100_000, 50_000)
                .engineSettings(e -> e.clock(clock).ttl(Kind.TASK_FACT, Duration.ofDays(3))).build()) {
            ScriptedChatModel model = new ScriptedChatModel(r -> agent(memory, r));
            Assistant assistant = AiServices.builder(Assistant.class).chatModel(model)
                    .chatMemoryProvider(memory.chatMemoryProvider())
                    .retrievalAugmentor(memory.retrievalAugmentor())
                    .tools(memory.tools()).build();
            Caller dana = memory.caller(S1);
            java.util.Map<Instant, List<String>> framedAt = new java.util.LinkedHashMap<>();

            // January 10: the billing system records both contacts with their windows
            memory.engine().write(dana, Proposal.set(dana.persistent(), CONTACT, MemoryValue.of("Priya"))
                    .kind(Kind.REFERENCE).source(Source.SYSTEM, "crm#17").validity(null, MARCH).build());
            memory.engine().write(dana, Proposal.set(dana.persistent(), CONTACT, MemoryValue.of("Tom"))
                    .kind(Kind.REFERENCE).source(Source.SYSTEM, "crm#18").validity(MARCH, JUNE).build());
            assistant.chat(S1, "Our billing contact is Priya until March, then Tom takes over");
            assistant.chat(S1, "Please start the refund task");
            assistant.chat(S1, "The refund goes to card 4242");
            assistant.chat(S1, "Now please start the exchange task");
            assistant.chat(S1, "I would like the aubergine one");

            // January 11: the exchange moves to s2 and is put aside there for a shipping question
            clock.advance(Duration.ofDays(1));
            assistant.chat(S2, "Please resume the exchange task here");
            assistant.chat(S2, "Now start the shipping task");
            TaskInfo exchange = task(memory, dana, "exchange-7");
            assertThat(exchange.heldBy()).isEqualTo("s2");
            assertThat(exchange.status()).isEqualTo(TaskInfo.Status.SUSPENDED);
            assertThat(task(memory, dana, "refund-1").status()).isEqualTo(TaskInfo.Status.SUSPENDED);

            // January 12, before any deadline: Priya current until March, Tom upcoming from March
            clock.advance(Duration.ofDays(1));
            List<FramedItem> jan12 = ask(assistant, model, memory, S1,
                    "What about card 4242 and the aubergine one, and who gets our invoices?");
            assertContact(jan12, "Priya", "current", MemoryContent.VALID_TO, MARCH);
            assertContact(jan12, "Tom", "upcoming", MemoryContent.VALID_FROM, MARCH);
            FramedItem both = only(jan12, "episodic", "Priya until March");
            assertThat(both.status()).isEqualTo("upcoming");
            assertThat(both.extra()).containsEntry("valid-from", MARCH.toString());
            FramedItem card = byId(jan12, "refund.card@v1");
            assertThat(card.status()).isEqualTo("past");
            assertThat(card.extra()).containsEntry(FramedItem.TASK, "refund-1").containsEntry(FramedItem.TASK_STATUS, "suspended");
            assertAgreesWithEngine(memory, dana, jan12);
            framedAt.put(memory.engine().clock().instant(), framedCurrent(jan12));

            // January 15: the task facts passed their 3-day deadline, inside a suspended task (refund-1,
            // still in s1) and a moved one (exchange-7, put aside in s2): flagged wherever stated
            moveTo(clock, Instant.parse("2025-01-15T09:00:00Z"));
            List<FramedItem> jan15 = ask(assistant, model, memory, S1,
                    "Remind me of card 4242 and the aubergine one");
            FramedItem expiredCard = byId(jan15, "refund.card@v1");
            assertThat(expiredCard.status()).isEqualTo("needs-reverification");
            assertThat(expiredCard.extra()).containsEntry(FramedItem.TASK, "refund-1")
                    .containsEntry(FramedItem.TASK_STATUS, "suspended");
            FramedItem aubergine = only(jan15, "episodic", "I would like the aubergine one");
            assertThat(aubergine.status()).isEqualTo("needs-reverification");
            assertThat(aubergine.extra()).containsEntry(FramedItem.TASK, "exchange-7")
                    .containsEntry(FramedItem.TASK_STATUS, "suspended");
            List<FramedItem> summaries = layer(jan15, "summary").stream()
                    .filter(i -> i.text().contains("4242") || i.text().contains("aubergine")).toList();
            assertThat(summaries).as("summaries restating the expired task facts in %s", jan15).isNotEmpty()
                    .allSatisfy(s -> assertThat(s.status()).as("%s", s).isEqualTo("needs-reverification"));
            // task state of a suspended task is never framed current; the open-task list still names
            // the tasks, and flags what passed its deadline
            assertThat(only(jan15, "tasks", "task refund-1").text()).contains("refund.card = 4242 (needs-reverification)");
            assertThat(only(jan15, "tasks", "task exchange-7").text()).contains("exchange.color = aubergine (needs-reverification)");
            assertThat(jan15).filteredOn(i -> i.text().contains("refund.card") || i.text().contains("exchange.color"))
                    .noneMatch(i -> i.status().equals("current"));
            assertContact(jan15, "Priya", "current", MemoryContent.VALID_TO, MARCH);
            assertAgreesWithEngine(memory, dana, jan15);
            framedAt.put(memory.engine().clock().instant(), framedCurrent(jan15));

            // April 1: Tom's window began; Priya is superseded by him, the message is past
            moveTo(clock, Instant.parse("2025-04-01T09:00:00Z"));
            List<FramedItem> april = ask(assistant, model, memory, S1, "Who gets our invoices these days?");
            assertContact(april, "Tom", "current", MemoryContent.VALID_TO, JUNE);
            assertThat(layer(april, "persistent")).extracting(FramedItem::text).doesNotContain("billing.contact = Priya");
            assertThat(only(april, "episodic", "Priya until March").status()).isEqualTo("past");
            assertThat(april).filteredOn(i -> i.text().contains("Priya") && !i.text().contains("Tom"))
                    .allSatisfy(i -> assertThat(i.status()).as("%s", i).isEqualTo("superseded"));
            assertAgreesWithEngine(memory, dana, april);
            framedAt.put(memory.engine().clock().instant(), framedCurrent(april));

            // July 1: Tom's window ended too: nothing about the billing contact is current
            moveTo(clock, Instant.parse("2025-07-01T09:00:00Z"));
            List<FramedItem> july = ask(assistant, model, memory, S1, "And who gets our invoices in July?");
            assertContact(july, "Tom", "no-longer-valid", MemoryContent.VALID_TO, JUNE);
            assertThat(july).filteredOn(i -> i.text().contains("Priya") || i.text().contains("Tom"))
                    .noneMatch(i -> i.status().equals("current"));
            assertThat(only(july, "episodic", "Priya until March").status()).isEqualTo("no-longer-valid");
            assertAgreesWithEngine(memory, dana, july);
            framedAt.put(memory.engine().clock().instant(), framedCurrent(july));

            // asOf(t), read afterwards, gives what the block made with the clock at t showed as current
            framedAt.forEach((t, framed) -> assertThat(memory.engine().asOf(dana, dana.persistent(), t).text(CONTACT.path())
                    .stream().toList()).as("asOf %s", t).isEqualTo(framed));

            // every request the model received with a user message (with a window of two, a tool
            // loop's second call holds only the call and its result): at most one block, in the
            // last user message, every item with a known status
            List<ChatRequest> withUser = model.requests().stream()
                    .filter(r -> r.messages().stream().anyMatch(m -> m instanceof dev.langchain4j.data.message.UserMessage))
                    .toList();
            assertThat(withUser).hasSizeGreaterThanOrEqualTo(11);
            withUser.forEach(r -> FramedRequests.check(memory, r));
        }
    }

    private static TaskInfo task(AgentMemory memory, Caller dana, String id) {
        return memory.engine().tasks().userTasks(dana).stream().filter(t -> t.task().equals(id)).findFirst().orElseThrow();
    }

    private static List<FramedItem> ask(Assistant assistant, ScriptedChatModel model, AgentMemory memory,
                                        SessionRef session, String question) {
        // every past message is recalled (60 episodic results, no minimum score; the questions do not
        // restate the billing message, which recall would then treat as replaced), so that what is
        // checked is each item's label, not the ranking
        memory.awaitIndexed();
        assistant.chat(session, question);
        ChatRequest request = model.requests().stream()
                .filter(r -> ScriptedChatModel.lastUserText(r).contains(question)).reduce((a, b) -> b).orElseThrow();
        List<FramedItem> items = FramedRequests.items(memory, request);
        FramedRequests.assertLastRecallMatches(memory, session, items);
        return items;
    }

    private static void assertContact(List<FramedItem> items, String value, String status, String attribute, Instant at) {
        FramedItem item = only(items, "persistent", "billing.contact = " + value);
        assertThat(item.status()).as("%s", item).isEqualTo(status);
        assertThat(item.extra()).containsEntry(attribute.substring("memory.".length()), at.toString());
    }

    /** The block's persistent billing contact is what current(), view(), applicableAt() and asOf() say now. */
    private static void assertAgreesWithEngine(AgentMemory memory, Caller dana, List<FramedItem> items) {
        Instant now = memory.engine().clock().instant();
        Optional<MemoryRecord> current = memory.engine().current(dana, dana.persistent(), CONTACT);
        assertThat(current.map(MemoryRecord::id)).isEqualTo(memory.engine().applicableAt(dana, dana.persistent(), CONTACT, now)
                .map(MemoryRecord::id));
        ScopeView view = memory.engine().view(dana, dana.persistent());
        ScopeView asOf = memory.engine().asOf(dana, dana.persistent(), now);
        assertThat(view.text(CONTACT.path())).isEqualTo(asOf.text(CONTACT.path()))
                .isEqualTo(current.map(MemoryRecord::text));
        assertThat(framedCurrent(items)).containsExactlyElementsOf(current.map(MemoryRecord::text).stream().toList());
    }

    /** The billing contacts the block frames as current. */
    private static List<String> framedCurrent(List<FramedItem> items) {
        return layer(items, "persistent").stream()
                .filter(i -> i.text().startsWith("billing.contact = ") && i.status().equals("current"))
                .map(i -> i.text().substring("billing.contact = ".length())).toList();
    }
}
