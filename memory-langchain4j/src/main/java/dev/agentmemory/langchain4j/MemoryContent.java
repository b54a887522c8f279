package dev.agentmemory.langchain4j;

/**
 * The metadata keys every {@link dev.langchain4j.rag.content.Content} returned by
 * {@link AgentMemory#contentRetriever()} carries in its text segment's metadata. Dates are
 * ISO-8601 instants; absent values are left out.
 */
public final class MemoryContent {

    /** Which layer it came from: {@code session-state}, {@code task-state}, {@code persistent} or {@code episodic}. */
    public static final String LAYER = "memory.layer";
    /** The record id, or for a past message {@code message:<session>#<index>}. */
    public static final String ID = "memory.id";
    /** The memory key (records only). */
    public static final String KEY = "memory.key";
    /** The version of the key (records only). */
    public static final String VERSION = "memory.version";
    /** The scope, e.g. {@code acme/alice/session/s1}. */
    public static final String SCOPE = "memory.scope";
    /** The kind, e.g. {@code preference}; {@code message} for past messages. */
    public static final String KIND = "memory.kind";
    /** The source, e.g. {@code user}, {@code tool}; for messages the role. */
    public static final String SOURCE = "memory.source";
    /** {@code trusted} or {@code untrusted}. */
    public static final String TRUST = "memory.trust";
    /** {@code current}, {@code conflict} or {@code needs-reverification}. */
    public static final String STATUS = "memory.status";
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
