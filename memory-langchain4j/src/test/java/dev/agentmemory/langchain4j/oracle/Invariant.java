package dev.agentmemory.langchain4j.oracle;

/** What the oracle checks in every request the model receives. */
enum Invariant {
    /** A value whose records were forgotten appears somewhere in the request. */
    FORGOTTEN("nothing forgotten appears anywhere in the request"),
    /** A framed item labelled current states a value that is superseded, expired, archived or suspended. */
    STALE_AS_CURRENT("nothing superseded, expired, archived or suspended is labelled current"),
    /** A framed item not labelled current states a stale value and does not say that it is stale. */
    STALE_UNMARKED("a framed past item stating a stale value says so"),
    /** A framed record item of a task does not name its task and the task's status. */
    TASK_ITEM_UNNAMED("each task item names its task and status"),
    /** A framed block outside the current user message, or more than one block. */
    FRAME_PLACEMENT("exactly one framed block, in the current (last) user message only"),
    /** No framed block on the first call of a turn although the user has current persistent memory. */
    FRAME_MISSING("the first call of a turn carries the user's current memory"),
    /** A tool call without a result for its id, or a result answering no call. */
    TOOL_PAIRING("every tool call answered, no orphan results"),
    /** A value or task id of the other user appears in the request. */
    OTHER_USER("the other user's values never appear"),
    /** The stored history of a session grows faster than the conversation (window re-appended). */
    HISTORY_GROWTH("stored history grows with the conversation only"),
    /** A turn failed although the model did nothing that should make it fail. */
    UNEXPECTED_FAILURE("a turn fails only when the model fails or sends a bad tool call without handlers");

    final String promise;

    Invariant(String promise) {
        this.promise = promise;
    }
}
