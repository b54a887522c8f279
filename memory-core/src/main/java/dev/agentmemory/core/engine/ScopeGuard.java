package dev.agentmemory.core.engine;

import dev.agentmemory.core.MemoryException;
import dev.agentmemory.core.Caller;
import dev.agentmemory.core.Scope;
import java.util.Objects;

/** The one check that a call touches only its caller's tenant and user. */
final class ScopeGuard {

    private ScopeGuard() {
    }

    /** Fails with {@link MemoryException.AccessDenied} unless {@code scope} is the caller's tenant and user. */
    static void check(Caller caller, Scope scope) {
        Objects.requireNonNull(caller, "caller");
        Objects.requireNonNull(scope, "scope");
        if (!scope.belongsTo(caller.tenant(), caller.user())) {
            throw new MemoryException.AccessDenied("caller " + caller.tenant() + "/" + caller.user()
                    + " cannot touch scope " + scope + " of another tenant or user");
        }
    }
}
