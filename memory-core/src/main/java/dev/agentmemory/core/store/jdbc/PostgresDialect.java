package dev.agentmemory.core.store.jdbc;

import java.util.List;

/** PostgreSQL: payloads are {@code TEXT} (unlimited), from schema 1 on. */
final class PostgresDialect implements SqlDialect {

    static final PostgresDialect INSTANCE = new PostgresDialect();

    private PostgresDialect() {
    }

    @Override
    public String largeTextType() {
        return "TEXT";
    }

    @Override
    public List<String> migratePayloadToLargeText() {
        return List.of();
    }
}
