package dev.agentmemory.store.jdbc;

import java.sql.Connection;
import java.sql.SQLException;

/** What every write transaction of the store does when it fails. */
final class Transactions {

    private Transactions() {
    }

    /**
     * Rolls back after {@code cause}; a failing rollback (the connection broke) is added to it
     * rather than hiding it, and the server discards the uncommitted transaction anyway.
     */
    static void rollback(Connection c, Exception cause) {
        try {
            c.rollback();
        } catch (SQLException r) {
            cause.addSuppressed(r);
        }
    }
}
