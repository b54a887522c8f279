package dev.agentmemory.langchain4j;

import dev.agentmemory.langchain4j.internal.EnumText;
import dev.agentmemory.core.ForgetMode;
import dev.agentmemory.core.MemoryRecord.Kind;
import dev.agentmemory.core.engine.MemoryEngine;
import dev.agentmemory.langchain4j.framing.MemoryFramer;
import org.jspecify.annotations.Nullable;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Base64;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.Locale;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Consumer;

/**
 * Every configuration knob of {@link AgentMemory} with its default, and the parser for the
 * {@code agentmemory.*} keys of a properties (or flattened YAML) file. Mutable; used only by the
 * builder. Each setting remembers whether it was set, so that settings the engine owns can be
 * refused when the caller supplies a ready-made engine.
 */
final class Settings {

    static final String PREFIX = "agentmemory.";

    static final int DEFAULT_WINDOW_SIZE = 20;
    static final int DEFAULT_STATE_RESULTS = 20;
    static final int DEFAULT_PERSISTENT_RESULTS = 10;
    static final int DEFAULT_EPISODIC_RESULTS = 5;
    static final double DEFAULT_MIN_SCORE = 0.0;
    static final int DEFAULT_MAX_RECORDS = 100_000;
    static final int DEFAULT_MAX_MESSAGE_CHARS = 1024 * 1024;
    static final String MAX_MESSAGE_CHARS_KEY = PREFIX + "max-message-chars";

    /**
     * The engine's settings, applied in order to the {@link MemoryEngine.Builder} of a new engine:
     * those of {@code agentmemory.*} keys and those given to {@code AgentMemory.Builder#engineSettings}.
     */
    final List<Consumer<MemoryEngine.Builder>> engineSteps = new ArrayList<>();
    /** The last record limit set by a key, completed by a later {@code at-limit} key alone (and vice versa). */
    int maxRecordsPerUser = DEFAULT_MAX_RECORDS;
    MemoryEngine.AtLimit atLimit = MemoryEngine.AtLimit.REJECT;
    int windowSize = DEFAULT_WINDOW_SIZE;
    int stateResults = DEFAULT_STATE_RESULTS;
    int persistentResults = DEFAULT_PERSISTENT_RESULTS;
    int episodicResults = DEFAULT_EPISODIC_RESULTS;
    double minScore = DEFAULT_MIN_SCORE;
    int blockMaxChars = MemoryFramer.DEFAULT_MAX_CHARS;
    int blockMaxTokens = MemoryFramer.DEFAULT_MAX_TOKENS;
    ForgetMode deleteMode = ForgetMode.SOFT;
    String agent = "assistant";
    /** {@code agentmemory.jdbc.*}: a database server for a new engine (password never shown). */
    @Nullable String jdbcUrl;
    String jdbcUser = "";
    String jdbcPassword = "";
    @Nullable Integer jdbcPoolSize;
    /** {@code agentmemory.h2.accept-missing-high-water-mark}: open an H2 file restored without its {@code .hwm}. */
    boolean acceptMissingHighWaterMark;

    /** Names of engine-owned settings that were set explicitly, in the order they were set. */
    final Set<String> engineSettingsSet = new LinkedHashSet<>();

    void ttl(Kind kind, Duration d) {
        try {
            MemoryEngine.builder().ttl(kind, d);
        } catch (IllegalArgumentException e) {
            // same rule as the engine's, worded as the setting is named here
            throw new IllegalArgumentException("ttl." + name(kind) + " must be a positive duration: " + d, e);
        }
        engineSteps.add(b -> b.ttl(kind, d));
        engineSettingsSet.add("ttl." + name(kind));
    }

    void maxRecordsPerUser(int max, MemoryEngine.AtLimit at) {
        checkedByEngine("maxRecordsPerUser", "max-records-per-user", () -> MemoryEngine.builder().maxRecordsPerUser(max, at));
        maxRecordsPerUser = max;
        atLimit = at;
        engineSteps.add(b -> b.maxRecordsPerUser(max, at));
        engineSettingsSet.add("max-records-per-user");
    }

    /** A copy that later changes to this one do not reach (what a built {@link AgentMemory} keeps). */
    Settings copy() {
        Settings c = new Settings();
        c.engineSteps.addAll(engineSteps);
        c.maxRecordsPerUser = maxRecordsPerUser;
        c.atLimit = atLimit;
        c.windowSize = windowSize;
        c.stateResults = stateResults;
        c.persistentResults = persistentResults;
        c.episodicResults = episodicResults;
        c.minScore = minScore;
        c.blockMaxChars = blockMaxChars;
        c.blockMaxTokens = blockMaxTokens;
        c.deleteMode = deleteMode;
        c.agent = agent;
        c.jdbcUrl = jdbcUrl;
        c.jdbcUser = jdbcUser;
        c.jdbcPassword = jdbcPassword;
        c.jdbcPoolSize = jdbcPoolSize;
        c.acceptMissingHighWaterMark = acceptMissingHighWaterMark;
        c.engineSettingsSet.addAll(engineSettingsSet);
        return c;
    }

    void maxMessageChars(int chars) {
        checkedByEngine("maxMessageChars", "max-message-chars", () -> MemoryEngine.builder().maxMessageChars(chars));
        engineSteps.add(b -> b.maxMessageChars(chars));
        engineSettingsSet.add("max-message-chars");
    }

    void windowSize(int n) {
        windowSize = atLeast("window-size", n, 1);
    }

    void results(int state, int persistent, int episodic) {
        stateResults = atLeast("results.state", state, 0);
        persistentResults = atLeast("results.persistent", persistent, 0);
        episodicResults = atLeast("results.episodic", episodic, 0);
    }

    void minScore(double s) {
        if (!(s >= 0.0) || Double.isInfinite(s)) {
            throw new IllegalArgumentException("min-score must be a finite number >= 0: " + s);
        }
        minScore = s;
    }

    void blockBudget(int chars, int tokens) {
        blockMaxChars = atLeast("block.max-chars", chars, 200);
        blockMaxTokens = atLeast("block.max-tokens", tokens, 50);
    }

    void strictConflicts(boolean strict) {
        engineSteps.add(b -> b.strictConflicts(strict));
        engineSettingsSet.add("strict-conflicts");
    }

    void encryptionKey(byte[] key) {
        checkedByEngine("encryption key", "encryption-key", () -> MemoryEngine.builder().encryptionKey(key));
        byte[] copy = key.clone();
        engineSteps.add(b -> b.encryptionKey(copy));
        engineSettingsSet.add("encryption-key");
    }

    /** Engine settings given in code ({@code AgentMemory.Builder#engineSettings}). */
    void engineSettings(Consumer<MemoryEngine.Builder> step) {
        engineSteps.add(step);
        engineSettingsSet.add("engineSettings");
    }

    /**
     * Applies every {@code agentmemory.*} key of {@code props}; other keys are ignored. An unknown
     * {@code agentmemory.*} key or a bad value fails with a message naming the key.
     */
    void apply(Properties props) {
        Map<String, String> sorted = new TreeMap<>();
        for (String name : props.stringPropertyNames()) {
            if (name.startsWith(PREFIX)) {
                sorted.put(name, props.getProperty(name).trim());
            }
        }
        Integer stateR = null;
        Integer persistentR = null;
        Integer episodicR = null;
        Integer chars = null;
        Integer tokens = null;
        Integer maxRecords = null;
        MemoryEngine.AtLimit at = null;
        for (Map.Entry<String, String> e : sorted.entrySet()) {
            String key = e.getKey();
            String name = key.substring(PREFIX.length());
            String v = e.getValue();
            try {
                if (name.startsWith("ttl.")) {
                    ttl(kind(key, name.substring(4)), duration(key, v));
                    continue;
                }
                switch (name) {
                    case "max-records-per-user" -> maxRecords = integer(key, v);
                    case "at-limit" -> at = switch (v.toLowerCase(Locale.ROOT)) {
                        case "reject" -> MemoryEngine.AtLimit.REJECT;
                        case "forget-oldest" -> MemoryEngine.AtLimit.FORGET_OLDEST;
                        default -> throw bad(key, v, "reject or forget-oldest");
                    };
                    case "window-size" -> windowSize(integer(key, v));
                    case "results.state" -> stateR = integer(key, v);
                    case "results.persistent" -> persistentR = integer(key, v);
                    case "results.episodic" -> episodicR = integer(key, v);
                    case "min-score" -> minScore(number(key, v));
                    case "block.max-chars" -> chars = integer(key, v);
                    case "block.max-tokens" -> tokens = integer(key, v);
                    case "strict-conflicts" -> strictConflicts(bool(key, v));
                    case "delete-mode" -> deleteMode = switch (v.toLowerCase(Locale.ROOT)) {
                        case "soft" -> ForgetMode.SOFT;
                        case "hard" -> ForgetMode.HARD;
                        default -> throw bad(key, v, "soft or hard");
                    };
                    case "encryption-key" -> encryptionKey(base64(key, v));
                    case "agent" -> agent = v;
                    case "max-message-chars" -> maxMessageChars(integer(key, v));
                    case "jdbc.url" -> jdbcUrl = v;
                    case "jdbc.user" -> jdbcUser = v;
                    case "jdbc.password" -> jdbcPassword = v;
                    case "jdbc.pool-size" -> jdbcPoolSize = atLeast("jdbc.pool-size", integer(key, v), 1);
                    case "h2.accept-missing-high-water-mark" -> acceptMissingHighWaterMark = bool(key, v);
                    default -> throw new IllegalArgumentException("unknown setting " + key
                            + " (known: " + String.join(", ", KNOWN) + ")");
                }
            } catch (IllegalArgumentException ex) {
                if (ex.getMessage() != null && ex.getMessage().contains(key)) {
                    throw ex;
                }
                throw new IllegalArgumentException(key + ": " + ex.getMessage(), ex);
            }
        }
        if (maxRecords != null || at != null) {
            try {
                maxRecordsPerUser(maxRecords != null ? maxRecords : maxRecordsPerUser, at != null ? at : atLimit);
            } catch (IllegalArgumentException ex) {
                throw new IllegalArgumentException(PREFIX + ex.getMessage(), ex);
            }
        }
        if (stateR != null || persistentR != null || episodicR != null) {
            try {
                results(stateR != null ? stateR : stateResults, persistentR != null ? persistentR : persistentResults,
                        episodicR != null ? episodicR : episodicResults);
            } catch (IllegalArgumentException ex) {
                throw new IllegalArgumentException(PREFIX + ex.getMessage(), ex);
            }
        }
        if (chars != null || tokens != null) {
            try {
                blockBudget(chars != null ? chars : blockMaxChars, tokens != null ? tokens : blockMaxTokens);
            } catch (IllegalArgumentException ex) {
                throw new IllegalArgumentException(PREFIX + ex.getMessage(), ex);
            }
        }
    }

    static final Set<String> KNOWN = Set.of("ttl.<kind>", "max-records-per-user", "at-limit", "window-size",
            "results.state", "results.persistent", "results.episodic", "min-score", "block.max-chars",
            "block.max-tokens", "strict-conflicts", "delete-mode", "encryption-key", "agent", "max-message-chars",
            "jdbc.url", "jdbc.user", "jdbc.password", "jdbc.pool-size", "h2.accept-missing-high-water-mark");

    static String name(Kind kind) {
        return EnumText.label(kind);
    }

    /**
     * Runs the engine builder's own check of an engine setting (the builder is the one place
     * that validates them) and reports a failure under the setting's name here.
     */
    private static void checkedByEngine(String engineName, String name, Runnable check) {
        try {
            check.run();
        } catch (IllegalArgumentException e) {
            String m = String.valueOf(e.getMessage());
            throw new IllegalArgumentException(m.startsWith(engineName) ? name + m.substring(engineName.length())
                    : name + ": " + m, e);
        }
    }

    private static int atLeast(String name, int n, int min) {
        if (n < min) {
            throw new IllegalArgumentException(name + " must be >= " + min + ": " + n);
        }
        return n;
    }

    private static Kind kind(String key, String s) {
        for (Kind k : Kind.values()) {
            if (name(k).equals(s.toLowerCase(Locale.ROOT))) {
                return k;
            }
        }
        throw new IllegalArgumentException("unknown kind in " + key + " (kinds: preference, task-fact, observation,"
                + " inference, decision, reference)");
    }

    private static Duration duration(String key, String v) {
        try {
            return Duration.parse(v);
        } catch (DateTimeParseException e) {
            throw bad(key, v, "an ISO-8601 duration such as P30D or PT12H");
        }
    }

    private static int integer(String key, String v) {
        try {
            return Integer.parseInt(v);
        } catch (NumberFormatException e) {
            throw bad(key, v, "an integer");
        }
    }

    private static double number(String key, String v) {
        try {
            return Double.parseDouble(v);
        } catch (NumberFormatException e) {
            throw bad(key, v, "a number");
        }
    }

    private static boolean bool(String key, String v) {
        return switch (v.toLowerCase(Locale.ROOT)) {
            case "true" -> true;
            case "false" -> false;
            default -> throw bad(key, v, "true or false");
        };
    }

    private static byte[] base64(String key, String v) {
        try {
            return Base64.getDecoder().decode(v);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(key + " must be base64: " + e.getMessage());
        }
    }

    private static IllegalArgumentException bad(String key, String v, String expected) {
        return new IllegalArgumentException(key + " must be " + expected + ": \"" + v + "\"");
    }
}
