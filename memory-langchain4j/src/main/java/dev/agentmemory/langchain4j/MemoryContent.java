package dev.agentmemory.langchain4j;

/**
 * The metadata keys every {@link dev.langchain4j.rag.content.Content} returned by
 * {@link AgentMemory#contentRetriever()} carries in its text segment's metadata. Dates are
 * ISO-8601 instants; absent values are left out.
 */
public final class MemoryContent {

    /**
     * Which layer it came from: {@code session-state}, {@code task-state}, {@code persistent},
     * {@code episodic} or {@code summary} (a summary of earlier messages, whether found through
     * the session's state or by similarity), {@code tasks} (the user's open tasks of other
     * conversations), or {@code document} (a content of one of the application's retrievers given
     * to {@link AgentMemory#retrievalAugmentor(dev.langchain4j.rag.content.retriever.ContentRetriever...)};
     * its source is {@code retriever-N}, its trust {@code untrusted}, its status {@code retrieved},
     * its id {@code document:} and the embedding id). Always present.
     */
    public static final String LAYER = "memory.layer";
    /** The record id, or for a past message {@code message:<session>#<index>}. */
    public static final String ID = "memory.id";
    /** The memory key (records only). */
    public static final String KEY = "memory.key";
    /** The version of the key (records only). */
    public static final String VERSION = "memory.version";
    /**
     * The scope, e.g. {@code acme/alice/session/s1}; for a past message its session's scope.
     * Present on every memory item; absent on {@code document} contents.
     */
    public static final String SCOPE = "memory.scope";
    /** The kind, e.g. {@code preference}; {@code message} for past messages. */
    public static final String KIND = "memory.kind";
    /** The source, e.g. {@code user}, {@code tool}; for messages the role. */
    public static final String SOURCE = "memory.source";
    /** {@code trusted} or {@code untrusted}. */
    public static final String TRUST = "memory.trust";
    /**
     * What the item is worth now, judged against the engine when it was retrieved:
     * <ul>
     *   <li>{@code current}: what holds now;</li>
     *   <li>{@code conflict}: disagrees with the current value and was not allowed to replace it
     *       (for a past message: states such a conflict candidate);</li>
     *   <li>{@code needs-reverification}: was current, passed its re-verify deadline (or, for a
     *       summary or a past message, a record it was built from or states did);</li>
     *   <li>{@code past}: an earlier message, history only;</li>
     *   <li>{@code superseded}: states a value (or, for a summary, was built from one) that was
     *       replaced or refuted since; {@link #SUPERSEDED_BY} names what holds now;</li>
     *   <li>{@code archived}: state of an ended task, or a message or summary stating it: history only.</li>
     * </ul>
     */
    public static final String STATUS = "memory.status";
    /**
     * For {@code superseded} items: the current version(s) of the replaced key(s), as
     * {@code key@vN}, comma-separated; absent when nothing replaced it (a refuted value).
     */
    public static final String SUPERSEDED_BY = "memory.superseded-by";
    /**
     * For summaries: the messages it covers and when it was made, e.g.
     * {@code messages 8-11 of session s1, summarized 2024-10-15T10:00:00Z}.
     */
    public static final String SPAN = "memory.span";
    /** The task of task state, or of the state an episodic item or summary states. */
    public static final String TASK = "memory.task";
    /** The status of {@link #TASK}: {@code active}, {@code suspended} or {@code ended}. */
    public static final String TASK_STATUS = "memory.task-status";
    /** When it was observed (or said). */
    public static final String OBSERVED_AT = "memory.observed-at";
    /** When the engine recorded it. */
    public static final String RECORDED_AT = "memory.recorded-at";
    /** Start of the validity interval. */
    public static final String VALID_FROM = "memory.valid-from";
    /** End of the validity interval. */
    public static final String VALID_TO = "memory.valid-to";
    /** The re-verify deadline. */
    public static final String EXPIRES_AT = "memory.expires-at";
    /** The relevance score the item was selected with (layer-specific, higher is better). */
    public static final String SCORE = "memory.score";
    /** Why it was selected, in words. */
    public static final String WHY = "memory.why";

    private MemoryContent() {
    }
}
