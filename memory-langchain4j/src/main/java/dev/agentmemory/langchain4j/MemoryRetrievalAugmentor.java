package dev.agentmemory.langchain4j;

import dev.agentmemory.core.spi.Partition;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.rag.AugmentationRequest;
import dev.langchain4j.rag.AugmentationResult;
import dev.langchain4j.rag.RetrievalAugmentor;
import dev.langchain4j.rag.content.Content;
import dev.langchain4j.rag.query.Query;

import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Retrieves with the layered retriever, injects with the framing injector, and remembers per
 * session what was used, for {@link AgentMemory#lastRecall}. Each augmentation starts a turn of
 * the chat memory store: it learns the framed user message of this turn (and drops the one of
 * any earlier turn).
 */
final class MemoryRetrievalAugmentor implements RetrievalAugmentor {

    private final MemoryContentRetriever retriever;
    private final MemoryContentInjector injector;
    private final Clock clock;
    private final TurnAwareChatMemoryStore turns;
    private final Map<SessionRef, Recall> last = new ConcurrentHashMap<>();

    MemoryRetrievalAugmentor(MemoryContentRetriever retriever, MemoryContentInjector injector, Clock clock,
                             TurnAwareChatMemoryStore turns) {
        this.retriever = retriever;
        this.injector = injector;
        this.clock = clock;
        this.turns = turns;
    }

    @Override
    public AugmentationResult augment(AugmentationRequest request) {
        Objects.requireNonNull(request, "request");
        ChatMessage message = request.chatMessage();
        String text = message instanceof UserMessage u ? MessageText.of(u) : "";
        Query query = Query.from(text == null ? "" : text, request.metadata());
        List<Content> contents = retriever.retrieve(query);
        MemoryContentInjector.Injection injection = injector.injectAndReport(contents, message);
        MemoryContentRetriever.Target target = retriever.target(query);
        if (target.session() != null) {
            turns.begin(target.session(), message, injection.message());
            last.put(target.session(), new Recall(target.session(), query.text(), injection.used(), injection.cut(),
                    injection.cutReasons(), clock.instant()));
        }
        return new AugmentationResult(injection.message(), injection.used());
    }

    Optional<Recall> last(SessionRef session) {
        return Optional.ofNullable(last.get(session));
    }

    /** Drops the recorded recalls of a user's sessions; returns how many. */
    int forget(Partition partition) {
        int n = 0;
        for (SessionRef ref : List.copyOf(last.keySet())) {
            if (ref.tenant().equals(partition.tenant()) && ref.user().equals(partition.user())
                    && last.remove(ref) != null) {
                n++;
            }
        }
        return n;
    }
}
