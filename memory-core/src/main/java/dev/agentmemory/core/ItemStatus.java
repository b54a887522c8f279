package dev.agentmemory.core;

import java.util.Locale;

/**
 * What an item the model may be shown is at the time of a read, as {@link StatusRule} decides it
 * (the README's table "How a read labels an item" gives the precedence). The constants are listed
 * from the strongest to the weakest: when an item states several records (a message, a summary),
 * the strongest status among them is the item's.
 */
public enum ItemStatus {
    /** States a version replaced by a newer one that applies now, or refuted. */
    SUPERSEDED,
    /** State of a task that ended (or a record the collector archived): history only. */
    ARCHIVED,
    /** A version whose validity window has ended and that nothing newer replaced. */
    NO_LONGER_VALID,
    /** The version that applies now, past its re-verify deadline: check before relying on it. */
    NEEDS_REVERIFICATION,
    /** A version whose validity window has not begun yet ("not yet valid"). */
    UPCOMING,
    /** Disagrees with the current version and was not allowed to replace it. */
    CONFLICT,
    /** State of a task put aside (suspended), or a past message stating what holds now. */
    PAST,
    /** The version that applies now. */
    CURRENT;

    /** The label framed for the model: lower case, words joined by {@code -} ({@code needs-reverification}). */
    public String label() {
        return name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    /** Whether this status wins over {@code other} when an item states both. */
    public boolean strongerThan(ItemStatus other) {
        return ordinal() < other.ordinal();
    }
}
