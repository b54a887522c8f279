package dev.agentmemory.langchain4j.oracle;

/**
 * One step of a lifecycle, as an intent resolved against the engine when it runs (so that any
 * subsequence of a lifecycle is still a valid lifecycle, which keeps shrinking meaningful).
 *
 * @param kind    what happens
 * @param user    0 or 1 (alice, bob)
 * @param session 0 or 1 (s1, s2)
 * @param choice  picks the value, the variant and whether the model quotes the user
 */
record Step(Kind kind, int user, int session, int choice) {

    enum Kind {
        /** The user states a language preference; the model remembers it (quoting, mostly). */
        PREFERENCE,
        /** The user states where they live (a fact with a one-day re-verify deadline). */
        FACT,
        /** The model starts a new task. */
        START_TASK,
        /** The user picks a color; the model sets it in the active task (else the session). */
        TASK_STATE,
        SUSPEND_TASK,
        RESUME_TASK,
        END_TASK,
        FORGET_PREFERENCE,
        FORGET_FACT,
        FORGET_TASK_STATE,
        /** The user asks what is remembered; the model restates what its memory block shows. */
        ASK,
        /** The model sends tool arguments that are not JSON. */
        MALFORMED_TOOL_CALL,
        /** The model calls a tool that does not exist. */
        UNKNOWN_TOOL,
        /** The model throws (first call, or after a harmless tool call). */
        MODEL_FAILS,
        /** The model echoes its framed block (or its marker lines) in a reply or in tool arguments. */
        ECHO_FRAME,
        /** Close the memory and build a new one on the same H2 file (an ASK on in-memory lifecycles). */
        RESTART,
        /** Two days pass: facts pass their re-verify deadline. */
        TIME_PASSES
    }

    @Override
    public String toString() {
        return kind + "(" + Vocabulary.USERS[user] + "/" + Vocabulary.SESSIONS[session] + ", " + choice + ")";
    }
}
