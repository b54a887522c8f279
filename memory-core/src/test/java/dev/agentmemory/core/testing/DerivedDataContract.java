package dev.agentmemory.core.testing;

import dev.agentmemory.core.Caller;
import dev.agentmemory.core.ForgetMode;
import dev.agentmemory.core.ForgetTarget;
import dev.agentmemory.core.MemoryRecord.Kind;
import dev.agentmemory.core.engine.MemoryEngine;
import dev.agentmemory.core.engine.MemoryEngine.Messages;
import dev.agentmemory.core.MemoryKey;
import dev.agentmemory.core.Proposal;
import dev.agentmemory.core.Scope;
import dev.agentmemory.core.event.StoredMessage;
import dev.agentmemory.core.spi.DerivedData;
import dev.agentmemory.core.spi.EventStore;
import dev.agentmemory.core.store.InMemoryEventStore;
import dev.agentmemory.testing.TestClock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What every {@link DerivedData} must do: after a forget, nothing of what was forgotten is left in
 * it, and what was not forgotten stays. A test of derived data (an embedding index, summaries, a
 * cache) extends this class (JUnit 5) and implements {@link #attach}: wire the derived data to the
 * engine as it is wired in production (as a listener, fed by a writer, ...) and
 * {@linkplain MemoryEngine#register register} it, then say what it still holds. For example:
 *
 * <pre>{@code
 * class MyIndexForgetsTest extends DerivedDataContract {
 *     @Override protected Attached attach(MemoryEngine engine) {
 *         MyIndex index = MyIndex.feedingFrom(engine);   // registers itself with engine.register
 *         return (caller, probe) -> index.textsFor(caller, probe);
 *     }
 * }
 * }</pre>
 *
 * <p>The contract writes records and chat messages through the engine's public API, checks that
 * the derived data holds them (a control, so that an implementation holding nothing cannot pass),
 * forgets them (a key, a whole user, messages; soft and hard) and checks that no text it still
 * holds contains a forgotten value, before and after {@link MemoryEngine#compact()}. The store is
 * in memory unless {@link #newStore()} is overridden.
 */
public abstract class DerivedDataContract {

    /** Derived data under test, attached to an engine. */
    @FunctionalInterface
    public interface Attached extends AutoCloseable {

        /**
         * Every text the derived data still holds for {@code caller} that a search for
         * {@code probe} can reach, read from the derived data itself (not filtered by the
         * engine's read path), after any asynchronous work it queued has finished.
         */
        List<String> texts(Caller caller, String probe);

        /** Releases what {@link #attach} opened; nothing by default. */
        @Override
        default void close() {
        }
    }

    protected static final Caller ALICE = Caller.of("shop", "alice");
    protected static final Caller BOB = Caller.of("shop", "bob");

    private static final String HOME = "Calle Mayor 12, Zaragoza";
    private static final String LANGUAGE = "Esperanto and Catalan";
    private static final String BOB_HOME = "Rua Augusta 40, Lisboa";
    private static final String CARD = "card number 4111-2222-3333-4444";

    protected final TestClock clock = TestClock.start();
    protected MemoryEngine engine;
    private Attached attached;

    /**
     * Wires the derived data under test to {@code engine} (including
     * {@link MemoryEngine#register(DerivedData)}) and returns a view of what it holds.
     */
    protected abstract Attached attach(MemoryEngine engine);

    /** The store of the engine of each test; a fresh in-memory store by default. */
    protected EventStore newStore() {
        return new InMemoryEventStore();
    }

    @BeforeEach
    void openEngine() {
        engine = MemoryEngine.builder().store(newStore()).clock(clock).build();
        attached = attach(engine);
    }

    @AfterEach
    void closeEngine() {
        try {
            attached.close();
        } finally {
            engine.close();
        }
    }

    private void remember(Caller caller, String key, String value) {
        Scope scope = caller.persistent();
        engine.write(caller, Proposal.set(scope, key, value).kind(Kind.PREFERENCE).build());
    }

    private static StoredMessage userMessage(long index, String text) {
        return new StoredMessage(index, index, "USER", "{\"text\":\"" + text + "\"}", text);
    }

    private List<String> holding(Caller caller, String value) {
        return attached.texts(caller, value).stream().filter(t -> t.contains(value)).toList();
    }

    @Test
    void should_hold_nothing_of_a_forgotten_key_and_keep_the_other_keys() {
        // given
        remember(ALICE, "home", HOME);
        remember(ALICE, "language", LANGUAGE);
        assertThat(holding(ALICE, HOME)).as("control: the derived data holds the value before the forget").isNotEmpty();

        // when
        engine.forget(ALICE, ForgetTarget.key(ALICE.persistent(), MemoryKey.of("home")), ForgetMode.SOFT);

        // then
        assertThat(holding(ALICE, HOME)).as("texts stating a forgotten value").isEmpty();
        assertThat(holding(ALICE, LANGUAGE)).as("a value that was not forgotten").isNotEmpty();
    }

    @Test
    void should_hold_nothing_of_a_hard_forgotten_user_before_and_after_compaction_and_keep_the_others() {
        // given
        remember(ALICE, "home", HOME);
        remember(ALICE, "language", LANGUAGE);
        remember(BOB, "home", BOB_HOME);
        assertThat(holding(ALICE, LANGUAGE)).as("control").isNotEmpty();

        // when
        engine.forget(ALICE, ForgetTarget.user(), ForgetMode.HARD);

        // then
        assertThat(holding(ALICE, HOME)).isEmpty();
        assertThat(holding(ALICE, LANGUAGE)).isEmpty();
        engine.admin().compact();
        assertThat(holding(ALICE, HOME)).as("after compact").isEmpty();
        assertThat(holding(ALICE, LANGUAGE)).as("after compact").isEmpty();
        assertThat(holding(BOB, BOB_HOME)).as("another user of the tenant").isNotEmpty();
    }

    @Test
    void should_hold_nothing_of_forgotten_messages() {
        // given
        engine.messages().change(ALICE, "s1", w -> new Messages.WindowChange(List.of(), List.of(
                userMessage(0, "my " + CARD + " is the one to charge"),
                userMessage(1, "I speak " + LANGUAGE))));
        assertThat(holding(ALICE, CARD)).as("control: the derived data holds the message").isNotEmpty();

        // when
        engine.forget(ALICE, ForgetTarget.messages("s1", List.of(0L)), ForgetMode.HARD);

        // then
        assertThat(holding(ALICE, CARD)).isEmpty();
        assertThat(holding(ALICE, LANGUAGE)).as("a message that was not forgotten").isNotEmpty();
    }
}
