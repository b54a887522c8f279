package dev.agentmemory.core.engine;

import dev.agentmemory.core.AmbiguousAliasException;
import dev.agentmemory.core.Caller;
import dev.agentmemory.core.MemoryKey;
import java.util.Optional;

/**
 * Entities and the names a user calls them by, from {@link MemoryEngine#aliases()}. An entity is
 * {@code type:id}; an alias is any text (case and spacing ignored). Two entities are never
 * merged silently: an alias naming both is ambiguous.
 */
public interface Aliases {

    /** Registers {@code alias} (case and spacing ignored) for {@code entity} ({@code type:id}). */
    void register(Caller caller, String entity, String alias);

    /**
     * The entity an alias names: empty when unknown; {@link AmbiguousAliasException} when it
     * names more than one. An entity id resolves to itself.
     */
    Optional<String> resolve(Caller caller, String alias);

    /**
     * The key {@code entity.subPath} for the entity an alias names; {@link IllegalArgumentException}
     * when the alias is unknown, {@link AmbiguousAliasException} when it is ambiguous.
     */
    MemoryKey keyFor(Caller caller, String alias, String subPath);
}
