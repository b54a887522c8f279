package dev.agentmemory.core.store.jdbc;

/**
 * When an append to an embedded H2 file is forced to the disk. Every acknowledged append is
 * written to the operating system before it returns, so a killed process never loses it; the
 * choice is about power loss, which only an fsync protects against.
 */
public enum Durability {

    /** Every append is fsynced before it returns (about 0.4 to 1 ms each on a local SSD, more under load). */
    SYNC_EVERY_APPEND,

    /**
     * Appends that hold an action-ledger step, a forget or a verification are fsynced before they
     * return: losing those to a power cut could repeat a remote action or bring back forgotten
     * data. Other appends (messages, ordinary writes) are fsynced by a background flush at most
     * one second later, so a power cut loses at most the last second of them. The default.
     */
    SYNC_CRITICAL
}
