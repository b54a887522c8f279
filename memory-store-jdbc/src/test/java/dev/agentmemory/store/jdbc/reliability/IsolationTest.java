package dev.agentmemory.store.jdbc.reliability;

import dev.agentmemory.core.MemoryRecord.Access;
import dev.agentmemory.core.MemoryException;
import dev.agentmemory.core.Caller;
import dev.agentmemory.core.ScopeView.KeyState;
import dev.agentmemory.core.MemoryRecord.Kind;
import dev.agentmemory.core.Scope.Layer;
import dev.agentmemory.core.engine.MemoryEngine;
import dev.agentmemory.core.MemoryKey;
import dev.agentmemory.core.MemoryRecord;
import dev.agentmemory.core.MemoryValue;
import dev.agentmemory.core.Proposal.Outcome;
import dev.agentmemory.core.Proposal;
import dev.agentmemory.core.ReadOptions;
import dev.agentmemory.core.Scope;
import dev.agentmemory.core.ScopeView;
import dev.agentmemory.core.spi.EventStore;
import dev.agentmemory.store.jdbc.JdbcStores;
import org.junit.jupiter.api.Test;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Issue 6, test 4: randomised multi-tenant, multi-user, multi-agent runs with access levels.
 * Every record a read returns is checked: it belongs to the reader's tenant and user (by its
 * scope and by the origin written into its value), a private record only reaches its writer,
 * a protected one only its owner or writer. A model of the expected current value per key also
 * checks the other direction: what a reader may see is what it gets. Reads naming another
 * tenant's or user's scope must be denied.
 */
class IsolationTest {

    private static final String[] TENANTS = {"acme", "globex"};
    private static final String[] USERS = {"u1", "u2", "u3"};
    private static final String[] AGENTS = {"assistant", "billing", "travel"};
    private static final String[] KEYS = {"profile.name", "order.color", "trip.city", "note", "card.last4"};
    private static final String[] SESSIONS = {"s1", "s2"};

    private final Random random = new Random(6_2024L);
    private final Map<String, MemoryRecord> latest = new HashMap<>();
    private long readCalls;
    private long recordsChecked;
    private long denials;
    private long writes;
    private long rejectedForeignWrites;

    @Test
    void should_never_return_another_tenants_users_or_agents_record_when_many_share_one_store() {
        runOn(JdbcStores.h2InMemory("isolation"));
    }

    /** The test on {@code store} (empty); closes it. */
    void runOn(EventStore store) {
        // given
        try (MemoryEngine engine = MemoryEngine.builder().store(store)
                .clock(Clock.fixed(Instant.parse("2024-10-15T10:00:00Z"), ZoneOffset.UTC)).build()) {
            // when: random writes and reads interleaved
            for (int round = 0; round < 1500; round++) {
                if (random.nextInt(3) == 0) {
                    write(engine);
                } else {
                    read(engine);
                }
            }
            // then: every (caller, scope, key) read once more, exhaustively
            for (String t : TENANTS) {
                for (String u : USERS) {
                    for (String a : AGENTS) {
                        Caller c = new Caller(t, u, a);
                        for (Scope scope : scopes(c)) {
                            checkView(c, scope, engine.view(c, scope));
                            for (String k : KEYS) {
                                checkCurrent(c, scope, k, engine.current(c, scope, MemoryKey.of(k)));
                            }
                        }
                    }
                }
            }
        }
        System.out.printf("ISOLATION: writes=%d (refused over another agent's record: %d), read calls=%d, "
                + "records checked=%d, foreign-scope calls denied=%d%n", writes, rejectedForeignWrites, readCalls,
                recordsChecked, denials);
        assertThat(recordsChecked).isGreaterThan(1000);
        assertThat(denials).isGreaterThan(100);
    }

    private Caller randomCaller() {
        return new Caller(pick(TENANTS), pick(USERS), pick(AGENTS));
    }

    private List<Scope> scopes(Caller c) {
        List<Scope> out = new ArrayList<>();
        out.add(c.persistent());
        for (String s : SESSIONS) {
            out.add(c.session(s));
        }
        return out;
    }

    private Scope randomScope(Caller c) {
        return random.nextBoolean() ? c.persistent() : c.session(pick(SESSIONS));
    }

    private void write(MemoryEngine engine) {
        Caller c = randomCaller();
        Scope scope = randomScope(c);
        String key = pick(KEYS);
        Access access = Access.values()[random.nextInt(3)];
        String owner = pick(AGENTS);
        String origin = c.tenant() + "|" + c.user() + "|" + c.agent() + "|" + owner + "|" + access + "|" + writes;
        Proposal p = Proposal.set(scope, MemoryKey.of(key), MemoryValue.of(origin))
                .kind(Kind.DECISION).access(access).owner(owner).build();
        Outcome o = engine.propose(c, p);
        writes++;
        String slot = slot(c, scope, key);
        MemoryRecord before = latest.get(slot);
        if (before != null && !before.readableBy(c.agent())) {
            // a write over a value the agent cannot read is refused and changes nothing
            assertThat(o.result()).as("write over another agent's %s record", before.access()).isEqualTo(Outcome.Result.REJECTED);
            assertThat(o.reason()).isEqualTo("the current value of " + key + " belongs to another agent");
            rejectedForeignWrites++;
            return;
        }
        assertThat(o.result()).as("write %s", origin).isEqualTo(Outcome.Result.APPLIED);
        latest.put(slot, o.record());
    }

    private void read(MemoryEngine engine) {
        Caller c = randomCaller();
        Scope own = randomScope(c);
        String key = pick(KEYS);
        switch (random.nextInt(8)) {
            case 0 -> checkCurrent(c, own, key, engine.current(c, own, MemoryKey.of(key)));
            case 1 -> {
                KeyState ks = engine.keyState(c, own, MemoryKey.of(key), ReadOptions.withArchived());
                checkCurrent(c, own, key, ks.currentRecord());
                ks.conflicts().forEach(r -> check(c, r));
            }
            case 2 -> checkView(c, own, engine.view(c, own));
            case 3 -> {
                readCalls++;
                engine.history(c, own, MemoryKey.of(key)).forEach(r -> check(c, r));
            }
            case 4 -> {
                readCalls++;
                for (Layer layer : List.of(Layer.PERSISTENT, Layer.SESSION)) {
                    for (KeyState ks : engine.servable(c, layer)) {
                        Optional.ofNullable(ks.current()).ifPresent(r -> check(c, r));
                        ks.conflicts().forEach(r -> check(c, r));
                    }
                }
            }
            case 5 -> {
                readCalls++;
                engine.applicableAt(c, own, MemoryKey.of(key), Instant.parse("2024-10-15T10:00:00Z"))
                        .ifPresent(r -> check(c, r));
                ScopeView v = engine.asOfSequence(c, own, Long.MAX_VALUE);
                v.keys().forEach(ks -> Optional.ofNullable(ks.current()).ifPresent(r -> check(c, r)));
                engine.asOf(c, own, Instant.parse("2024-10-16T00:00:00Z")).keys()
                        .forEach(ks -> Optional.ofNullable(ks.current()).ifPresent(r -> check(c, r)));
            }
            case 6 -> {
                readCalls++;
                engine.admin().diff(c, c.persistent(), c.session(pick(SESSIONS)));
                // diff only compares the caller's own views; its inputs were checked above
            }
            default -> {
                // another tenant's or user's scope: must be denied, for every read and write entry
                Caller victim = randomCaller();
                if (victim.tenant().equals(c.tenant()) && victim.user().equals(c.user())) {
                    return;
                }
                Scope foreign = randomScope(victim);
                MemoryKey k = MemoryKey.of(key);
                assertThatThrownBy(() -> engine.current(c, foreign, k)).isInstanceOf(MemoryException.AccessDenied.class);
                assertThatThrownBy(() -> engine.view(c, foreign)).isInstanceOf(MemoryException.AccessDenied.class);
                assertThatThrownBy(() -> engine.history(c, foreign, k)).isInstanceOf(MemoryException.AccessDenied.class);
                assertThatThrownBy(() -> engine.applicableAt(c, foreign, k, Instant.EPOCH)).isInstanceOf(MemoryException.AccessDenied.class);
                assertThatThrownBy(() -> engine.asOf(c, foreign, Instant.MAX)).isInstanceOf(MemoryException.AccessDenied.class);
                assertThatThrownBy(() -> engine.asOfSequence(c, foreign, 1)).isInstanceOf(MemoryException.AccessDenied.class);
                assertThatThrownBy(() -> engine.admin().diff(c, c.persistent(), foreign)).isInstanceOf(MemoryException.AccessDenied.class);
                assertThatThrownBy(() -> engine.propose(c, Proposal.set(foreign, k, MemoryValue.of("x"))
                        .kind(Kind.DECISION).build())).isInstanceOf(MemoryException.AccessDenied.class);
                assertThatThrownBy(() -> engine.forget(c, dev.agentmemory.core.ForgetTarget.key(foreign, k),
                        dev.agentmemory.core.ForgetMode.HARD)).isInstanceOf(MemoryException.AccessDenied.class);
                denials += 9;
            }
        }
    }

    private void checkView(Caller c, Scope scope, ScopeView view) {
        readCalls++;
        assertThat(view.scope()).isEqualTo(scope);
        for (KeyState ks : view.keys()) {
            Optional.ofNullable(ks.current()).ifPresent(r -> check(c, r));
            ks.conflicts().forEach(r -> check(c, r));
        }
        // exactly the keys whose latest value the reader may see
        for (String k : KEYS) {
            MemoryRecord expected = latest.get(slot(c, scope, k));
            Optional<MemoryRecord> got = view.key(MemoryKey.of(k)).flatMap(KeyState::currentRecord);
            assertThat(got.map(MemoryRecord::id)).as("view of %s %s by %s", scope, k, c.agent())
                    .isEqualTo(Optional.ofNullable(expected).filter(r -> r.readableBy(c.agent())).map(MemoryRecord::id));
        }
    }

    private void checkCurrent(Caller c, Scope scope, String key, Optional<MemoryRecord> got) {
        readCalls++;
        got.ifPresent(r -> check(c, r));
        MemoryRecord expected = latest.get(slot(c, scope, key));
        assertThat(got.map(MemoryRecord::id)).as("current of %s %s by %s", scope, key, c.agent())
                .isEqualTo(Optional.ofNullable(expected).filter(r -> r.readableBy(c.agent())).map(MemoryRecord::id));
    }

    /** The isolation rules for one record returned to {@code reader}. */
    private void check(Caller reader, MemoryRecord r) {
        recordsChecked++;
        assertThat(r.scope().tenant()).as("tenant of a record read by %s", reader).isEqualTo(reader.tenant());
        assertThat(r.scope().user()).as("user of a record read by %s", reader).isEqualTo(reader.user());
        if (r.value() == null) {
            return;
        }
        String[] origin = r.value().text().split("\\|");
        assertThat(origin[0]).as("origin tenant of %s", r.value()).isEqualTo(reader.tenant());
        assertThat(origin[1]).as("origin user of %s", r.value()).isEqualTo(reader.user());
        String writer = origin[2];
        String owner = origin[3];
        Access access = Access.valueOf(origin[4]);
        assertThat(r.writerAgent()).isEqualTo(writer);
        assertThat(r.access()).isEqualTo(access);
        switch (access) {
            case PRIVATE -> assertThat(reader.agent()).as("private record of %s read by %s", writer, reader.agent())
                    .isEqualTo(writer);
            case PROTECTED -> assertThat(reader.agent()).as("protected record (owner %s, writer %s) read by %s",
                    owner, writer, reader.agent()).isIn(owner, writer);
            case PUBLIC -> {
            }
        }
    }

    private static String slot(Caller c, Scope scope, String key) {
        return Objects.hash(scope) + "|" + scope + "|" + key;
    }

    private <T> T pick(T[] items) {
        return items[random.nextInt(items.length)];
    }
}
