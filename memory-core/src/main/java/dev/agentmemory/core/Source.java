package dev.agentmemory.core;

/** Who a record came from. */
public enum Source {
    /** Stated by the user in a message. Trusted by default. */
    USER,
    /** Returned by a tool or read from a document. Untrusted by default. */
    TOOL,
    /** Extracted or concluded by a model. Untrusted by default and a candidate until verified. */
    MODEL,
    /** Written by the application itself. Trusted by default. */
    SYSTEM;

    /** The trust a record from this source gets when the writer does not say. */
    public Trust defaultTrust() {
        return this == USER || this == SYSTEM ? Trust.TRUSTED : Trust.UNTRUSTED;
    }
}
