package dev.agentmemory.core.engine;

import dev.agentmemory.core.MemoryException;
import org.jspecify.annotations.Nullable;
import dev.agentmemory.core.event.Change;
import dev.agentmemory.core.event.LoggedEvent;
import dev.agentmemory.core.internal.codec.EventCodec;
import dev.agentmemory.core.internal.state.PartitionState;
import dev.agentmemory.core.spi.EventStore;
import dev.agentmemory.core.spi.Partition;
import dev.agentmemory.core.spi.StoredEvent;
import dev.agentmemory.core.spi.StoredSnapshot;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.zip.CRC32C;

/**
 * Periodic snapshots of partition states, so that loading a user with a long log reads the
 * latest snapshot plus the events after it instead of the whole log. Snapshots are derived data:
 * the log stays the only source of truth, a snapshot that is missing, damaged (checksum,
 * unparseable, another format, ahead of the log) or undecryptable is ignored (logged once per
 * partition), the partition is replayed from the log and the snapshot rebuilt; {@link #verify}
 * lets the audit compare snapshot plus tail with a full replay.
 *
 * <p>Stored form: {@value #FORMAT} {@code <CRC-32C of body, 8 hex digits>:<body>}, the body
 * being the codec's binary encoding of the state's image (sealed with the engine's key when it has
 * one), its bytes as ISO-8859-1 characters (none is NUL, so a text column of any database holds
 * it). The checksum detects damage (a sealed body is also authenticated by its cipher); a
 * snapshot is derived data, and the audit compares it with a replay. A change to the image's
 * shape or its encoding must change {@link #FORMAT}: older snapshots are then ignored and rebuilt
 * ({@code snapshot-v1}, JSON, is one).
 *
 * <p>One is written when a commit makes a partition's last sequence cross a multiple of the
 * interval at that sequence, at load when the log has grown by that interval past the
 * snapshot used, and at a graceful close when the tail is long ({@link #dueAtClose}); a commit
 * that forgets anything deletes the partition's snapshots instead (no
 * snapshot keeps a value that was since forgotten). Called under the partition's lock by
 * {@link PartitionRuntime}.
 *
 * <p>The interval grows with the log ({@link #interval}): {@code every} up to {@code 8 × every}
 * events, then a quarter of the power of two at or below the sequence (in units of
 * {@code every}): with the default 1,000, snapshots at 1k, 2k, ... 8k, 10k, 12k, 14k, 16k, 20k,
 * 24k, 28k, 32k, 40k, ... A snapshot's size grows with the state, so a fixed interval would
 * write O(n²) bytes over a log of n events; this one writes four snapshots per doubling of the
 * log, O(n) bytes in all (about six times the newest snapshot), while the events after the
 * newest snapshot stay fewer than {@code every} or a quarter of the log, whichever is more.
 */
final class Snapshots {

    static final String FORMAT = "snapshot-v2:";
    /** The default interval of {@code MemoryEngine.Builder#snapshotEvery}. */
    static final int DEFAULT_EVERY = 1_000;

    private static final System.Logger LOG = System.getLogger("dev.agentmemory.core.engine.MemoryEngine");

    private final EventStore store;
    private final EventCodec codec;
    private final int every;
    /** Partitions whose damaged snapshot was logged already (log once). */
    private final Set<Partition> warned = ConcurrentHashMap.newKeySet();
    /**
     * The sequence of each loaded partition's newest snapshot this engine knows of (the one it
     * loaded from or saved; absent or 0 when none), for {@link #dueAtClose}. Another instance may
     * have saved a newer one: then a snapshot at close is only redundant, never wrong.
     */
    private final Map<Partition, Long> snapshotSeq = new ConcurrentHashMap<>();

    Snapshots(EventStore store, EventCodec codec, int every) {
        this.store = store;
        this.codec = codec;
        this.every = every;
    }

    /**
     * The partition's state: its snapshot (when one is usable) plus the stored events after it,
     * else a replay of the whole log; saves a fresh snapshot when the log has grown by an
     * interval past the one used.
     */
    PartitionState load(Partition p) {
        PartitionState state = null;
        long from = 0;
        StoredSnapshot stored = every > 0 ? storedSnapshot(p) : null;
        if (stored != null) {
            // a big snapshot takes a while to decode: meanwhile another thread reads the log's head and tail
            TailRead tail = new TailRead(p, stored.seq(), stored.payload().length() >= OVERLAP_CHARS);
            state = fromSnapshot(p, stored, tail);
            if (state == null) {
                tail.abandon();
            } else {
                from = state.lastSeq();
                try {
                    for (LoggedEvent e : tail.events()) {
                        state.apply(e);
                    }
                } catch (IllegalStateException | MemoryException e) {
                    // the tail does not follow the snapshot, or cannot be read from its sequence: the whole log decides
                    warnOnce(p, "its tail after seq " + from + " does not apply (" + e.getMessage() + ")");
                    state = null;
                    from = 0;
                }
            }
        }
        if (state == null) {
            state = new PartitionState();
            applyAll(state, store.read(p, 0));
        }
        snapshotSeq.put(p, from);
        if (every > 0 && state.lastSeq() - from >= interval(state.lastSeq())) {
            save(p, state);
        }
        return state;
    }

    /**
     * After {@code events} were committed and applied to {@code state}: deletes the partition's
     * snapshots when they forgot anything, else saves one when the partition's last sequence
     * crossed a multiple of the interval. Never throws: the events are durable whatever happens
     * to a snapshot.
     */
    void committed(Partition p, PartitionState state, List<LoggedEvent> events) {
        try {
            if (events.stream().anyMatch(e -> forgets(e.change()))) {
                snapshotSeq.put(p, 0L);
                store.deleteSnapshots(p);
                return;
            }
            long before = events.get(0).seq() - 1;
            long interval = every > 0 ? interval(state.lastSeq()) : 0;
            if (every > 0 && state.lastSeq() / interval > before / interval) {
                save(p, state);
            }
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, "snapshot of " + p + " at seq " + state.lastSeq() + " failed; "
                    + "the log is intact, the next load replays more of it", e);
        }
    }

    /**
     * The snapshot interval at sequence {@code seq}: {@code every} times the largest of 1 and a
     * quarter of the power of two at or below {@code seq / every}. Every interval divides the
     * later ones, so the multiples crossed stay multiples of every earlier interval.
     */
    long interval(long seq) {
        return every * Math.max(1, Long.highestOneBit(seq / every) / 4);
    }

    /** Deletes the partition's snapshots before a rewrite of its log (a hard forget). */
    void rewriting(Partition p) {
        snapshotSeq.put(p, 0L);
        store.deleteSnapshots(p);
    }

    /**
     * What is wrong with the partition's stored snapshot {@code stored}: empty when there is none
     * or it plus the log's events after it equals {@code replayed} (the whole stored log,
     * replayed), else a description; a wrong or unusable snapshot is deleted, to be rebuilt.
     * The snapshot must be read before the log: a snapshot is saved only after the events it
     * holds were stored, so one read first is never ahead of a log read after it, unless damaged
     * (read after, it could be another writer's newer snapshot).
     */
    String verify(Partition p, Optional<StoredSnapshot> stored, List<LoggedEvent> log, PartitionState replayed) {
        if (stored.isEmpty()) {
            return "";
        }
        long seq = stored.get().seq();
        String problem;
        try {
            PartitionState s = decode(stored.get());
            if (s.lastSeq() > replayed.lastSeq()) {
                problem = "is ahead of the log (at seq " + replayed.lastSeq() + ")";
            } else {
                for (LoggedEvent e : log) {
                    if (e.seq() > s.lastSeq()) {
                        s.apply(e);
                    }
                }
                problem = s.equals(replayed) ? "" : "plus the log after it differs from a replay of the whole log";
            }
        } catch (RuntimeException e) {
            problem = "is unusable: " + e.getMessage();
        }
        if (problem.isEmpty()) {
            return "";
        }
        snapshotSeq.put(p, 0L);
        store.deleteSnapshots(p);
        return "snapshot at seq " + seq + " " + problem + " (deleted; it is rebuilt from the log)";
    }

    /** The partition's stored snapshot, or null when it has none or it cannot be read (logged once). */
    private @Nullable StoredSnapshot storedSnapshot(Partition p) {
        try {
            return store.snapshot(p).orElse(null);
        } catch (RuntimeException e) {
            warnOnce(p, "it cannot be read (" + e.getMessage() + ")");
            return null;
        }
    }

    /** The state {@code stored} holds, or null when it is unusable or ahead of the log (logged once). */
    private @Nullable PartitionState fromSnapshot(Partition p, StoredSnapshot stored, TailRead tail) {
        try {
            PartitionState s = decode(stored);
            long last = tail.lastSequence();
            if (s.lastSeq() > last) {
                throw new MemoryException("it is at seq " + s.lastSeq() + " but the log ends at " + last);
            }
            return s;
        } catch (RuntimeException e) {
            warnOnce(p, "the one at seq " + stored.seq() + " is unusable (" + e.getMessage() + ")");
            return null;
        }
    }

    /** Snapshots of at least this many characters are decoded while another thread reads the log after them. */
    static final int OVERLAP_CHARS = 1 << 20;

    /**
     * The log's last sequence and its events after a snapshot's sequence, decoded, read in that
     * order after the snapshot (see {@link #verify} for why the order matters): on the calling
     * thread when asked, or, for a big snapshot, on a thread of its own started at once, so that the
     * store's round trips and the events' decoding overlap the snapshot's decoding. Each part
     * fails as it would on the calling thread, where it is asked for.
     */
    private final class TailRead {
        private final Partition p;
        private final long after;
        private final @Nullable Thread reader;
        private long last;
        private @Nullable List<LoggedEvent> events;
        /** What the store or the codec threw, and at which step: null while none. */
        private @Nullable Throwable lastFailed;
        private @Nullable Throwable readFailed;

        TailRead(Partition p, long after, boolean ahead) {
            this.p = p;
            this.after = after;
            Thread t = null;
            if (ahead) {
                t = new Thread(this::readAll, "agentmemory-snapshot-tail");
                t.setDaemon(true);
                t.start();
            }
            this.reader = t;
        }

        private void readAll() {
            try {
                last = store.lastSequence(p);
            } catch (Throwable e) {
                lastFailed = e;
                return;
            }
            try {
                events = decodeAll(store.read(p, after));
            } catch (Throwable e) {
                readFailed = e;
            }
        }

        /** The log's last sequence ({@link EventStore#lastSequence}). */
        long lastSequence() {
            if (reader == null) {
                return store.lastSequence(p);
            }
            awaitReader();
            rethrow(lastFailed);
            return last;
        }

        /** The events after the snapshot, decoded ({@link EventStore#read}); only after {@link #lastSequence}. */
        List<LoggedEvent> events() {
            if (reader == null) {
                return decodeAll(store.read(p, after));
            }
            awaitReader();
            rethrow(readFailed);
            return Objects.requireNonNull(events, "events");
        }

        /** Lets a reader that is no longer needed finish (the snapshot was unusable), so that no read outlives the load. */
        void abandon() {
            if (reader != null) {
                awaitReader();
            }
        }

        private void awaitReader() {
            Thread t = Objects.requireNonNull(reader, "reader");
            boolean interrupted = false;
            while (true) {
                try {
                    t.join();
                    break;
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }

        private void rethrow(@Nullable Throwable e) {
            if (e instanceof RuntimeException r) {
                throw r;
            }
            if (e instanceof Error err) {
                throw err;
            }
        }
    }

    /**
     * Whether a graceful close should snapshot the partition's {@code state} (see
     * {@code MemoryEngine#close}): when snapshots are on and the events after its newest known
     * snapshot are at least {@code every} and at least 1/{@value #CLOSE_SHARE_OF_LOG} of its log.
     * Each such event was applied in this process (replayed at load, written or caught up), so a
     * close writes at most one snapshot per {@code every} events this engine applied, each of at
     * most {@value #CLOSE_SHARE_OF_LOG} times the state those events make: many small users cost
     * it nothing (their periodic snapshots keep them under {@code every}), a large one a few
     * seconds at most, and the next process loads that user without replaying its tail.
     */
    boolean dueAtClose(Partition p, PartitionState state) {
        long tail = state.lastSeq() - snapshotSeq.getOrDefault(p, 0L);
        return every > 0 && tail >= every && tail >= state.lastSeq() / CLOSE_SHARE_OF_LOG;
    }

    /** A tail of at least this share of the log (and {@code every}) is snapshotted at close. */
    static final int CLOSE_SHARE_OF_LOG = 32;

    /**
     * Saves a snapshot of {@code state} now; returns whether the store kept it (it keeps none when
     * the log moved on). Throws what encoding or the store threw.
     */
    boolean saveNow(Partition p, PartitionState state) {
        byte[] body = codec.encodeImage(state.image());
        boolean kept = store.saveSnapshot(p, new StoredSnapshot(state.lastSeq(), FORMAT
                + checksum(body, 0, body.length) + ":" + new String(body, StandardCharsets.ISO_8859_1)));
        if (kept) {
            snapshotSeq.put(p, state.lastSeq());
        }
        return kept;
    }

    private void save(Partition p, PartitionState state) {
        try {
            saveNow(p, state);
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, "snapshot of " + p + " at seq " + state.lastSeq() + " failed; "
                    + "the log is intact, the next load replays more of it", e);
        }
    }

    /** The state a stored snapshot holds, checked against its format, checksum and sequence. */
    private PartitionState decode(StoredSnapshot stored) {
        String payload = stored.payload();
        if (!payload.startsWith(FORMAT)) {
            int colon = payload.indexOf(':');
            throw new MemoryException("format " + (colon > 0 && colon < 40 ? payload.substring(0, colon) : "unknown")
                    + " is not " + FORMAT.substring(0, FORMAT.length() - 1));
        }
        int sep = payload.indexOf(':', FORMAT.length());
        if (sep < 0) {
            throw new MemoryException("it has no checksum");
        }
        // the body is read from the characters a window at a time: no copy of it as one array
        if (!payload.substring(FORMAT.length(), sep).equals(checksum(payload, sep + 1, payload.length()))) {
            throw new MemoryException("its checksum does not match its contents");
        }
        PartitionState s = codec.decodeState(payload, sep + 1, payload.length());
        if (s.lastSeq() != stored.seq()) {
            throw new MemoryException("it holds seq " + s.lastSeq() + " but is filed at seq " + stored.seq());
        }
        return s;
    }

    private void applyAll(PartitionState state, List<StoredEvent> events) {
        for (StoredEvent e : events) {
            state.apply(codec.decode(e));
        }
    }

    private List<LoggedEvent> decodeAll(List<StoredEvent> events) {
        List<LoggedEvent> out = new ArrayList<>(events.size());
        for (StoredEvent e : events) {
            out.add(codec.decode(e));
        }
        return out;
    }

    private void warnOnce(Partition p, String why) {
        if (warned.add(p)) {
            LOG.log(System.Logger.Level.WARNING, "ignoring the snapshot of " + p + ": " + why
                    + "; replaying its log and rebuilding the snapshot");
        }
    }

    /** Whether a change removes or rewrites a value (a snapshot taken before it would keep it). */
    private static boolean forgets(Change c) {
        return c instanceof Change.RecordsForgotten || c instanceof Change.MessagesForgotten
                || c instanceof Change.UserForgotten || c instanceof Change.MessagesRedacted;
    }

    /**
     * CRC-32C of the bytes whose ISO-8859-1 characters are {@code chars[from, to)} (a character
     * above U+00FF counts as its low 8 bits), as 8 hex digits; copies a window of them at a time.
     */
    @SuppressWarnings("deprecation") // getBytes(int, int, byte[], int): each character's low 8 bits, its ISO-8859-1 byte
    private static String checksum(String chars, int from, int to) {
        CRC32C crc = new CRC32C();
        byte[] window = new byte[Math.min(CHECKSUM_WINDOW, Math.max(0, to - from))];
        for (int at = from; at < to; at += window.length) {
            int n = Math.min(window.length, to - at);
            chars.getBytes(at, at + n, window, 0);
            crc.update(window, 0, n);
        }
        return HexFormat.of().toHexDigits((int) crc.getValue());
    }

    /** Characters of a snapshot's body checked at a time. */
    private static final int CHECKSUM_WINDOW = 1 << 16;

    /** CRC-32C of {@code bytes[from, to)}, as 8 hex digits. */
    private static String checksum(byte[] bytes, int from, int to) {
        CRC32C crc = new CRC32C();
        crc.update(bytes, from, to - from);
        return HexFormat.of().toHexDigits((int) crc.getValue());
    }
}
