package dev.agentmemory.core.internal.codec;

import dev.agentmemory.core.MemoryException;
import dev.agentmemory.core.MemoryKey;
import dev.agentmemory.core.MemoryRecord;
import dev.agentmemory.core.MemoryValue;
import dev.agentmemory.core.Scope;
import dev.agentmemory.core.TaskInfo;
import dev.agentmemory.core.event.StoredMessage;
import dev.agentmemory.core.internal.state.PartitionState;
import dev.agentmemory.core.internal.state.StateImage;
import dev.agentmemory.core.ledger.ActionRecord;
import org.jspecify.annotations.Nullable;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The binary form of a {@link StateImage} (what a snapshot stores): fields in a fixed order, no
 * names, no JSON tree. Repeated strings (agents, tags, enum names, session names, message types)
 * and scopes are written once and then referred to by number; a versions entry names its records
 * by their position in the record list. Numbers are unsigned LEB128 varints of the value plus one
 * (signed ones zigzagged first), strings their UTF-8 bytes after a varint header, so that no byte
 * of the output is 0: the bytes can travel as the ISO-8859-1 characters of a text column (which
 * PostgreSQL refuses to hold a NUL in). A change to this layout must change the snapshot format
 * string. Decoding fails with {@link MemoryException} on malformed input and with
 * {@link IllegalArgumentException} when a value breaks its type's rules. Internal; not thread-safe
 * (one instance per encoding or decoding).
 */
final class ImageCodec {

    private static final int HAS_VALUE = 1;
    private static final int HAS_VALID_FROM = 1 << 1;
    private static final int HAS_VALID_TO = 1 << 2;
    private static final int HAS_EXPIRES_AT = 1 << 3;
    private static final int HAS_EXTRACTION = 1 << 4;
    private static final int SENSITIVE = 1 << 5;
    private static final int ARCHIVED = 1 << 6;
    /** The record was recorded at the instant it was observed (the usual case): that instant is written once. */
    private static final int RECORDED_WHEN_OBSERVED = 1 << 7;

    /** Bytes of the image a string source is copied to at a time (a longer text widens the window). */
    private static final int WINDOW = 1 << 16;
    /** The most bytes a number takes. */
    private static final int MAX_VARLONG = 10;

    private ImageCodec() {
    }

    /** The image's bytes (none of them 0). */
    static byte[] encode(StateImage image) {
        return new Writer(image.records().size()).image(image).bytes();
    }

    /** The state whose image is in {@code bytes[from, to)} (restored through {@link PartitionState.Restoring} as it is read). */
    static PartitionState decode(byte[] bytes, int from, int to) {
        return decode(new Reader(bytes, from, to));
    }

    /**
     * The state whose image is in {@code chars[from, to)}, its bytes as ISO-8859-1 characters (a
     * character above U+00FF counts as its low 8 bits), read without a copy of the whole image.
     */
    static PartitionState decode(String chars, int from, int to) {
        return decode(new Reader(chars, from, to));
    }

    private static PartitionState decode(Reader reader) {
        try {
            return reader.state();
        } catch (IndexOutOfBoundsException e) {
            throw new MemoryException("cannot decode a snapshot: it ends early or refers to what it does not hold", e);
        }
    }

    /** Writes an image. */
    private static final class Writer {
        private byte[] buf;
        private int n;
        private final Map<String, Integer> strings = new HashMap<>();
        private final Map<Scope, Integer> scopes = new HashMap<>();

        Writer(int records) {
            buf = new byte[Math.max(1 << 12, records * 160)];
        }

        byte[] bytes() {
            return Arrays.copyOf(buf, n);
        }

        Writer image(StateImage image) {
            varlong(image.lastSeq());
            varlong(image.liveRecords());
            List<MemoryRecord> records = image.records();
            Map<String, Integer> position = new HashMap<>(records.size() * 4 / 3 + 1);
            varlong(records.size());
            for (MemoryRecord r : records) {
                position.put(r.id(), position.size());
                record(r);
            }
            varlong(image.versions().size());
            for (StateImage.Versions v : image.versions()) {
                scope(v.scope());
                varlong(v.ids().size());
                MemoryRecord first = null;
                for (String id : v.ids()) {
                    Integer at = position.get(id);
                    if (at == null) {
                        throw new MemoryException("cannot encode a snapshot: version " + id + " of " + v.key()
                                + " is not among its records");
                    }
                    if (first == null) {
                        first = records.get(at);
                    }
                    varlong(at);
                }
                if (first != null && first.key().equals(v.key())) {
                    varlong(0);
                } else {
                    varlong(1);
                    string(v.key().path());
                }
            }
            varlong(image.tasks().size());
            for (TaskInfo t : image.tasks()) {
                ref(t.session());
                string(t.task());
                string(t.title());
                ref(t.status().name());
                instant(t.changedAt());
                ref(t.heldBy());
            }
            varlong(image.aliases().size());
            image.aliases().forEach((alias, entities) -> {
                string(alias);
                varlong(entities.size());
                entities.forEach(this::string);
            });
            varlong(image.actions().size());
            for (ActionRecord a : image.actions()) {
                string(a.operationId());
                ref(a.action());
                string(a.params().json());
                MemoryValue outcome = a.outcome();
                string(outcome == null ? null : outcome.json());
                Boolean success = a.success();
                varlong(success == null ? 0 : success ? 2 : 1);
                instant(a.intendedAt());
                nullableInstant(a.completedAt());
            }
            varlong(image.sessions().size());
            for (StateImage.Session s : image.sessions()) {
                ref(s.session());
                List<StoredMessage> history = s.history();
                varlong(history == null ? 0 : history.size() + 1L);
                if (history != null) {
                    for (StoredMessage m : history) {
                        varlong(m.index());
                        signed(m.order());
                        ref(m.type());
                        string(m.json());
                        string(m.text());
                    }
                }
                List<Long> window = s.window();
                varlong(window == null ? 0 : window.size() + 1L);
                if (window != null) {
                    long previous = 0;
                    for (Long i : window) {
                        signed(i - previous);
                        previous = i;
                    }
                }
            }
            return this;
        }

        private void record(MemoryRecord r) {
            int flags = (r.value() != null ? HAS_VALUE : 0)
                    | (r.validFrom() != null ? HAS_VALID_FROM : 0) | (r.validTo() != null ? HAS_VALID_TO : 0)
                    | (r.expiresAt() != null ? HAS_EXPIRES_AT : 0) | (r.extraction() != null ? HAS_EXTRACTION : 0)
                    | (r.sensitive() ? SENSITIVE : 0) | (r.archived() ? ARCHIVED : 0)
                    | (r.recordedAt().equals(r.observedAt()) ? RECORDED_WHEN_OBSERVED : 0);
            varlong(flags);
            string(r.id());
            scope(r.scope());
            string(r.key().path());
            MemoryValue value = r.value();
            if (value != null) {
                string(value.json());
            }
            ref(r.kind().name());
            ref(r.source().name());
            ref(r.sourceRef());
            ref(r.trust().name());
            varlong(Long.reverse(Double.doubleToLongBits(r.confidence())));
            instant(r.observedAt());
            optionalInstant(r.validFrom());
            optionalInstant(r.validTo());
            optionalInstant(r.expiresAt());
            ref(r.status().name());
            varlong(r.version());
            string(r.supersedes());
            string(r.conflictsWith());
            ref(r.access().name());
            ref(r.ownerAgent());
            ref(r.writerAgent());
            varlong(r.tags().size());
            r.tags().forEach(this::ref);
            MemoryRecord.Extraction extraction = r.extraction();
            if (extraction != null) {
                ref(extraction.model());
                ref(extraction.promptVersion());
            }
            ref(r.verification().name());
            string(r.evidence());
            if ((flags & RECORDED_WHEN_OBSERVED) == 0) {
                instant(r.recordedAt());
            }
            varlong(r.seq());
        }

        private void scope(Scope s) {
            Integer known = scopes.get(s);
            if (known != null) {
                varlong(known + 1L);
                return;
            }
            scopes.put(s, scopes.size());
            varlong(0);
            ref(s.tenant());
            ref(s.user());
            ref(s.layer().name());
            ref(s.session());
            ref(s.task());
        }

        /** A string kept once: 0 for null, 1 and the string the first time, its number + 2 after. */
        private void ref(@Nullable String s) {
            if (s == null) {
                varlong(0);
                return;
            }
            Integer known = strings.get(s);
            if (known != null) {
                varlong(known + 2L);
                return;
            }
            strings.put(s, strings.size());
            varlong(1);
            string(s);
        }

        /**
         * 0 for null; else {@code 1 + (length << 1)} and the UTF-8 bytes, or, for text holding a
         * NUL character, {@code 1 + (chars << 1 | 1)} and each character as a varint.
         */
        private void string(@Nullable String s) {
            if (s == null) {
                varlong(0);
                return;
            }
            if (s.indexOf('\0') < 0) {
                byte[] b = s.getBytes(StandardCharsets.UTF_8);
                varlong(1 + ((long) b.length << 1));
                room(b.length);
                System.arraycopy(b, 0, buf, n, b.length);
                n += b.length;
            } else {
                varlong(1 + ((long) s.length() << 1 | 1));
                for (int i = 0; i < s.length(); i++) {
                    varlong(s.charAt(i));
                }
            }
        }

        private void instant(Instant t) {
            signed(t.getEpochSecond());
            varlong(t.getNano());
        }

        private void nullableInstant(@Nullable Instant t) {
            varlong(t == null ? 0 : 1);
            if (t != null) {
                instant(t);
            }
        }

        /** An instant whose presence the record's flags tell. */
        private void optionalInstant(@Nullable Instant t) {
            if (t != null) {
                instant(t);
            }
        }

        private void signed(long v) {
            varlong((v << 1) ^ (v >> 63));
        }

        /** {@code v + 1} (unsigned) in LEB128: never a 0 byte (2^64 is nine 0x80 bytes and a 0x02). */
        private void varlong(long v) {
            room(10);
            long u = v + 1;
            if (u == 0) {
                for (int i = 0; i < 9; i++) {
                    buf[n++] = (byte) 0x80;
                }
                buf[n++] = 2;
                return;
            }
            while ((u & ~0x7FL) != 0) {
                buf[n++] = (byte) ((u & 0x7F) | 0x80);
                u >>>= 7;
            }
            buf[n++] = (byte) u;
        }

        private void room(int more) {
            if (n + more > buf.length) {
                buf = Arrays.copyOf(buf, Math.max(buf.length * 2, n + more));
            }
        }
    }

    /**
     * Reads an image: from an array of its bytes, or from a string of them as ISO-8859-1
     * characters a window at a time, so that no copy of the whole image is made.
     */
    private static final class Reader {
        /** The bytes to read while {@link #pos} is below {@link #end}: all of them, or a window of {@link #chars}. */
        private byte[] buf;
        private int pos;
        private int end;
        /** The characters the window is refilled from, or null when {@link #buf} holds the whole image. */
        private final @Nullable String chars;
        /** The next character of {@link #chars} to copy into the window, and where the image ends there. */
        private int next;
        private final int last;
        /** Where {@code buf[0]} is in the image's source, for messages. */
        private int base;
        private final List<String> strings = new ArrayList<>();
        private final List<Scope> scopes = new ArrayList<>();
        /** The enum constant each string of {@link #strings} named last, by its number (names repeat on every record). */
        private Enum<?>[] constants = new Enum<?>[16];

        Reader(byte[] buf, int from, int to) {
            this.buf = buf;
            this.pos = from;
            this.end = to;
            this.chars = null;
            this.last = 0;
        }

        Reader(String chars, int from, int to) {
            this.buf = new byte[WINDOW];
            this.chars = chars;
            this.next = from;
            this.last = to;
            this.base = from;
        }

        /** Bytes of the image not read yet. */
        private int remaining() {
            return end - pos + last - next;
        }

        /** Where the next byte is in the image's source, for messages. */
        private int at() {
            return base + pos;
        }

        /**
         * Makes at least {@code need} bytes readable at {@link #pos} when the image has them: moves
         * the bytes not read yet to the start of the window (a larger one when {@code need} calls for
         * it) and appends the next characters' bytes.
         */
        @SuppressWarnings("deprecation") // getBytes(int, int, byte[], int): each character's low 8 bits, its ISO-8859-1 byte
        private void fill(int need) {
            String source = chars;
            int unread = end - pos;
            if (source == null || unread >= need || next >= last) {
                return;
            }
            byte[] window = need > buf.length ? new byte[Math.max(need, buf.length * 2)] : buf;
            System.arraycopy(buf, pos, window, 0, unread);
            buf = window;
            base += pos;
            pos = 0;
            end = unread;
            int take = Math.min(buf.length - end, last - next);
            source.getBytes(next, next + take, buf, end);
            next += take;
            end += take;
        }

        /*
         * Each section's loop reads one item per call of a method of its own: a loop that runs once
         * per load is compiled only after many iterations (on-stack replacement), a method called per
         * item after a few hundred calls.
         */

        PartitionState state() {
            long lastSeq = varlong();
            long liveRecords = varlong();
            int count = count();
            PartitionState.Restoring state = new PartitionState.Restoring(lastSeq, liveRecords, count);
            MemoryRecord[] records = new MemoryRecord[count];
            for (int i = 0; i < count; i++) {
                MemoryRecord r = record();
                records[i] = r;
                state.record(r);
            }
            versions(state, records);
            count = count();
            for (int i = 0; i < count; i++) {
                state.task(task());
            }
            count = count();
            for (int i = 0; i < count; i++) {
                alias(state);
            }
            count = count();
            state.actions(count);
            for (int i = 0; i < count; i++) {
                state.action(action());
            }
            count = count();
            for (int i = 0; i < count; i++) {
                session(state);
            }
            if (remaining() != 0) {
                throw new MemoryException("cannot decode a snapshot: " + remaining() + " bytes after its end");
            }
            return state.state();
        }

        /**
         * The versions entries, read in full first to hand each scope's keys over as one run of a
         * known length (the writer lists a scope's keys together).
         */
        private void versions(PartitionState.Restoring state, MemoryRecord[] records) {
            int count = count();
            Scope[] scopes = new Scope[count];
            MemoryKey[] keys = new MemoryKey[count];
            @SuppressWarnings("unchecked")
            ArrayList<String>[] ids = new ArrayList[count];
            for (int i = 0; i < count; i++) {
                versionsEntry(records, i, scopes, keys, ids);
            }
            for (int i = 0; i < count; ) {
                Scope scope = scopes[i];
                int runEnd = i + 1;
                while (runEnd < count && (scopes[runEnd] == scope || scopes[runEnd].equals(scope))) {
                    runEnd++;
                }
                state.scope(scope, runEnd - i);
                for (; i < runEnd; i++) {
                    state.key(keys[i], ids[i]);
                }
            }
        }

        /** Versions entry {@code i}: its scope, key and ids into {@code scopes[i]}, {@code keys[i]}, {@code ids[i]}. */
        private void versionsEntry(MemoryRecord[] records, int i, Scope[] scopes, MemoryKey[] keys,
                                   ArrayList<String>[] ids) {
            scopes[i] = scope();
            int k = count();
            ArrayList<String> versions = new ArrayList<>(k);
            ids[i] = versions;
            MemoryRecord first = null;
            for (int j = 0; j < k; j++) {
                MemoryRecord r = records[count(records.length)];
                if (first == null) {
                    first = r;
                }
                versions.add(r.id());
            }
            if (varlong() == 0) {
                if (first == null) {
                    throw new MemoryException("cannot decode a snapshot: a key without versions names no key");
                }
                keys[i] = first.key();
            } else {
                // the key instance of its first record when it names the same key
                MemoryKey key = MemoryKey.of(string());
                keys[i] = first != null && first.key().equals(key) ? first.key() : key;
            }
        }

        private TaskInfo task() {
            String session = ref();
            String task = string();
            String title = nullableString();
            TaskInfo.Status status = constant(TaskInfo.Status.class);
            Instant changedAt = instant();
            return new TaskInfo(session, task, title, status, changedAt, ref());
        }

        private void alias(PartitionState.Restoring state) {
            String alias = string();
            int k = count();
            List<String> entities = new ArrayList<>(k);
            for (int j = 0; j < k; j++) {
                entities.add(string());
            }
            state.alias(alias, entities);
        }

        private ActionRecord action() {
            String operationId = string();
            String action = ref();
            MemoryValue params = new MemoryValue(string());
            String outcome = nullableString();
            long success = varlong();
            Instant intendedAt = instant();
            Instant completedAt = varlong() == 0 ? null : instant();
            return new ActionRecord(operationId, action, params, intendedAt,
                    outcome == null ? null : new MemoryValue(outcome), success == 0 ? null : success == 2,
                    completedAt);
        }

        private void session(PartitionState.Restoring state) {
            String session = ref();
            int k = (int) varlong();
            List<StoredMessage> history = null;
            if (k > 0) {
                history = new ArrayList<>(k - 1);
                for (int j = 0; j < k - 1; j++) {
                    history.add(message());
                }
            }
            k = (int) varlong();
            List<Long> window = null;
            if (k > 0) {
                window = new ArrayList<>(k - 1);
                long previous = 0;
                for (int j = 0; j < k - 1; j++) {
                    previous += signed();
                    window.add(previous);
                }
            }
            state.session(session, history, window);
        }

        private StoredMessage message() {
            long index = varlong();
            long order = signed();
            String type = ref();
            String json = nullableString();
            return new StoredMessage(index, order, type, json, nullableString());
        }

        private MemoryRecord record() {
            int flags = (int) varlong();
            String id = string();
            Scope scope = scope();
            MemoryKey key = MemoryKey.of(string());
            MemoryValue value = (flags & HAS_VALUE) != 0 ? new MemoryValue(string()) : null;
            MemoryRecord.Kind kind = constant(MemoryRecord.Kind.class);
            MemoryRecord.Source source = constant(MemoryRecord.Source.class);
            String sourceRef = nullableRef();
            MemoryRecord.Trust trust = constant(MemoryRecord.Trust.class);
            double confidence = Double.longBitsToDouble(Long.reverse(varlong()));
            Instant observedAt = instant();
            Instant validFrom = (flags & HAS_VALID_FROM) != 0 ? instant() : null;
            Instant validTo = (flags & HAS_VALID_TO) != 0 ? instant() : null;
            Instant expiresAt = (flags & HAS_EXPIRES_AT) != 0 ? instant() : null;
            MemoryRecord.Status status = constant(MemoryRecord.Status.class);
            long version = varlong();
            String supersedes = nullableString();
            String conflictsWith = nullableString();
            MemoryRecord.Access access = constant(MemoryRecord.Access.class);
            String owner = ref();
            String writer = ref();
            int tagCount = count();
            Set<String> tags;
            if (tagCount == 0) {
                tags = Set.of();
            } else {
                String[] t = new String[tagCount];
                for (int i = 0; i < tagCount; i++) {
                    t[i] = ref();
                }
                tags = Set.of(t);
            }
            MemoryRecord.Extraction extraction = (flags & HAS_EXTRACTION) != 0
                    ? new MemoryRecord.Extraction(ref(), ref()) : null;
            MemoryRecord.Verification verification = constant(MemoryRecord.Verification.class);
            String evidence = nullableString();
            Instant recordedAt = (flags & RECORDED_WHEN_OBSERVED) != 0 ? observedAt : instant();
            long seq = varlong();
            return new MemoryRecord(id, scope, key, value, kind, source, sourceRef, trust, confidence, observedAt,
                    validFrom, validTo, expiresAt, status, version, supersedes, conflictsWith, access, owner, writer,
                    tags, extraction, verification, evidence, (flags & SENSITIVE) != 0, (flags & ARCHIVED) != 0,
                    recordedAt, seq);
        }

        private Scope scope() {
            int h = count(scopes.size() + 1);
            if (h > 0) {
                return scopes.get(h - 1);
            }
            String tenant = ref();
            String user = ref();
            Scope.Layer layer = constant(Scope.Layer.class);
            String session = nullableRef();
            Scope s = new Scope(tenant, user, layer, session, nullableRef());
            scopes.add(s);
            return s;
        }

        private <E extends Enum<E>> E constant(Class<E> type) {
            int at = refIndex();
            if (at < 0) {
                throw new MemoryException("cannot decode a snapshot: a required text is missing at byte " + at());
            }
            Enum<?> known = at < constants.length ? constants[at] : null;
            if (known == null || known.getDeclaringClass() != type) {
                known = Enum.valueOf(type, strings.get(at));
                if (at >= constants.length) {
                    constants = Arrays.copyOf(constants, Math.max(at + 1, constants.length * 2));
                }
                constants[at] = known;
            }
            return type.cast(known);
        }

        private String ref() {
            String s = nullableRef();
            if (s == null) {
                throw new MemoryException("cannot decode a snapshot: a required text is missing at byte " + at());
            }
            return s;
        }

        private @Nullable String nullableRef() {
            int at = refIndex();
            return at < 0 ? null : strings.get(at);
        }

        /** The number of the string a reference names in {@link #strings} (reading it when new), or -1 for null. */
        private int refIndex() {
            int h = count(strings.size() + 2);
            if (h == 0) {
                return -1;
            }
            if (h == 1) {
                strings.add(string());
                return strings.size() - 1;
            }
            return h - 2;
        }

        private String string() {
            String s = nullableString();
            if (s == null) {
                throw new MemoryException("cannot decode a snapshot: a required text is missing at byte " + at());
            }
            return s;
        }

        private @Nullable String nullableString() {
            long h = varlong();
            if (h == 0) {
                return null;
            }
            h -= 1;
            long length = h >>> 1;
            if (length > remaining()) {
                throw new MemoryException("cannot decode a snapshot: a text of " + length + " at byte " + at()
                        + " runs past its end");
            }
            int len = (int) length;
            if ((h & 1) == 0) {
                if (end - pos < len) {
                    fill(len);
                }
                String s = new String(buf, pos, len, StandardCharsets.UTF_8);
                pos += len;
                return s;
            }
            char[] chars = new char[len];
            for (int i = 0; i < len; i++) {
                chars[i] = (char) varlong();
            }
            return new String(chars);
        }

        private Instant instant() {
            long seconds = signed();
            return Instant.ofEpochSecond(seconds, varlong());
        }

        /** A count or position below {@code limit}. */
        private int count(int limit) {
            long v = varlong();
            if (v < 0 || v >= limit) {
                throw new MemoryException("cannot decode a snapshot: " + v + " at byte " + at() + " is out of range");
            }
            return (int) v;
        }

        /** A number of items that the bytes left could hold. */
        private int count() {
            return count(remaining() + 1);
        }

        private long signed() {
            long u = varlong();
            return (u >>> 1) ^ -(u & 1);
        }

        private long varlong() {
            if (end - pos < MAX_VARLONG) {
                fill(MAX_VARLONG);
            }
            long u = 0;
            int shift = 0;
            while (true) {
                if (pos >= end) {
                    throw new MemoryException("cannot decode a snapshot: it ends early");
                }
                byte b = buf[pos++];
                u |= (long) (b & 0x7F) << shift;
                if (b >= 0) {
                    return u - 1;
                }
                shift += 7;
                if (shift > 63) {
                    throw new MemoryException("cannot decode a snapshot: a number at byte " + at() + " is too long");
                }
            }
        }
    }
}
