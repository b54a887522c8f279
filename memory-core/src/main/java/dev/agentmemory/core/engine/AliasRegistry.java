package dev.agentmemory.core.engine;

import dev.agentmemory.core.MemoryException;
import dev.agentmemory.core.Caller;
import dev.agentmemory.core.MemoryKey;
import dev.agentmemory.core.internal.Ids;
import dev.agentmemory.core.event.Change;

import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import dev.agentmemory.core.engine.MemoryEngine.Aliases;

/** Entities and their aliases ({@link Aliases}). */
final class AliasRegistry implements Aliases {

    private final PartitionRuntime runtime;

    AliasRegistry(PartitionRuntime runtime) {
        this.runtime = runtime;
    }

    @Override
    @SuppressWarnings("NullAway") // the write's result is a Void, which is always null, and nobody reads it
    public void register(Caller caller, String entity, String alias) {
        String e = checkEntity(entity);
        String a = normalizeAlias(alias);
        runtime.write(caller, (s, tx) -> {
            if (!s.entitiesFor(a).contains(e)) {
                tx.add(s, new Change.AliasRegistered(a, e));
            }
            return null;
        });
    }

    @Override
    public Optional<String> resolve(Caller caller, String alias) {
        String a = normalizeAlias(alias);
        return runtime.read(caller, s -> {
            Set<String> entities = s.entitiesFor(a);
            if (entities.size() > 1) {
                throw new MemoryException.AmbiguousAlias(alias, List.copyOf(entities));
            }
            if (entities.isEmpty()) {
                return isEntity(alias.trim()) ? Optional.of(alias.trim()) : Optional.<String>empty();
            }
            return Optional.of(entities.iterator().next());
        });
    }

    @Override
    public MemoryKey keyFor(Caller caller, String alias, String subPath) {
        String entity = resolve(caller, alias)
                .orElseThrow(() -> new IllegalArgumentException("unknown alias: " + Ids.quote(alias)));
        return MemoryKey.of(entity + "." + subPath);
    }

    private static boolean isEntity(String s) {
        return s.matches("[A-Za-z0-9_-]{1,30}:[A-Za-z0-9_-]{1,33}");
    }

    private static String checkEntity(String entity) {
        Objects.requireNonNull(entity, "entity");
        if (!isEntity(entity)) {
            throw new IllegalArgumentException("entity must look like type:id (letters, digits, _ and -): " + Ids.quote(entity));
        }
        return entity;
    }

    private static String normalizeAlias(String alias) {
        Objects.requireNonNull(alias, "alias");
        String a = alias.trim().replaceAll("\\s+", " ").toLowerCase(Locale.ROOT);
        if (a.isEmpty() || a.length() > 200) {
            throw new IllegalArgumentException("alias must be 1-200 characters: " + Ids.quote(alias));
        }
        return a;
    }
}
