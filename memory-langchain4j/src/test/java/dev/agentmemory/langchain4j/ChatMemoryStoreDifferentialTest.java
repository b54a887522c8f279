package dev.agentmemory.langchain4j;

import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.SystemMessage;
import dev.langchain4j.data.message.ToolExecutionResultMessage;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.memory.ChatMemory;
import dev.langchain4j.memory.chat.MessageWindowChatMemory;
import dev.langchain4j.store.memory.chat.ChatMemoryStore;
import dev.langchain4j.store.memory.chat.InMemoryChatMemoryStore;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Drives MessageWindowChatMemory over our store and over a reference store (LangChain4j's
 * InMemoryChatMemoryStore with the documented tool-pairing rule written out naively, see
 * {@link PairedReference}) with the same random sequences, and compares messages() after every
 * step; every few steps our store is reopened on the same H2 file (a restart: a call waiting for
 * its results stops waiting) and must serve the same list.
 */
class ChatMemoryStoreDifferentialTest {

    @TempDir
    Path dir;

    @Test
    void should_match_the_in_memory_store_when_driven_by_random_sequences() {
        for (long seed = 1; seed <= 10; seed++) {
            run(seed, 100, seed % 3 == 0);
        }
    }

    private void run(long seed, int steps, boolean keepSystemFirst) {
        Random random = new Random(seed);
        int window = 2 + random.nextInt(9);
        Path db = dir.resolve("diff-" + seed);
        SessionRef id = new SessionRef("acme", "u" + seed, "s1");
        AgentMemory memory = AgentMemory.builder().h2File(db).build();
        try {
            ChatMemory ours = memory(id, window, keepSystemFirst, memory);
            PairedReference referenceStore = new PairedReference();
            ChatMemory reference = MessageWindowChatMemory.builder().id(id).maxMessages(window)
                    .alwaysKeepSystemMessageFirst(keepSystemFirst).chatMemoryStore(referenceStore).build();
            List<ToolExecutionRequest> pending = new ArrayList<>();
            int call = 0;
            for (int step = 0; step < steps; step++) {
                List<ChatMessage> next = new ArrayList<>();
                int r = random.nextInt(100);
                if (!pending.isEmpty() && r < 15) {
                    // the turn failed mid-loop (a malformed call, a model error): no more results
                    pending.clear();
                    next.add(UserMessage.from("user after a failed turn " + step));
                } else if (!pending.isEmpty()) {
                    next.add(ToolExecutionResultMessage.from(pending.remove(0), "result " + step + " " + random.nextInt(3)));
                } else if (r < 35) {
                    next.add(UserMessage.from("user " + random.nextInt(6)));
                } else if (r < 65) {
                    next.add(AiMessage.from("ai " + random.nextInt(6)));
                } else if (r < 75) {
                    int n = 1 + random.nextInt(2);
                    for (int t = 0; t < n; t++) {
                        pending.add(ToolExecutionRequest.builder().id("call-" + call++).name("tool" + t)
                                .arguments("{\"n\":" + random.nextInt(4) + "}").build());
                    }
                    next.add(AiMessage.from(random.nextBoolean() ? "let me check" : null, List.copyOf(pending)));
                } else if (r < 87) {
                    next.add(SystemMessage.from("system " + random.nextInt(3)));
                } else if (r < 93) {
                    ours.clear();
                    reference.clear();
                    pending.clear();
                } else {
                    next.add(UserMessage.from("user " + step, "caller-" + random.nextInt(2)));
                }
                for (ChatMessage m : next) {
                    ours.add(m);
                    reference.add(m);
                }
                assertThat(ours.messages()).as("seed %d step %d", seed, step).isEqualTo(reference.messages());
                List<ChatMessage> shown = ours.messages();
                List<Integer> dangling = ToolCallPairing.danglingToolMessages(shown);
                int waiting = PairedReference.waitingCall(shown);
                assertThat(dangling).as("seed %d step %d: unpaired before a waiting call at the end", seed, step)
                        .allMatch(p -> waiting >= 0 && p >= waiting);
                if (step % 25 == 24) {
                    // a restart, possibly in the middle of a tool loop whose results never come
                    memory.close();
                    referenceStore.restart(id);
                    memory = AgentMemory.builder().h2File(db).build();
                    assertThat(memory.chatMemoryStore().getMessages(id)).as("reloaded, seed %d step %d", seed, step)
                            .isEqualTo(referenceStore.getMessages(id));
                    ours = memory(id, window, keepSystemFirst, memory);
                    pending.clear();
                }
            }
        } finally {
            memory.close();
        }
    }

    /**
     * The rule in its plainest form over a list: reads leave out every message that breaks tool
     * pairing, except a call at the end followed only by results of its own requests (a loop still
     * waiting for the others), unless a restart came since it was added; an update replaces the list.
     */
    static final class PairedReference implements ChatMemoryStore {
        private final InMemoryChatMemoryStore raw = new InMemoryChatMemoryStore();
        /** Calls that were in the list at a restart: the loop waiting for their results is gone. */
        private final Set<ChatMessage> abandoned = Collections.newSetFromMap(new IdentityHashMap<>());

        @Override
        public List<ChatMessage> getMessages(Object id) {
            List<ChatMessage> all = raw.getMessages(id);
            List<Integer> dangling = ToolCallPairing.danglingToolMessages(all);
            int waiting = waitingCall(all);
            boolean shown = waiting >= 0 && !abandoned.contains(all.get(waiting));
            List<ChatMessage> out = new ArrayList<>();
            for (int p = 0; p < all.size(); p++) {
                if (!dangling.contains(p) || shown && p >= waiting) {
                    out.add(all.get(p));
                }
            }
            return out;
        }

        /** The position of a call at the end with only some of its results after it, else -1. */
        static int waitingCall(List<ChatMessage> all) {
            int call = all.size() - 1;
            while (call >= 0 && all.get(call) instanceof ToolExecutionResultMessage) {
                call--;
            }
            if (call < 0 || !(all.get(call) instanceof AiMessage ai) || !ai.hasToolExecutionRequests()) {
                return -1;
            }
            Set<String> ids = new HashSet<>();
            ai.toolExecutionRequests().forEach(r -> ids.add(r.id()));
            Set<String> answered = new HashSet<>();
            for (ChatMessage m : all.subList(call + 1, all.size())) {
                if (!ids.contains(((ToolExecutionResultMessage) m).id())) {
                    return -1;
                }
                answered.add(((ToolExecutionResultMessage) m).id());
            }
            return answered.containsAll(ids) ? -1 : call;
        }

        /** A restart: every call in the list stops waiting. */
        void restart(Object id) {
            abandoned.addAll(raw.getMessages(id));
        }

        @Override
        public void updateMessages(Object id, List<ChatMessage> incoming) {
            raw.updateMessages(id, incoming);
        }

        @Override
        public void deleteMessages(Object id) {
            raw.deleteMessages(id);
        }
    }

    private static ChatMemory memory(SessionRef id, int window, boolean keepSystemFirst, AgentMemory memory) {
        return MessageWindowChatMemory.builder().id(id).maxMessages(window).alwaysKeepSystemMessageFirst(keepSystemFirst)
                .chatMemoryStore(memory.chatMemoryStore()).build();
    }
}
