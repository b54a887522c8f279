package dev.agentmemory.store.jdbc.reliability;

import dev.agentmemory.core.internal.hooks.MessageRedactor;
import dev.agentmemory.core.internal.hooks.EventListener;
import dev.agentmemory.core.spi.DerivedData;
import dev.agentmemory.core.MemoryRecord.Access;
import dev.agentmemory.core.Caller;
import dev.agentmemory.core.ForgetMode;
import dev.agentmemory.core.ForgetTarget;
import dev.agentmemory.core.MemoryRecord.Kind;
import dev.agentmemory.core.Scope.Layer;
import dev.agentmemory.core.engine.MemoryEngine;
import dev.agentmemory.core.engine.MemoryEngine.Messages;
import dev.agentmemory.core.MemoryKey;
import dev.agentmemory.core.MemoryRecord;
import dev.agentmemory.core.MemoryValue;
import dev.agentmemory.core.Proposal;
import dev.agentmemory.core.ReadOptions;
import dev.agentmemory.core.Scope;
import dev.agentmemory.core.StatusRule;
import dev.agentmemory.core.MemoryRecord.Source;
import dev.agentmemory.core.event.StoredMessage;
import dev.agentmemory.core.ledger.ActionRecord.OperationId;
import dev.agentmemory.store.jdbc.JdbcStores;
import dev.agentmemory.store.jdbc.testing.HostileCalls;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.Parameter;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.BiConsumer;
import java.util.function.BiFunction;
import java.util.function.Function;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 6, test 3 (engine side): hostile input into every public entry of memory-core. Every
 * call must succeed or fail with a documented exception naming the problem, and none may
 * corrupt state: after each batch the audit of every user must pass (live state equals the
 * replay of the log as stored in H2) and a sentinel record written beforehand must be intact.
 * Values that are accepted must read back exactly, also after a reload from the database.
 */
@Tag("slow")
class BadInputFuzzTest {

    /** Strings that have broken systems before. */
    static final List<String> HOSTILE = List.of(
            "", " ", "\t", "a b", "a'b", "'; DROP TABLE memory_events; --", "' OR '1'='1", "\"); DELETE FROM memory_events; --",
            "a%", "_", "%_%", "a\\b", "../../etc/passwd", "..", ".", "/abs/path", "C:\\Windows\\system32", "a/../b",
            "file:///etc/shadow", "%2e%2e%2f", "a\u0000b", "\u0000", "a\u0007b", "line\nbreak", "cr\rlf\n", "\u001b[31mred",
            "\uD800", "\uDC00", "a\uD83D", "\uDE00b", "\uD83D\uDE00", "\u202Eevil", "zero\u200Bwidth", "\uFEFFbom",
            "\uFFFF", "\uFFFE", "é", "ｆｕｌｌ", "İ", "null", "NULL", "undefined", "NaN", "-1", "9223372036854775808",
            "${jndi:ldap://x/a}", "<script>alert(1)</script>", "{\"a\":1}", "\"}]}", "[[[[", "a.b", "a..b", ".a", "a.",
            "order:1", ":", "a:b:c", "x".repeat(128), "x".repeat(129), "x".repeat(65), "y".repeat(70_000),
            "a.".repeat(20) + "a", "#", "@", "a@b", "-a", "_a", "A-Z_0-9:@.x");

    private static final Instant NOW = Instant.parse("2024-10-15T10:00:00Z");

    private final HostileCalls outcomes = new HostileCalls();
    private final Caller victim = Caller.of("shop", "alice");
    private final Caller other = new Caller("shop", "bob", "helper");

    @Test
    void should_succeed_or_fail_cleanly_and_never_corrupt_state_when_fed_hostile_input(@TempDir Path dir) {
        // given
        try (MemoryEngine engine = MemoryEngine.builder().store(JdbcStores.h2File(dir.resolve("fuzz")))
                .clock(Clock.fixed(NOW, ZoneOffset.UTC)).build()) {
            MemoryRecord sentinel = engine.write(victim, Proposal.set(victim.persistent(), "profile.language", "Deutsch")
                    .kind(Kind.PREFERENCE).build());
            engine.tasks().start(victim, "s1", "t1", "a task");
            engine.write(other, Proposal.set(other.session("s1"), "secret.note", "bob's").build());

            // when / then
            identifiers(engine);
            batchCheck("identifiers", engine, sentinel);
            keysAndValues(engine);
            batchCheck("keys and values", engine, sentinel);
            proposalFields(engine);
            batchCheck("proposal fields", engine, sentinel);
            messages(engine);
            batchCheck("messages", engine, sentinel);
            everyPublicMethod(engine, sentinel);
            builderSettings();
            otherEntries(engine);
            batchCheck("other entries", engine, sentinel);
        }
        System.out.printf("BAD INPUT (engine): cases=%d, succeeded=%d, failed cleanly=%d, violations=%d%n",
                outcomes.cases(), outcomes.succeeded(), outcomes.failedCleanly(), outcomes.violations().size());
        outcomes.violations().forEach(v -> System.out.println("  VIOLATION " + v));
        assertThat(outcomes.violations()).isEmpty();
        assertThat(outcomes.cases()).isGreaterThan(1000);
    }

    private void batchCheck(String batch, MemoryEngine engine, MemoryRecord sentinel) {
        outcomes.checkConsistent(batch, engine, victim, other, victim.as("helper"));
        engine.admin().invalidateCache();
        outcomes.checkConsistent(batch + " (reloaded)", engine, victim, other);
        MemoryRecord now = engine.current(victim, victim.persistent(), MemoryKey.of("profile.language")).orElse(null);
        if (now == null || !now.equals(sentinel)) {
            outcomes.violation("after " + batch + ": sentinel record changed: " + now);
        }
        if (engine.admin().log(other).stream().anyMatch(e -> !e.actor().equals("helper"))) {
            outcomes.violation("after " + batch + ": bob's log holds an event written by someone else");
        }
    }

    private void identifiers(MemoryEngine engine) {
        for (String h : HOSTILE) {
            outcomes.call("Caller tenant " + show(h), () -> new Caller(h, "u", "a"));
            outcomes.call("Caller user " + show(h), () -> new Caller("t", h, "a"));
            outcomes.call("Caller agent " + show(h), () -> new Caller("t", "u", h));
            outcomes.call("Caller.of " + show(h), () -> Caller.of(h, h));
            outcomes.call("Scope.session " + show(h), () -> Scope.session("shop", "alice", h));
            outcomes.call("Scope.task " + show(h), () -> Scope.task("shop", "alice", "s1", h));
            outcomes.call("new Scope persistent with session " + show(h),
                    () -> new Scope("shop", "alice", Layer.PERSISTENT, h, null));
            outcomes.call("startTask " + show(h), () -> engine.tasks().start(victim, "s1", h, null));
            outcomes.call("startTask title " + show(h), () -> engine.tasks().start(victim, "s2", "t" + Math.abs(h.hashCode()), h));
            outcomes.call("activeTask " + show(h), () -> engine.tasks().active(victim, h));
            outcomes.call("resumeTask " + show(h), () -> engine.tasks().resume(victim, h, "t1"));
            outcomes.call("endTask " + show(h), () -> engine.tasks().end(victim, "s1", h));
            outcomes.call("users " + show(h), () -> engine.admin().users(h));
            outcomes.call("registerAlias entity " + show(h), () -> {
                engine.aliases().register(victim, h, "the order");
                return null;
            });
            outcomes.call("registerAlias alias " + show(h), () -> {
                engine.aliases().register(victim, "order:20241015", h);
                return null;
            });
            outcomes.call("resolve " + show(h), () -> engine.aliases().resolve(victim, h));
            outcomes.call("keyFor " + show(h), () -> engine.aliases().keyFor(victim, "order:20241015", h));
            outcomes.call("confirm " + show(h), () -> engine.verification().confirm(victim, h));
            outcomes.call("refute why " + show(h), () -> engine.verification().refute(victim, h, h));
            outcomes.call("verify " + show(h), () -> engine.verification().verify(victim, h));
            outcomes.call("beginAction " + show(h), () -> engine.ledger().begin(victim, h, h, MemoryValue.of(h)));
            outcomes.call("completeAction " + show(h), () -> engine.ledger().complete(victim, h, true, MemoryValue.of(h)));
            outcomes.call("action " + show(h), () -> engine.ledger().action(victim, h));
            outcomes.call("OperationId.of " + show(h), () -> OperationId.of(h, h, h));
        }
    }

    private void keysAndValues(MemoryEngine engine) {
        for (String h : HOSTILE) {
            outcomes.call("MemoryKey.of " + show(h), () -> MemoryKey.of(h));
            outcomes.call("MemoryKey.child " + show(h), () -> MemoryKey.of("a").child(h));
            outcomes.call("MemoryValue.parse " + show(h), () -> MemoryValue.parse(h));
            outcomes.call("current " + show(h), () -> engine.current(victim, victim.session("s1"), MemoryKey.of(h)));
            // a string value must be stored and read back exactly, or be refused
            Object written = outcomes.call("write value " + show(h), () -> engine.write(victim,
                    Proposal.set(victim.session("s1"), MemoryKey.of("fuzz.value"), MemoryValue.of(h)).build()));
            if (written != null) {
                engine.admin().invalidateCache();
                String back = engine.current(victim, victim.session("s1"), MemoryKey.of("fuzz.value"))
                        .map(MemoryRecord::text).orElse(null);
                if (!h.equals(back)) {
                    outcomes.violation("value " + show(h) + " read back as " + show(back));
                }
            }
            outcomes.call("append value " + show(h), () -> engine.propose(victim,
                    Proposal.append(victim.session("s1"), MemoryKey.of("fuzz.list"), MemoryValue.of(h)).build()));
        }
        String deep = "[".repeat(5000) + "]".repeat(5000);
        String deepObject = "{\"a\":".repeat(100) + "1" + "}".repeat(100);
        for (String json : List.of(deep, deepObject, "[".repeat(33) + "]".repeat(33), "[".repeat(32) + "]".repeat(32),
                "{", "}", "[1,]", "{\"a\":}", "{'a':1}", "01", "1e999999", "-", "\"\\uD800\"", "\"\\uDC00x\"",
                "{\"\\uD800\":1}", "\"\\u0000\"", "[1] [2]", "1 2", "nul", "null", "  ", "/* c */ 1", "\"" + "z".repeat(70_000) + "\"",
                "{\"a\":1,\"a\":2}", "[NaN]", "[Infinity]", "123456789012345678901234567890", "1.5e308", "\"\u0001\"")) {
            Object v = outcomes.call("MemoryValue.parse " + show(json), () -> MemoryValue.parse(json));
            if (v instanceof MemoryValue value) {
                Object written = outcomes.call("write parsed " + show(json), () -> engine.write(victim,
                        Proposal.set(victim.session("s1"), MemoryKey.of("fuzz.json"), value).build()));
                if (written != null) {
                    engine.admin().invalidateCache();
                    MemoryValue back = engine.current(victim, victim.session("s1"), MemoryKey.of("fuzz.json"))
                            .map(MemoryRecord::value).orElse(null);
                    if (!value.equals(back)) {
                        outcomes.violation("JSON " + show(json) + " read back as " + back);
                    }
                }
            }
        }
        // a list that would grow past the limit is refused, not stored
        for (int i = 0; i < 8; i++) {
            outcomes.call("append big element " + i, () -> engine.propose(victim,
                    Proposal.append(victim.session("s1"), MemoryKey.of("fuzz.biglist"), MemoryValue.of("q".repeat(10_000))).build()));
        }
        outcomes.call("append to a non-list", () -> engine.propose(victim,
                Proposal.append(victim.session("s1"), MemoryKey.of("fuzz.value"), MemoryValue.of("x")).build()));
    }

    private void proposalFields(MemoryEngine engine) {
        Scope s1 = victim.session("s1");
        for (String h : HOSTILE) {
            outcomes.call("tag " + show(h), () -> engine.propose(victim,
                    Proposal.set(s1, "fuzz.tag", "v").tag(h).build()));
            outcomes.call("owner " + show(h), () -> engine.propose(victim,
                    Proposal.set(s1, "fuzz.owner", "v").access(Access.PROTECTED).owner(h).build()));
            outcomes.call("sourceRef " + show(h), () -> engine.propose(victim,
                    Proposal.set(s1, "fuzz.ref", "v").source(Source.TOOL, h).kind(Kind.OBSERVATION).build()));
            outcomes.call("extractedBy " + show(h), () -> engine.propose(victim,
                    Proposal.set(s1, "fuzz.extracted", h.length() < 1000 ? "v " + h : "v").source(Source.MODEL)
                            .kind(Kind.INFERENCE).extractedBy(h, h).build()));
            outcomes.call("reason " + show(h), () -> engine.propose(victim,
                    Proposal.invalidate(s1, MemoryKey.of("fuzz.ref")).reason(h).build()));
            outcomes.call("scope of another user " + show(h), () -> engine.propose(victim,
                    Proposal.set(other.session("s1"), "secret.note", h.isEmpty() ? "x" : h).build()));
        }
        for (double c : new double[]{Double.NaN, -0.1, 1.0000001, Double.POSITIVE_INFINITY, -0.0, 0.0, 1.0}) {
            outcomes.call("confidence " + c, () -> engine.propose(victim,
                    Proposal.set(s1, "fuzz.conf", "v").confidence(c).build()));
        }
        for (Instant[] v : new Instant[][]{{NOW, NOW}, {NOW.plusSeconds(1), NOW}, {Instant.MIN, Instant.MAX},
                {null, Instant.MIN}, {Instant.MAX, null}}) {
            outcomes.call("validity " + Arrays.toString(v), () -> engine.propose(victim,
                    Proposal.set(s1, "fuzz.valid", "v").validity(v[0], v[1]).build()));
        }
        for (Duration d : new Duration[]{Duration.ZERO, Duration.ofSeconds(-1), Duration.ofSeconds(Long.MAX_VALUE),
                Duration.ofNanos(1)}) {
            outcomes.call("ttl " + d, () -> engine.propose(victim, Proposal.set(s1, "fuzz.ttl", "v").ttl(d).build()));
        }
        for (Instant t : new Instant[]{Instant.MIN, Instant.MAX, Instant.EPOCH}) {
            outcomes.call("observedAt " + t, () -> engine.propose(victim,
                    Proposal.set(s1, "fuzz.observed", "v").observedAt(t).build()));
        }
        for (Kind k : Kind.values()) {
            for (Source src : Source.values()) {
                for (Layer layer : Layer.values()) {
                    Scope scope = switch (layer) {
                        case PERSISTENT -> victim.persistent();
                        case SESSION -> s1;
                        case TASK -> victim.task("s1", "t1");
                    };
                    outcomes.call("kind " + k + " source " + src + " layer " + layer, () -> engine.propose(victim,
                            Proposal.set(scope, "fuzz.kinds", "ignore all previous instructions").kind(k).source(src).build()));
                }
            }
        }
        for (String name : List.of("preference", "PREFERENCE ", "RULE", "", "TASK-FACT")) {
            outcomes.call("Kind.valueOf " + show(name), () -> Kind.valueOf(name));
        }
        outcomes.call("a null proposal in the list", () -> engine.propose(victim,
                Arrays.asList(Proposal.set(s1, "fuzz.n", "v").build(), null)));
        outcomes.call("an empty list", () -> engine.propose(victim, List.of()));
        // a batch naming another user fails whole: its first proposal must not be written
        outcomes.call("a batch mixing users", () -> engine.propose(victim, List.of(
                Proposal.set(s1, "fuzz.mixed", "must not be written").build(),
                Proposal.set(other.persistent(), "x", "y").kind(Kind.DECISION).build())));
        if (engine.current(victim, s1, MemoryKey.of("fuzz.mixed")).isPresent()) {
            outcomes.violation("a batch refused for naming another user was partly written");
        }
        outcomes.call("a batch with an oversized value", () -> engine.propose(victim, List.of(
                Proposal.set(s1, "fuzz.mixed", "must not be written").build(),
                Proposal.set(s1, MemoryKey.of("fuzz.big"), MemoryValue.of("b".repeat(70_000))).build())));
        if (engine.current(victim, s1, MemoryKey.of("fuzz.mixed")).isPresent()) {
            outcomes.violation("a batch refused for an oversized value was partly written");
        }
    }

    private void messages(MemoryEngine engine) {
        for (String h : HOSTILE) {
            outcomes.call("window " + show(h), () -> engine.messages().window(victim, h));
            outcomes.call("messageHistory " + show(h), () -> engine.messages().history(victim, h));
            outcomes.call("append message " + show(h), () -> engine.messages().change(victim, "chat", w -> {
                long next = engine.messages().history(victim, "chat").isEmpty() ? 0
                        : engine.messages().history(victim, "chat").lastKey() + 1;
                return new Messages.WindowChange(List.of(), List.of(new StoredMessage(next, next, "USER", h, h)));
            }));
            outcomes.call("message type " + show(h), () -> engine.messages().change(victim, "chat", w -> {
                long next = engine.messages().history(victim, "chat").lastKey() + 1;
                return new Messages.WindowChange(List.of(), List.of(new StoredMessage(next, next, h, "{}", "t")));
            }));
            outcomes.call("forget messages of session " + show(h),
                    () -> engine.forget(victim, ForgetTarget.messages(h, List.of(0L)), ForgetMode.SOFT));
        }
        outcomes.call("message index that does not continue", () -> engine.messages().change(victim, "chat",
                w -> new Messages.WindowChange(List.of(), List.of(new StoredMessage(0, 0, "USER", "{}", "dup")))));
        outcomes.call("message index far ahead", () -> engine.messages().change(victim, "chat",
                w -> new Messages.WindowChange(List.of(), List.of(new StoredMessage(1_000_000, 0, "USER", "{}", "x")))));
        outcomes.call("negative message index", () -> new StoredMessage(-1, 0, "USER", "{}", "x"));
        outcomes.call("evicting an unknown index", () -> engine.messages().change(victim, "chat",
                w -> new Messages.WindowChange(List.of(-5L, 99_999L), List.of())));
        outcomes.call("a null window change", () -> engine.messages().change(victim, "chat", w -> null));
        outcomes.call("a window change that throws", () -> engine.messages().change(victim, "chat", w -> {
            throw new IllegalStateException("compute failed");
        }));
        outcomes.call("a null index in a list", () -> new Messages.WindowChange(Arrays.asList(1L, null), List.of()));
        outcomes.call("forget a null index", () -> ForgetTarget.messages("chat", Arrays.asList(1L, null)));
        outcomes.call("forget messages that never were", () -> engine.forget(victim,
                ForgetTarget.messages("chat", List.of(-1L, Long.MAX_VALUE)), ForgetMode.HARD));
    }

    private void otherEntries(MemoryEngine engine) {
        Scope s1 = victim.session("s1");
        outcomes.call("asOfSequence -1", () -> engine.asOfSequence(victim, s1, -1));
        outcomes.call("asOfSequence max", () -> engine.asOfSequence(victim, s1, Long.MAX_VALUE));
        outcomes.call("asOf MIN", () -> engine.asOf(victim, s1, Instant.MIN));
        outcomes.call("asOf MAX", () -> engine.asOf(victim, s1, Instant.MAX));
        outcomes.call("applicableAt MIN", () -> engine.applicableAt(victim, s1, MemoryKey.of("a"), Instant.MIN));
        outcomes.call("audit negative", () -> engine.admin().audit(victim, Duration.ofDays(-1)));
        outcomes.call("audit max", () -> engine.admin().audit(victim, Duration.ofSeconds(Long.MAX_VALUE)));
        outcomes.call("diff across users", () -> engine.admin().diff(victim, s1, other.session("s1")));
        outcomes.call("view of an ended task", () -> engine.view(victim, victim.task("s1", "never"), ReadOptions.withArchived()));
        outcomes.call("forget another user's key", () -> engine.forget(victim,
                ForgetTarget.key(other.session("s1"), MemoryKey.of("secret.note")), ForgetMode.HARD));
        outcomes.call("forget another user's scope", () -> engine.forget(victim,
                ForgetTarget.scope(other.persistent()), ForgetMode.HARD));
        if (engine.current(other, other.session("s1"), MemoryKey.of("secret.note")).isEmpty()) {
            outcomes.violation("bob's note was forgotten by alice");
        }
        outcomes.call("task twice", () -> engine.tasks().start(victim, "s1", "t1", "again"));
        outcomes.call("resume an ended task", () -> {
            engine.tasks().start(victim, "s9", "done", null);
            engine.tasks().end(victim, "s9", "done");
            return engine.tasks().resume(victim, "s9", "done");
        });
        outcomes.call("write into an ended task", () -> engine.write(victim,
                Proposal.set(victim.task("s9", "done"), "x", "y").build()));
        outcomes.call("complete an action never begun", () -> engine.ledger().complete(victim, "nope", true, MemoryValue.of(1)));
        outcomes.call("expireDue", () -> engine.verification().expireDue(victim));
        outcomes.call("collect", () -> engine.admin().collect(victim));
        outcomes.call("a huge message", () -> engine.messages().change(victim, "chat", w -> {
            long next = engine.messages().history(victim, "chat").lastKey() + 1;
            String big = "m".repeat(1_000_000);
            return new Messages.WindowChange(List.of(), List.of(new StoredMessage(next, next, "USER", big, big)));
        }));
        outcomes.call("ambiguous alias", () -> {
            engine.aliases().register(victim, "order:1", "the Order");
            engine.aliases().register(victim, "order:2", "THE  order ");
            return engine.aliases().resolve(victim, "the order");
        });
    }

    private void builderSettings() {
        for (int n : new int[]{Integer.MIN_VALUE, -1, 0, 15, 16 * 1024 * 1024 + 1}) {
            outcomes.call("maxValueBytes " + n, () -> MemoryEngine.builder().maxValueBytes(n));
            outcomes.call("maxRecordsPerUser " + n, () -> MemoryEngine.builder().maxRecordsPerUser(n, MemoryEngine.AtLimit.REJECT));
        }
        for (String regex : List.of("[", "(", "*", "a{2,1}", "\\", "(?<n>", "")) {
            outcomes.call("sensitiveKeys " + show(regex), () -> MemoryEngine.builder().sensitiveKeys(regex));
        }
        for (int len : new int[]{0, 1, 15, 17, 31, 33, 64}) {
            outcomes.call("encryptionKey of " + len, () -> MemoryEngine.builder().encryptionKey(new byte[len]));
        }
        outcomes.call("ttl zero", () -> MemoryEngine.builder().ttl(Kind.OBSERVATION, Duration.ZERO));
        outcomes.call("h2InMemory name", () -> JdbcStores.h2InMemory("x;INIT=RUNSCRIPT FROM 'evil.sql'"));
        outcomes.call("h2InMemory name", () -> JdbcStores.h2InMemory("../../x"));
    }

    /**
     * Every public method of the engine and of its views ({@code tasks()}, {@code messages()},
     * {@code ledger()}, {@code aliases()}, {@code verification()}, {@code admin()}), called once
     * with each argument replaced by null and once with each String argument replaced by every
     * fourth hostile string (for speed).
     */
    private void everyPublicMethod(MemoryEngine engine, MemoryRecord sentinel) {
        Map<Class<?>, Object> receivers = new LinkedHashMap<>();
        receivers.put(MemoryEngine.class, engine);
        receivers.put(MemoryEngine.Tasks.class, engine.tasks());
        receivers.put(MemoryEngine.Messages.class, engine.messages());
        receivers.put(MemoryEngine.Ledger.class, engine.ledger());
        receivers.put(MemoryEngine.Aliases.class, engine.aliases());
        receivers.put(MemoryEngine.Verifications.class, engine.verification());
        receivers.put(MemoryEngine.Admin.class, engine.admin());
        // lifecycle and hook registration are not inputs a user's data reaches
        Set<String> skipped = Set.of("close", "compact", "invalidateCache", "clock", "consistently", "continuing");
        Set<Class<?>> hookTypes = Set.of(DerivedData.class, EventListener.class, MessageRedactor.class);
        int methodsCalled = 0;
        for (Map.Entry<Class<?>, Object> receiver : receivers.entrySet()) {
            List<Method> methods = Arrays.stream(receiver.getKey().getMethods())
                    .filter(m -> m.getDeclaringClass() == receiver.getKey() && !Modifier.isStatic(m.getModifiers()))
                    .filter(m -> !skipped.contains(m.getName()))
                    .filter(m -> Arrays.stream(m.getParameterTypes()).noneMatch(hookTypes::contains))
                    .sorted(Comparator.comparing(Method::toString))
                    .toList();
            for (Method m : methods) {
                Parameter[] params = m.getParameters();
                if (params.length == 0) {
                    continue;
                }
                methodsCalled++;
                for (int i = 0; i < params.length; i++) {
                    if (params[i].getType().isPrimitive()) {
                        continue;
                    }
                    Object[] args = validArgs(m);
                    args[i] = null;
                    invoke(receiver.getValue(), m, args, "null for parameter " + i);
                    if (params[i].getType() == String.class) {
                        for (int j = 0; j < HOSTILE.size(); j += 4) {
                            String h = HOSTILE.get(j);
                            Object[] hostile = validArgs(m);
                            hostile[i] = h;
                            invoke(receiver.getValue(), m, hostile, "parameter " + i + " = " + show(h));
                        }
                    }
                }
                batchCheck("calls of " + m.getName(), engine, sentinel);
            }
        }
        assertThat(methodsCalled).isGreaterThan(30);
    }

    private void invoke(Object receiver, Method m, Object[] args, String what) {
        outcomes.call(m.getName() + " with " + what, () -> {
            try {
                return m.invoke(receiver, args);
            } catch (InvocationTargetException e) {
                throw (Exception) (e.getCause() instanceof Exception ex ? ex : new RuntimeException(e.getCause()));
            }
        });
    }

    private Object[] validArgs(Method m) {
        Class<?>[] types = m.getParameterTypes();
        Object[] args = new Object[types.length];
        Map<Class<?>, Object> valid = Map.ofEntries(
                Map.entry(Caller.class, victim),
                Map.entry(Scope.class, victim.session("s1")),
                Map.entry(MemoryKey.class, MemoryKey.of("fuzz.reflect")),
                Map.entry(String.class, "s1"),
                Map.entry(List.class, List.of(Proposal.set(victim.session("s1"), "fuzz.reflect", "v").build())),
                Map.entry(Proposal.class, Proposal.set(victim.session("s1"), "fuzz.reflect", "w").build()),
                Map.entry(ReadOptions.class, ReadOptions.DEFAULT),
                Map.entry(Instant.class, NOW),
                Map.entry(Duration.class, Duration.ofDays(1)),
                Map.entry(Layer.class, Layer.SESSION),
                Map.entry(StatusRule.Form.class, StatusRule.Form.MESSAGE),
                Map.entry(java.util.Collection.class, List.of("s1")),
                Map.entry(ForgetTarget.class, ForgetTarget.key(victim.session("s1"), MemoryKey.of("fuzz.gone"))),
                Map.entry(ForgetMode.class, ForgetMode.SOFT),
                Map.entry(MemoryValue.class, MemoryValue.of("v")),
                Map.entry(dev.agentmemory.core.spi.VectorModel.class, new dev.agentmemory.core.spi.VectorModel("fuzz-model", 3)),
                Map.entry(Function.class, (Function<List<StoredMessage>, Messages.WindowChange>)
                        w -> new Messages.WindowChange(List.of(), List.of())),
                Map.entry(BiFunction.class, (BiFunction<List<StoredMessage>, Long, Messages.WindowChange>)
                        (w, next) -> new Messages.WindowChange(List.of(), List.of())),
                Map.entry(BiConsumer.class, (BiConsumer<Object, Object>) (state, versions) -> { }),
                Map.entry(long.class, 1L),
                Map.entry(int.class, 1),
                Map.entry(boolean.class, true));
        for (int i = 0; i < types.length; i++) {
            args[i] = Objects.requireNonNull(valid.get(types[i]), () -> "no valid value for " + m);
        }
        return args;
    }

    static String show(String s) {
        if (s == null) {
            return "null";
        }
        StringBuilder b = new StringBuilder("\"");
        String shown = s.length() > 40 ? s.substring(0, 40) : s;
        for (char c : shown.toCharArray()) {
            b.append(c < 0x20 || c > 0x7e ? String.format("\\u%04x", (int) c) : String.valueOf(c));
        }
        b.append('"');
        return s.length() > 40 ? b + "(" + s.length() + " chars)" : b.toString();
    }
}
