package dev.agentmemory.langchain4j.recall;

import java.io.IOException;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.lucene.index.BinaryDocValues;
import org.apache.lucene.index.IndexReader;
import org.apache.lucene.index.LeafReader;
import org.apache.lucene.search.DocIdSetIterator;
import org.apache.lucene.util.BytesRef;
import org.apache.lucene.util.FixedBitSet;
import org.jspecify.annotations.Nullable;

/**
 * The sign codes of one segment's vectors, in memory: bit j of a document's code is set when
 * dimension j of its unit vector is positive, so the number of bits two codes differ in (their
 * Hamming distance) grows with the angle between the vectors. A 384-dimension vector is six
 * {@code long}s. Each document's code is written with it ({@link IndexSchema#F_CODE}, 8 bytes per
 * 64 dimensions), so opening a segment reads them rather than the float vectors; a document
 * written before codes existed (an index of an earlier version) gets its code computed from its
 * vector when its segment is first searched.
 *
 * <p>Loaded once per segment core and kept until the segment is closed (Lucene's core cache key:
 * the codes do not change with deletes, which {@link CodeScan} skips by the live docs).
 */
final class VectorCodes {

    /** Per segment core; an entry leaves when Lucene closes that core. */
    private static final Map<IndexReader.CacheKey, VectorCodes> CACHE = new ConcurrentHashMap<>();

    /** {@code long}s per code. */
    final int words;
    /** The codes, {@link #words} per document, by document number; zeros for a document without a vector. */
    final long[] codes;
    /** Documents that have a vector. */
    final FixedBitSet present;

    private VectorCodes(int words, long[] codes, FixedBitSet present) {
        this.words = words;
        this.codes = codes;
        this.present = present;
    }

    /** How many {@code long}s a code of {@code dimensions} dimensions takes. */
    static int words(int dimensions) {
        return (dimensions + 63) >>> 6;
    }

    /** The code of a unit vector, in {@code out} from {@code offset}. */
    static void encode(float[] unit, long[] out, int offset) {
        int words = words(unit.length);
        for (int w = 0; w < words; w++) {
            long bits = 0;
            int end = Math.min(unit.length, (w + 1) << 6);
            for (int j = w << 6; j < end; j++) {
                if (unit[j] > 0) {
                    bits |= 1L << (j & 63);
                }
            }
            out[offset + w] = bits;
        }
    }

    /** The code of a unit vector as the bytes of its doc value (little-endian longs). */
    static byte[] encode(float[] unit) {
        long[] code = new long[words(unit.length)];
        encode(unit, code, 0);
        byte[] bytes = new byte[code.length * Long.BYTES];
        for (int w = 0; w < code.length; w++) {
            for (int b = 0; b < Long.BYTES; b++) {
                bytes[w * Long.BYTES + b] = (byte) (code[w] >>> (8 * b));
            }
        }
        return bytes;
    }

    /**
     * The codes of {@code reader}'s segment for vectors of {@code dimensions} dimensions, loaded on
     * first use and shared while the segment is open.
     */
    static VectorCodes of(LeafReader reader, int dimensions) throws IOException {
        IndexReader.CacheHelper helper = reader.getCoreCacheHelper();
        if (helper == null) {
            return load(reader, dimensions);
        }
        IndexReader.CacheKey key = helper.getKey();
        VectorCodes codes = CACHE.get(key);
        if (codes != null && codes.words == words(dimensions)) {
            return codes;
        }
        VectorCodes loaded = load(reader, dimensions);
        if (CACHE.put(key, loaded) == null) {
            helper.addClosedListener(CACHE::remove);
        }
        return loaded;
    }

    /** How many segments have their codes in memory (for tests). */
    static int cachedSegments() {
        return CACHE.size();
    }

    private static VectorCodes load(LeafReader reader, int dimensions) throws IOException {
        int words = words(dimensions);
        int maxDoc = reader.maxDoc();
        long[] codes = new long[Math.multiplyExact(maxDoc, words)];
        FixedBitSet present = new FixedBitSet(Math.max(1, maxDoc));
        BinaryDocValues stored = reader.getBinaryDocValues(IndexSchema.F_CODE);
        if (stored != null) {
            int d = stored.nextDoc();
            while (d != DocIdSetIterator.NO_MORE_DOCS) {
                d = read(stored, d, dimensions, codes, present);
            }
        }
        int found = present.cardinality();
        if (found < maxDoc) {
            // documents of an earlier layout: a vector without a code
            fillFromVectors(reader, codes, present, words);
        }
        return new VectorCodes(words, codes, present);
    }

    /**
     * Decodes the stored codes of up to {@link CodeScan#BLOCK} documents from {@code d}, where
     * {@code stored} is, into {@code codes} and {@code present}; returns the document after them
     * ({@link DocIdSetIterator#NO_MORE_DOCS} at the end). A block per call: see {@link CodeScan#BLOCK}.
     */
    private static int read(BinaryDocValues stored, int d, int dimensions, long[] codes, FixedBitSet present)
            throws IOException {
        int words = words(dimensions);
        int doc = d;
        for (int i = 0; i < CodeScan.BLOCK && doc != DocIdSetIterator.NO_MORE_DOCS; i++) {
            BytesRef b = stored.binaryValue();
            if (b.length != words * Long.BYTES) {
                throw new IllegalStateException("recall index code of document " + doc + " has " + b.length
                        + " bytes, expected " + words * Long.BYTES + " for " + dimensions + " dimensions");
            }
            for (int w = 0; w < words; w++) {
                codes[doc * words + w] = littleEndianLong(b.bytes, b.offset + w * Long.BYTES);
            }
            present.set(doc);
            doc = stored.nextDoc();
        }
        return doc;
    }

    /**
     * The {@code long} of the 8 bytes at {@code at}, little-endian: written out, which costs less
     * than a byte array view's {@code VarHandle} before the JIT has compiled either.
     */
    private static long littleEndianLong(byte[] b, int at) {
        return (b[at] & 0xFFL) | (b[at + 1] & 0xFFL) << 8 | (b[at + 2] & 0xFFL) << 16 | (b[at + 3] & 0xFFL) << 24
                | (b[at + 4] & 0xFFL) << 32 | (b[at + 5] & 0xFFL) << 40 | (b[at + 6] & 0xFFL) << 48
                | (b[at + 7] & 0xFFL) << 56;
    }

    private static void fillFromVectors(LeafReader reader, long[] codes, FixedBitSet present, int words) throws IOException {
        SegmentVectors vectors = SegmentVectors.of(reader);
        for (int d = 0; d < reader.maxDoc(); d++) {
            if (present.get(d)) {
                continue;
            }
            float @Nullable [] v = vectors.vector(d);
            if (v != null) {
                if (words(v.length) != words) {
                    throw new IllegalStateException("recall index document " + d + " has " + v.length
                            + " dimensions, its code " + words + " words");
                }
                encode(v, codes, d * words);
                present.set(d);
            }
        }
    }
}
