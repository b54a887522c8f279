package dev.agentmemory.core;

import java.util.List;

/** An alias names more than one entity; the engine reports it instead of guessing. */
public class AmbiguousAliasException extends MemoryException {
    private final List<String> entities;

    public AmbiguousAliasException(String alias, List<String> entities) {
        super("alias \"" + alias + "\" is ambiguous: it names " + entities);
        this.entities = List.copyOf(entities);
    }

    /** The entities the alias names. */
    public List<String> entities() {
        return entities;
    }
}
