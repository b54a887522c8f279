package dev.agentmemory.store.jdbc.engine;

import dev.agentmemory.core.spi.EventStore.ForwardingEventStore;
import dev.agentmemory.core.store.InMemoryEventStore;
import dev.agentmemory.store.jdbc.JdbcStores;
import dev.agentmemory.core.testing.EventStoreContract;
import dev.agentmemory.core.spi.EventStore;
import org.junit.jupiter.api.Test;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.Arrays;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** A forwarding store is a store (the contract), and passes on every call, the default ones included. */
class ForwardingEventStoreTest extends EventStoreContract {

    @Override
    protected EventStore newStore() {
        return new ForwardingEventStore(new InMemoryEventStore());
    }

    @Test
    void overrides_every_method_of_the_interface_so_no_default_hides_the_delegates_answer() {
        List<String> missing = Arrays.stream(EventStore.class.getMethods())
                .filter(m -> !Modifier.isStatic(m.getModifiers()))
                .filter(m -> !declares(m))
                .map(Method::getName)
                .toList();
        assertThat(missing).as("EventStore methods ForwardingEventStore does not pass on").isEmpty();
    }

    @Test
    void answers_the_optional_calls_as_its_delegate_does() {
        try (EventStore file = JdbcStores.h2InMemory("forwarding");
             ForwardingEventStore forwarding = new ForwardingEventStore(file)) {
            assertThat(forwarding.sharedWithOtherWriters()).isFalse();
            assertThat(forwarding).hasToString(file.toString());
        }
        assertThat(new ForwardingEventStore(new InMemoryEventStore()).sharedWithOtherWriters()).isTrue();
    }

    private static boolean declares(Method m) {
        try {
            ForwardingEventStore.class.getDeclaredMethod(m.getName(), m.getParameterTypes());
            return true;
        } catch (NoSuchMethodException e) {
            return false;
        }
    }
}
