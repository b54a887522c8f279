package dev.agentmemory.langchain4j.recall;

import java.io.IOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.Field;
import org.apache.lucene.document.BinaryDocValuesField;
import org.apache.lucene.document.NumericDocValuesField;
import org.apache.lucene.document.StoredField;
import org.apache.lucene.document.StringField;
import org.apache.lucene.document.TextField;
import org.apache.lucene.index.FieldInfo;
import org.apache.lucene.index.StoredFieldVisitor;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.ReaderUtil;
import org.apache.lucene.index.StoredFields;
import org.apache.lucene.index.Term;
import org.apache.lucene.search.BooleanClause;
import org.apache.lucene.search.BooleanQuery;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.TermQuery;
import org.apache.lucene.search.TopDocs;
import org.apache.lucene.util.BytesRef;
import org.jspecify.annotations.Nullable;

/**
 * The Lucene schema of the recall index: the fields of an item's document, how an item becomes a
 * document and is read back, and the partition filter every query carries.
 */
final class IndexSchema {

    static final String F_ID = "id";
    static final String F_PARTITION = "partition";
    static final String F_TEXT = "text";
    /**
     * A Lucene vector field with an HNSW graph: where an earlier version kept an item's unit vector.
     * Still read ({@link SegmentVectors}), no longer written.
     */
    static final String F_VECTOR = "vector";
    /** Doc values: the item's unit vector, its floats little-endian (read back by {@link SegmentVectors}). */
    static final String F_VECTOR_DATA = "vector_f";
    /** Doc values: the sign code of the item's unit vector ({@link VectorCodes}), searched by {@link CodeScan}. */
    static final String F_CODE = "vector_code";
    static final String F_TIME = "time";
    /** Doc values for ranking without loading stored fields: time (seconds, nanos) and a superseded flag. */
    static final String F_TIME_SECONDS = "time_s";
    static final String F_TIME_NANOS = "time_n";
    static final String F_SUPERSEDED_FLAG = "superseded_flag";
    /** Doc values: a hash of the item's thread ({@link HybridIndex#THREAD_ATTRIBUTE}), {@link #NO_THREAD} without one. */
    static final String F_THREAD = "thread_h";
    static final long NO_THREAD = 0;
    static final String F_ATTR_KEY = "attr_k";
    static final String F_ATTR_VALUE = "attr_v";
    static final String F_STATUS = "status";
    static final String F_SUPERSEDED_BY = "superseded_by";
    static final String CURRENT = "current";
    static final String SUPERSEDED = "superseded";

    private IndexSchema() {
    }

    /** An item as stored, without its vector. */
    record Stored(String id, String partition, String text, Instant time, Map<String, String> attributes,
                          @Nullable String supersededBy) {
        Stored withSupersededBy(@Nullable String by) {
            return new Stored(id, partition, text, time, attributes, by);
        }
    }

    /** Whether two items were asserted by the same party ({@link HybridIndex#SPEAKER_ATTRIBUTE}). */
    static boolean sameSpeaker(Map<String, String> a, Map<String, String> b) {
        return java.util.Objects.equals(a.get(HybridIndex.SPEAKER_ATTRIBUTE), b.get(HybridIndex.SPEAKER_ATTRIBUTE));
    }

    /** Restricts a query to one partition, and to current items when {@code currentOnly}. */
    static Query scopeFilter(String partition, boolean currentOnly) {
        BooleanQuery.Builder b = new BooleanQuery.Builder()
                .add(new TermQuery(new Term(F_PARTITION, partition)), BooleanClause.Occur.FILTER);
        if (currentOnly) {
            b.add(new TermQuery(new Term(F_STATUS, CURRENT)), BooleanClause.Occur.FILTER);
        }
        return b.build();
    }

    static Document toDocument(Stored s, float[] unit) {
        Document d = new Document();
        d.add(new StringField(F_ID, s.id(), Field.Store.YES));
        d.add(new StringField(F_PARTITION, s.partition(), Field.Store.YES));
        d.add(new TextField(F_TEXT, s.text(), Field.Store.YES));
        d.add(new BinaryDocValuesField(F_VECTOR_DATA, new BytesRef(floatBytes(unit))));
        d.add(new BinaryDocValuesField(F_CODE, new BytesRef(VectorCodes.encode(unit))));
        d.add(new StoredField(F_TIME, s.time().getEpochSecond()));
        d.add(new StoredField(F_TIME, s.time().getNano()));
        d.add(new NumericDocValuesField(F_TIME_SECONDS, s.time().getEpochSecond()));
        d.add(new NumericDocValuesField(F_TIME_NANOS, s.time().getNano()));
        d.add(new NumericDocValuesField(F_THREAD, threadHash(s.attributes())));
        // in key order: see attributesInKeyOrder
        for (Map.Entry<String, String> e : attributesInKeyOrder(s.attributes()).entrySet()) {
            d.add(new StoredField(F_ATTR_KEY, e.getKey()));
            d.add(new StoredField(F_ATTR_VALUE, e.getValue()));
        }
        d.add(new StringField(F_STATUS, s.supersededBy() == null ? CURRENT : SUPERSEDED, Field.Store.NO));
        if (s.supersededBy() != null) {
            d.add(new StringField(F_SUPERSEDED_BY, s.supersededBy(), Field.Store.YES));
            d.add(new NumericDocValuesField(F_SUPERSEDED_FLAG, 1));
        }
        return d;
    }

    /**
     * The attributes in key order. An item's attributes are a {@link Map#copyOf} copy, whose
     * iteration order is drawn anew in every JVM; written in that order, the same items give
     * stored fields in another order from one run to the next, so segments of other compressed
     * sizes, other merges chosen by the (size-based) merge policy, and so other term statistics
     * (which count deleted documents until a merge drops them): on Lucene 10.3 the same writes in
     * one thread with serial merges gave segments of 3,295 / 842 / 130 documents in one run and
     * 3,253 / 955 / 63 in another, and BM25 scores 1e-5 apart.
     */
    static Map<String, String> attributesInKeyOrder(Map<String, String> attributes) {
        return attributes.size() < 2 ? attributes : new TreeMap<>(attributes);
    }

    /** The floats of a vector as little-endian bytes (the doc value {@link #F_VECTOR_DATA}). */
    static byte[] floatBytes(float[] v) {
        java.nio.ByteBuffer b = java.nio.ByteBuffer.allocate(v.length * Float.BYTES).order(java.nio.ByteOrder.LITTLE_ENDIAN);
        b.asFloatBuffer().put(v);
        return b.array();
    }

    /**
     * A 64-bit FNV-1a hash of an item's thread, odd (so never {@link #NO_THREAD}); {@link #NO_THREAD}
     * for an item without one.
     */
    static long threadHash(Map<String, String> attributes) {
        String thread = attributes.get(HybridIndex.THREAD_ATTRIBUTE);
        if (thread == null) {
            return NO_THREAD;
        }
        long h = 0xcbf29ce484222325L;
        for (int i = 0; i < thread.length(); i++) {
            h ^= thread.charAt(i);
            h *= 0x100000001b3L;
        }
        return h | 1L;
    }

    /** The document of the item with this id, or -1. */
    static int docOf(IndexSearcher searcher, String id) throws IOException {
        TopDocs td = searcher.search(new TermQuery(new Term(F_ID, id)), 1);
        return td.scoreDocs.length == 0 ? -1 : td.scoreDocs[0].doc;
    }

    static Stored load(StoredFields stored, int doc) throws IOException {
        // straight into the item's values: no Lucene Document, no field objects
        StoredReader reader = new StoredReader();
        stored.document(doc, reader);
        return reader.item(doc);
    }

    /** Collects the stored fields of one item as Lucene visits them. */
    private static final class StoredReader extends StoredFieldVisitor {
        private @Nullable String id;
        private @Nullable String partition;
        private @Nullable String text;
        private @Nullable String supersededBy;
        private final long[] time = new long[2];
        private int times;
        private final List<String> keys = new ArrayList<>(4);
        private final List<String> values = new ArrayList<>(4);

        @Override
        public Status needsField(FieldInfo field) {
            return Status.YES;
        }

        @Override
        public void stringField(FieldInfo field, String value) {
            switch (field.name) {
                case F_ID -> id = id == null ? value : id;
                case F_PARTITION -> partition = partition == null ? value : partition;
                case F_TEXT -> text = text == null ? value : text;
                case F_SUPERSEDED_BY -> supersededBy = supersededBy == null ? value : supersededBy;
                case F_ATTR_KEY -> keys.add(value);
                case F_ATTR_VALUE -> values.add(value);
                default -> {
                }
            }
        }

        @Override
        public void intField(FieldInfo field, int value) {
            number(field, value);
        }

        @Override
        public void longField(FieldInfo field, long value) {
            number(field, value);
        }

        private void number(FieldInfo field, long value) {
            if (field.name.equals(F_TIME) && times < time.length) {
                time[times++] = value;
            }
        }

        Stored item(int doc) {
            if (id == null || partition == null || text == null || times < 2 || keys.size() != values.size()) {
                throw new IllegalStateException("recall index document " + doc + " lacks stored fields of an item");
            }
            Map<String, String> attrs = new HashMap<>();
            for (int i = 0; i < keys.size(); i++) {
                attrs.put(keys.get(i), values.get(i));
            }
            return new Stored(id, partition, text, Instant.ofEpochSecond(time[0], time[1]), attrs, supersededBy);
        }
    }

    static float[] vectorOf(IndexSearcher searcher, int doc) throws IOException {
        List<LeafReaderContext> leaves = searcher.getIndexReader().leaves();
        LeafReaderContext leaf = leaves.get(ReaderUtil.subIndex(doc, leaves));
        float[] v = SegmentVectors.of(leaf.reader()).vector(doc - leaf.docBase);
        if (v == null) {
            throw new IllegalStateException("recall index document " + doc + " has no vector");
        }
        return v.clone();
    }
}
