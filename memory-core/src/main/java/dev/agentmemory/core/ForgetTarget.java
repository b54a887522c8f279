package dev.agentmemory.core;

import dev.agentmemory.core.internal.Ids;
import java.util.List;
import java.util.Objects;

/** What to forget. */
public sealed interface ForgetTarget {

    /** Every version of one key in one scope. */
    static ForgetTarget key(Scope scope, MemoryKey key) {
        return new Key(scope, key);
    }

    /** Everything in a scope; for a session scope also its tasks and messages. */
    static ForgetTarget scope(Scope scope) {
        return new WholeScope(scope);
    }

    /** Everything the caller's user has. */
    static ForgetTarget user() {
        return new User();
    }

    /** Some messages of a session, by index. */
    static ForgetTarget messages(String session, List<Long> indices) {
        return new Messages(session, indices);
    }

    /** One key. */
    record Key(Scope scope, MemoryKey key) implements ForgetTarget {
        public Key {
            Objects.requireNonNull(scope, "scope");
            Objects.requireNonNull(key, "key");
        }
    }

    /** A whole scope. */
    record WholeScope(Scope scope) implements ForgetTarget {
        public WholeScope {
            Objects.requireNonNull(scope, "scope");
        }
    }

    /** The whole user. */
    record User() implements ForgetTarget {
    }

    /** Messages of a session. */
    record Messages(String session, List<Long> indices) implements ForgetTarget {
        public Messages {
            Ids.check(session, "session");
            Objects.requireNonNull(indices, "indices");
            indices.forEach(i -> Objects.requireNonNull(i, "message index"));
            indices = List.copyOf(indices);
        }
    }
}
