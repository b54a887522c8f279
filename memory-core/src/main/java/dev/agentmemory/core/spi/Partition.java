package dev.agentmemory.core.spi;

import java.util.Objects;

/** One user's log: the unit of ordering, isolation and replay. */
public record Partition(String tenant, String user) {
    public Partition {
        Objects.requireNonNull(tenant, "tenant");
        Objects.requireNonNull(user, "user");
    }

    @Override
    public String toString() {
        return tenant + "/" + user;
    }
}
