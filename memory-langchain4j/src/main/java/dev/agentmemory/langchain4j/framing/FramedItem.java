package dev.agentmemory.langchain4j.framing;

import static java.util.Objects.requireNonNull;

import dev.agentmemory.core.MemoryRecord.Trust;
import java.time.Instant;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One remembered item as it is shown to the model: its text and where it came from. Every field
 * is rendered inside the data block and only there; any string is allowed in any field.
 *
 * @param id     the item's identifier (e.g. memory key and version), for citing it later
 * @param text   the remembered content, verbatim
 * @param kind   e.g. {@code preference}, {@code task-fact}, {@code observation}
 * @param source e.g. {@code user-message}, {@code tool:orders}, {@code document}
 * @param trust  whether the source is trusted (user-stated, system) or not (tools, documents, model
 *               inferences); rendered as {@code trusted} or {@code untrusted}
 * @param date   when the item was observed
 * @param status {@code current}, {@code conflict}, {@code needs-reverification}, {@code past},
 *               {@code superseded}, {@code archived}, {@code upcoming} or {@code no-longer-valid} for
 *               memory items ({@link dev.agentmemory.core.StatusRule.ItemStatus}; see the README)
 * @param extra  further attributes to show, in insertion order; memory items carry
 *               {@value #LAYER} and {@value #SCOPE} always, {@value #TASK} and {@value #TASK_STATUS}
 *               when they are (or state) task state, {@value #SUPERSEDED_BY} when superseded
 */
public record FramedItem(String id, String text, String kind, String source, Trust trust, Instant date,
                         String status, Map<String, String> extra) {

    /**
     * Attribute naming the layer an item came from: {@code session-state}, {@code task-state},
     * {@code persistent}, {@code episodic}, {@code summary}, or {@code document} for contents of
     * other retrievers.
     */
    public static final String LAYER = "layer";
    /** Attribute naming the scope, e.g. {@code acme/alice/task/s1/exchange-1}. */
    public static final String SCOPE = "scope";
    /** Attribute naming the task of task state (or of the state an item states). */
    public static final String TASK = "task";
    /** Attribute with the status of {@value #TASK}: {@code active}, {@code suspended} or {@code ended}. */
    public static final String TASK_STATUS = "task-status";
    /** Attribute naming what replaced a superseded item: {@code key@vN}, comma-separated. */
    public static final String SUPERSEDED_BY = "superseded-by";

    public FramedItem {
        requireNonNull(id, "id");
        requireNonNull(text, "text");
        requireNonNull(kind, "kind");
        requireNonNull(source, "source");
        requireNonNull(trust, "trust");
        requireNonNull(date, "date");
        requireNonNull(status, "status");
        requireNonNull(extra, "extra");
        LinkedHashMap<String, String> copy = new LinkedHashMap<>();
        extra.forEach((k, v) -> copy.put(requireNonNull(k, "extra key"), requireNonNull(v, "extra value of " + k)));
        extra = Collections.unmodifiableMap(copy);
    }

    /** An item with no extra attributes. */
    public FramedItem(String id, String text, String kind, String source, Trust trust, Instant date, String status) {
        this(id, text, kind, source, trust, date, status, Map.of());
    }
}
