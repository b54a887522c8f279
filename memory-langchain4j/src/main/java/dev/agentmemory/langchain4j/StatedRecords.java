package dev.agentmemory.langchain4j;

import dev.agentmemory.core.MemoryRecord;
import dev.agentmemory.langchain4j.internal.Statements;
import dev.agentmemory.langchain4j.tools.Summarizer;
import org.jspecify.annotations.Nullable;

import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Per user, every record version ever written with a value (current, superseded, archived; not
 * forgotten), so that a past message can be asked which records it states (the rule of
 * {@link Statements}: it is the record's source message, or it contains the record's value as
 * whole words). Only ids, source references and value words are kept; what became of each record
 * is asked of the engine when a message is labelled. Summaries and summary bookkeeping are left
 * out (they state nothing of their own). A user's table exists once {@link #build} made it from
 * the engine's state (the first time one of their messages is labelled); until then written
 * records are not noted. Each value's words are kept as one string. Thread-safe.
 */
final class StatedRecords {

    /** A record version: its id, source message and value words (joined by {@link #SEPARATOR}; one string, not one per word). */
    private record Entry(String id, @Nullable String sourceRef, String joinedWords) {
        static final String SEPARATOR = "\u0001";

        List<String> words() {
            return joinedWords.isEmpty() ? List.of() : List.of(joinedWords.split(SEPARATOR, -1));
        }

        @Nullable String firstWord() {
            if (joinedWords.isEmpty()) {
                return null;
            }
            int end = joinedWords.indexOf(SEPARATOR);
            return end < 0 ? joinedWords : joinedWords.substring(0, end);
        }
    }

    /** One user's records, indexed by their value's first word and by their source message. */
    private static final class Catalog {
        final Map<String, Entry> byId = new HashMap<>();
        final Map<String, Set<String>> byFirstWord = new HashMap<>();
        final Map<String, Set<String>> bySource = new HashMap<>();
    }

    private final Map<String, Catalog> partitions = new ConcurrentHashMap<>();

    /** Whether the user's table was built (and is kept in step since). */
    boolean holds(String partition) {
        return partitions.containsKey(partition);
    }

    /**
     * Builds the user's table from their records (every version the state holds; tombstones are
     * left out). The caller holds the user's lock, so no commit is noted meanwhile.
     */
    void build(String partition, Collection<MemoryRecord> records) {
        Catalog c = new Catalog();
        synchronized (c) {
            for (MemoryRecord r : records) {
                note(c, r);
            }
        }
        partitions.put(partition, c);
    }

    /** Notes a written record version of the user {@code partition} ({@code tenant/user}) once their table is built. */
    void written(String partition, MemoryRecord r) {
        Catalog c = partitions.get(partition);
        if (c == null) {
            return; // built from the state, this record included, when first needed
        }
        synchronized (c) {
            note(c, r);
        }
    }

    private static void note(Catalog c, MemoryRecord r) {
        if (r.value() == null || r.tags().contains(Summarizer.SUMMARY_TAG)
                || r.key().path().equals(Summarizer.EXCLUDED_KEY)) {
            return;
        }
        if (c.byId.containsKey(r.id())) {
            return;
        }
        List<String> words = Statements.valueWords(r.text());
        if (words.isEmpty() && r.sourceRef() == null) {
            return;
        }
        c.byId.put(r.id(), new Entry(r.id(), r.sourceRef(), String.join(Entry.SEPARATOR, words)));
        if (!words.isEmpty()) {
            c.byFirstWord.computeIfAbsent(words.get(0), k -> new HashSet<>()).add(r.id());
        }
        if (r.sourceRef() != null) {
            c.bySource.computeIfAbsent(r.sourceRef(), k -> new HashSet<>()).add(r.id());
        }
    }

    /** Drops forgotten records: their values must not linger here. */
    void forgotten(String partition, Collection<String> ids) {
        Catalog c = partitions.get(partition);
        if (c == null) {
            return;
        }
        synchronized (c) {
            for (String id : ids) {
                Entry e = c.byId.remove(id);
                if (e == null) {
                    continue;
                }
                String first = e.firstWord();
                if (first != null) {
                    removeFrom(c.byFirstWord, first, id);
                }
                if (e.sourceRef() != null) {
                    removeFrom(c.bySource, e.sourceRef(), id);
                }
            }
        }
    }

    /** Drops everything of a forgotten user. */
    void userForgotten(String partition) {
        partitions.remove(partition);
    }

    /**
     * The ids of the records the message {@code messageRef} ({@code message:<session>#<index>})
     * with {@code text} states, in no particular order.
     */
    Set<String> statedBy(String partition, String messageRef, String text) {
        Catalog c = partitions.get(partition);
        if (c == null) {
            return Set.of();
        }
        List<String> words = Statements.words(text);
        Set<String> out = new LinkedHashSet<>();
        synchronized (c) {
            out.addAll(c.bySource.getOrDefault(messageRef, Set.of()));
            for (String w : new HashSet<>(words)) {
                for (String id : c.byFirstWord.getOrDefault(w, Set.of())) {
                    if (Statements.contains(words, Objects.requireNonNull(c.byId.get(id), "indexed by its first word").words())) {
                        out.add(id);
                    }
                }
            }
        }
        return out;
    }

    private static void removeFrom(Map<String, Set<String>> map, String key, String id) {
        Set<String> ids = map.get(key);
        if (ids != null) {
            ids.remove(id);
            if (ids.isEmpty()) {
                map.remove(key);
            }
        }
    }
}
