package dev.agentmemory.langchain4j;

import dev.langchain4j.rag.content.Content;

import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
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
 * @param sent       the text of the user message as the model received it: the user's text with
 *                   the framed block attached ({@code query} alone when nothing was framed)
 * @param block      the framed block alone, as attached to {@code sent}; empty when nothing was framed
 * @param blockTokens the block's size in approximate tokens, as the block budget counted them
 */
public record Recall(SessionRef session, String query, List<Content> used, List<Content> cut, List<String> cutReasons,
                     Instant at, String sent, String block, int blockTokens) {
    public Recall {
        Objects.requireNonNull(session, "session");
        Objects.requireNonNull(query, "query");
        Objects.requireNonNull(at, "at");
        Objects.requireNonNull(sent, "sent");
        Objects.requireNonNull(block, "block");
        if (blockTokens < 0) {
            throw new IllegalArgumentException("blockTokens must be >= 0: " + blockTokens);
        }
        used = List.copyOf(used);
        cut = List.copyOf(cut);
        cutReasons = List.copyOf(cutReasons);
        if (cutReasons.size() != cut.size()) {
            throw new IllegalArgumentException("cutReasons size " + cutReasons.size() + " != cut size " + cut.size());
        }
    }

    /**
     * Per layer ({@link MemoryContent#LAYER}), what the block budget cut and why: each entry is
     * the cut item's text (clipped to 80 characters) and the limit it hit. Layers with nothing cut
     * are absent; layers in the order their first cut item was retrieved.
     */
    public Map<String, List<String>> cutByLayer() {
        Map<String, List<String>> out = new LinkedHashMap<>();
        for (int i = 0; i < cut.size(); i++) {
            Content c = cut.get(i);
            String layer = c.textSegment().metadata().getString(MemoryContent.LAYER);
            String text = c.textSegment().text();
            String clipped = text.length() > 80 ? text.substring(0, 77) + "..." : text;
            out.computeIfAbsent(layer == null ? "document" : layer, k -> new ArrayList<>())
                    .add(clipped + ": " + cutReasons.get(i));
        }
        return out;
    }

    /**
     * The memory ids ({@link MemoryContent#ID}) of the contents used, in block order.
     *
     * @deprecated unused; read {@link MemoryContent#ID} from the metadata of each of {@link #used()}
     */
    @Deprecated
    public List<String> usedIds() {
        return used.stream().map(c -> c.textSegment().metadata().getString(MemoryContent.ID)).toList();
    }
}
