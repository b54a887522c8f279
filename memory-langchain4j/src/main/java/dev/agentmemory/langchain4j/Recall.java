package dev.agentmemory.langchain4j;

import dev.langchain4j.rag.content.Content;

import java.time.Instant;
import java.util.List;
import java.util.Objects;

/**
 * What the memory put in front of the model for one turn: the answer to "which memories did
 * that answer use?". Each content carries the {@link MemoryContent} metadata.
 *
 * @param session    the session the turn belonged to
 * @param query      the user's text the recall was made for
 * @param used       the contents that went into the prompt, in block order
 * @param cut        the contents retrieved but left out by the block budget
 * @param cutReasons for each cut content (same index), which limit it hit
 * @param at         when the recall was made (the memory's clock)
 */
public record Recall(SessionRef session, String query, List<Content> used, List<Content> cut, List<String> cutReasons,
                     Instant at) {
    public Recall {
        Objects.requireNonNull(session, "session");
        Objects.requireNonNull(query, "query");
        Objects.requireNonNull(at, "at");
        used = List.copyOf(used);
        cut = List.copyOf(cut);
        cutReasons = List.copyOf(cutReasons);
        if (cutReasons.size() != cut.size()) {
            throw new IllegalArgumentException("cutReasons size " + cutReasons.size() + " != cut size " + cut.size());
        }
    }

    /** The memory ids ({@link MemoryContent#ID}) of the contents used, in block order. */
    public List<String> usedIds() {
        return used.stream().map(c -> c.textSegment().metadata().getString(MemoryContent.ID)).toList();
    }
}
