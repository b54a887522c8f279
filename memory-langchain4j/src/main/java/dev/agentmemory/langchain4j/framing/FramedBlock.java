package dev.agentmemory.langchain4j.framing;

import static java.util.Objects.requireNonNull;

import java.util.List;

/**
 * The result of {@link MemoryFramer#frame}: the block to put into the prompt and what went in.
 *
 * @param text         the rendered block; empty when no item was included (then nothing is framed)
 * @param nonce        the random token carried by the block's fence lines; empty when {@code text} is
 * @param included     the items rendered, in block order
 * @param cut          the items left out, in input order, with the reason
 * @param approxTokens the approximate token count of {@code text}, as the framer's estimator counts it
 */
public record FramedBlock(String text, String nonce, List<FramedItem> included, List<CutItem> cut, int approxTokens) {

    public FramedBlock {
        requireNonNull(text, "text");
        requireNonNull(nonce, "nonce");
        included = List.copyOf(included);
        cut = List.copyOf(cut);
        if (approxTokens < 0) {
            throw new IllegalArgumentException("approxTokens must be >= 0: " + approxTokens);
        }
    }

    /** Whether no item was included (the text is then empty). */
    public boolean isEmpty() {
        return included.isEmpty();
    }

    /** The number of characters of {@link #text()}. */
    public int chars() {
        return text.length();
    }
}
