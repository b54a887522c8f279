package dev.agentmemory.langchain4j.recall;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.apache.lucene.index.BinaryDocValues;
import org.apache.lucene.index.FloatVectorValues;
import org.apache.lucene.index.LeafReader;
import org.apache.lucene.search.DocIdSetIterator;
import org.apache.lucene.util.BytesRef;
import org.jspecify.annotations.Nullable;

/**
 * The stored vectors of one segment, read by document. A vector is a binary doc value
 * ({@link IndexSchema#F_VECTOR_DATA}: its floats, little-endian), the same API on Lucene 9 and 10.
 * Documents written by an earlier version hold it in a Lucene vector field ({@link IndexSchema#F_VECTOR},
 * with an HNSW graph) instead, read here too, the same way on Lucene 9 and Lucene 10
 * (one jar runs on either; the build tests both, see the {@code lucene10} profile). Lucene 9's
 * {@code FloatVectorValues} is itself the iterator over documents and returns the current
 * document's vector; Lucene 10's hands out an iterator whose position is an ordinal and returns
 * the vector of an ordinal. Neither shape compiles against the other version, so the two calls
 * that differ are bound once, when this class loads, to whichever the Lucene on the class path
 * has (constant method handles: the JIT inlines them like direct calls).
 *
 * <p>Forward only, like every Lucene iterator: documents are asked for in increasing order.
 */
final class SegmentVectors {

    /** True on Lucene 10 and later (vectors by ordinal through an iterator). */
    static final boolean ORDINALS;
    /** Lucene 10: {@code KnnVectorValues.iterator()}; Lucene 9: {@code FloatVectorValues.vectorValue()}. */
    private static final MethodHandle ITERATOR_OR_CURRENT;
    /** Lucene 10: {@code DocIndexIterator.index()} and {@code FloatVectorValues.vectorValue(int)}. */
    private static final @Nullable MethodHandle ORDINAL;
    private static final @Nullable MethodHandle VECTOR_AT;

    static {
        MethodHandles.Lookup lookup = MethodHandles.publicLookup();
        MethodHandle vectorAt = find(lookup, MethodType.methodType(float[].class, int.class), "vectorValue");
        try {
            if (vectorAt != null) {
                Class<?> docIndexIterator = Class.forName("org.apache.lucene.index.KnnVectorValues$DocIndexIterator");
                ORDINALS = true;
                ITERATOR_OR_CURRENT = lookup.findVirtual(FloatVectorValues.class, "iterator",
                        MethodType.methodType(docIndexIterator)).asType(
                        MethodType.methodType(DocIdSetIterator.class, FloatVectorValues.class));
                ORDINAL = lookup.findVirtual(docIndexIterator, "index", MethodType.methodType(int.class))
                        .asType(MethodType.methodType(int.class, DocIdSetIterator.class));
                VECTOR_AT = vectorAt;
            } else {
                ORDINALS = false;
                ITERATOR_OR_CURRENT = lookup.findVirtual(FloatVectorValues.class, "vectorValue",
                        MethodType.methodType(float[].class));
                ORDINAL = null;
                VECTOR_AT = null;
            }
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError("unsupported Lucene version: " + e);
        }
    }

    private final @Nullable BinaryDocValues data;
    private final @Nullable FloatVectorValues values;
    private final @Nullable DocIdSetIterator docs;
    private float[] buffer = new float[0];

    private SegmentVectors(@Nullable BinaryDocValues data, @Nullable FloatVectorValues values) throws IOException {
        this.data = data;
        this.values = values;
        this.docs = values == null ? null
                : ORDINALS ? (DocIdSetIterator) invoke(ITERATOR_OR_CURRENT, values) : (DocIdSetIterator) (Object) values;
    }

    /** The vectors of this segment (of documents of either layout). */
    static SegmentVectors of(LeafReader reader) throws IOException {
        return new SegmentVectors(reader.getBinaryDocValues(IndexSchema.F_VECTOR_DATA),
                reader.getFloatVectorValues(IndexSchema.F_VECTOR));
    }

    /**
     * The vector of document {@code doc} of the segment (not a copy: valid until the next call),
     * or null when it has none. {@code doc} must not be below the one asked for before.
     */
    float @Nullable [] vector(int doc) throws IOException {
        if (data != null && data.advanceExact(doc)) {
            BytesRef b = data.binaryValue();
            int n = b.length / Float.BYTES;
            if (buffer.length != n) {
                buffer = new float[n];
            }
            // one bulk copy of the bits: no loop of 384 reads to interpret before the JIT compiles it
            ByteBuffer.wrap(b.bytes, b.offset, n * Float.BYTES).order(ByteOrder.LITTLE_ENDIAN).asFloatBuffer().get(buffer);
            return buffer;
        }
        return legacyVector(doc);
    }

    private float @Nullable [] legacyVector(int doc) throws IOException {
        FloatVectorValues values = this.values;
        DocIdSetIterator docs = this.docs;
        if (values == null || docs == null) {
            return null;
        }
        int at = docs.docID();
        if (at < doc) {
            at = docs.advance(doc);
        }
        if (at != doc) {
            return null;
        }
        if (ORDINALS) {
            int ordinal = (int) invoke(requireBound(ORDINAL), docs);
            return (float[]) invokeWithInt(requireBound(VECTOR_AT), values, ordinal);
        }
        return (float[]) invoke(ITERATOR_OR_CURRENT, values);
    }

    private static @Nullable MethodHandle find(MethodHandles.Lookup lookup, MethodType type, String name) {
        try {
            return lookup.findVirtual(FloatVectorValues.class, name, type);
        } catch (NoSuchMethodException | IllegalAccessException absent) {
            return null;
        }
    }

    private static MethodHandle requireBound(@Nullable MethodHandle h) {
        if (h == null) {
            throw new IllegalStateException("not bound on this Lucene version");
        }
        return h;
    }

    private static Object invoke(MethodHandle h, Object target) throws IOException {
        try {
            return h.invoke(target);
        } catch (IOException | RuntimeException | Error e) {
            throw e;
        } catch (Throwable e) {
            throw new UncheckedIOException(new IOException("reading a vector failed", e));
        }
    }

    private static Object invokeWithInt(MethodHandle h, Object target, int arg) throws IOException {
        try {
            return h.invoke(target, arg);
        } catch (IOException | RuntimeException | Error e) {
            throw e;
        } catch (Throwable e) {
            throw new UncheckedIOException(new IOException("reading a vector failed", e));
        }
    }
}
