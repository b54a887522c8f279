package dev.agentmemory.langchain4j.framing;

import static java.util.Objects.requireNonNull;

/**
 * An item left out of a block, and why.
 *
 * @param item   the item as given
 * @param reason which limit it hit
 * @param detail a human-readable explanation with the numbers involved
 */
public record CutItem(FramedItem item, Reason reason, String detail) {

    /** Why an item was left out. */
    public enum Reason {
        /** Rendering it would exceed the character budget. */
        CHARACTER_BUDGET,
        /** Rendering it would exceed the approximate token budget. */
        TOKEN_BUDGET
    }

    public CutItem {
        requireNonNull(item, "item");
        requireNonNull(reason, "reason");
        requireNonNull(detail, "detail");
    }
}
