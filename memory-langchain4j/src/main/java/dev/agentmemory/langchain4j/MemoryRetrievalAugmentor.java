package dev.agentmemory.langchain4j;

import dev.agentmemory.langchain4j.internal.MemorySpans;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.rag.AugmentationRequest;
import dev.langchain4j.rag.AugmentationResult;
import dev.langchain4j.rag.RetrievalAugmentor;
import dev.langchain4j.rag.content.Content;
import dev.langchain4j.rag.query.Query;

import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Objects;

/**
 * Retrieves with the layered retriever (and the application's own retrievers, if any), injects
 * everything with the framing injector as one block within one budget, and records per session
 * what was used, for {@link AgentMemory#lastRecall}. Each augmentation starts a turn of the chat
 * memory store: it learns the framed user message of this turn (and drops the one of any earlier
 * turn).
 */
final class MemoryRetrievalAugmentor implements RetrievalAugmentor {

    private final MemoryContentRetriever retriever;
    private final AppDocuments documents;
    private final MemoryContentInjector injector;
    private final Clock clock;
    private final TurnAwareChatMemoryStore turns;
    private final LastRecalls last;
    private final MemorySpans spans;

    MemoryRetrievalAugmentor(MemoryContentRetriever retriever, AppDocuments documents, MemoryContentInjector injector,
                             Clock clock, TurnAwareChatMemoryStore turns, LastRecalls last,
                             MemorySpans spans) {
        this.spans = spans;
        this.retriever = retriever;
        this.documents = documents;
        this.injector = injector;
        this.clock = clock;
        this.turns = turns;
        this.last = last;
    }

    @Override
    public AugmentationResult augment(AugmentationRequest request) {
        Objects.requireNonNull(request, "request");
        try (MemorySpans.Span span = spans.start("search_memory")) {
            try {
                return augment(request, span);
            } catch (RuntimeException | Error e) {
                span.failed(e);
                throw e;
            }
        }
    }

    private AugmentationResult augment(AugmentationRequest request, MemorySpans.Span span) {
        ChatMessage message = request.chatMessage();
        String text = message instanceof UserMessage u ? MessageText.of(u) : "";
        Query query = Query.from(text == null ? "" : text, request.metadata());
        Instant now = clock.instant();
        MemoryContentRetriever.Target target = retriever.target(query);
        RecallSpans.who(span, target.caller().agent(), target.session());
        RecallSpans.query(spans, span, query.text());
        // AiServices read the session's chat memory on this thread just before: that read's check
        // of the store is the turn's
        boolean checked = target.session() != null
                && turns.continuesCheckedRead(target.session(), request.metadata().chatMemory());
        List<Content> contents = retriever.retrieve(query, target, span, checked);
        if (!documents.isEmpty()) {
            contents = AppDocuments.merge(contents, documents.retrieve(query, now));
        }
        MemoryContentInjector.Injection injection = injector.injectAndReport(contents, message);
        RecallSpans.found(span, contents);
        span.set(RecallSpans.FRAMED, injection.used().size()).set(RecallSpans.CUT, injection.cut().size());
        if (target.session() != null) {
            turns.begin(target.session(), message, injection.message());
            String sent = injection.message() instanceof UserMessage sentMessage ? MessageText.of(sentMessage) : query.text();
            last.put(new Recall(target.session(), query.text(), injection.used(), injection.cut(),
                    injection.cutReasons(), now, sent, injection.blockText(),
                    injection.blockTokens()));
        }
        return new AugmentationResult(injection.message(), injection.used());
    }
}
