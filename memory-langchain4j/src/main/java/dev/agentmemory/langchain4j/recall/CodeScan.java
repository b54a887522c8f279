package dev.agentmemory.langchain4j.recall;

import dev.agentmemory.langchain4j.recall.ExactScan.Neighbour;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.lucene.index.LeafReader;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.PostingsEnum;
import org.apache.lucene.index.Term;
import org.apache.lucene.index.Terms;
import org.apache.lucene.index.TermsEnum;
import org.apache.lucene.search.DocIdSetIterator;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.util.Bits;
import org.apache.lucene.util.BytesRef;
import org.apache.lucene.util.FixedBitSet;
import org.jspecify.annotations.Nullable;

/**
 * The vector search of large partitions: every live document of the partition (of its scope:
 * current items, or all of them) is compared with
 * the query by the Hamming distance of their sign codes ({@link VectorCodes}: a few XORs and bit
 * counts per document), the {@code shortlist} nearest by that distance have their cosine computed
 * exactly on their float vectors, and the {@code k} best of those are returned with it. No graph:
 * nothing is built when documents are written, and every document of the scope is looked at, so a
 * partition of few documents in a large index costs no recall. The codes only choose which documents are scored
 * exactly; the cosines returned are exact.
 */
final class CodeScan {

    /**
     * Documents per call of the small methods the scans' loops over a partition run in. A first
     * search in a new process meets these loops before the JIT has compiled them: a method is
     * compiled after a hundred or two calls, a loop inside one running method only after tens of
     * thousands of turns, so one loop over 100,000 documents would run interpreted for most of its
     * first pass, where a loop of calls of {@code BLOCK} documents each is compiled after a few
     * thousand. The results do not depend on it.
     */
    static final int BLOCK = 32;

    private CodeScan() {
    }

    /**
     * The {@code k} live documents of {@code partition} (its current items when
     * {@code currentOnly}: the documents {@link IndexSchema#scopeFilter} selects) nearest to
     * {@code unit} among the {@code shortlist} nearest by code, with their exact cosine, nearest
     * first (equal cosines in document order). Documents at the shortlist's boundary distance are
     * taken in document order.
     */
    static List<Neighbour> nearest(IndexSearcher searcher, String partition, boolean currentOnly, float[] unit, int k,
                                   int shortlist) throws IOException {
        if (k < 1 || shortlist < 1) {
            return List.of();
        }
        int words = VectorCodes.words(unit.length);
        long[] query = new long[words];
        VectorCodes.encode(unit, query, 0);
        List<LeafReaderContext> leaves = searcher.getIndexReader().leaves();
        int inPartitionAtMost = partitionSizeAtMost(searcher, partition);
        int[] docs = new int[inPartitionAtMost];
        short[] distance = new short[inPartitionAtMost];
        int[] histogram = new int[words * 64 + 1];
        BytesRef partitionTerm = new BytesRef(partition);
        BytesRef supersededTerm = new BytesRef(IndexSchema.SUPERSEDED);
        int[] block = new int[BLOCK];
        int n = 0;
        for (LeafReaderContext leaf : leaves) {
            SegmentScope scope = SegmentScope.of(leaf.reader(), partitionTerm, currentOnly ? supersededTerm : null);
            if (scope == null) {
                continue;
            }
            VectorCodes codes = VectorCodes.of(leaf.reader(), unit.length);
            int m;
            while ((m = scope.next(codes.present, block)) > 0) {
                n = distances(codes.codes, words, query, block, m, leaf.docBase, docs, distance, histogram, n);
            }
        }
        return rerank(leaves, docs, distance, histogram, n, shortlist, unit, k);
    }

    /**
     * The live documents of {@code partition} (its current items when {@code currentOnly}) and
     * their codes, in document order, for any number of {@link Scope#nearest} questions while the
     * searcher is held (a batch of writes asks one per item).
     */
    static Scope gather(IndexSearcher searcher, String partition, boolean currentOnly, int dimensions) throws IOException {
        int words = VectorCodes.words(dimensions);
        List<LeafReaderContext> leaves = searcher.getIndexReader().leaves();
        int inPartitionAtMost = partitionSizeAtMost(searcher, partition);
        int[] docs = new int[inPartitionAtMost];
        long[] codes = new long[Math.multiplyExact(inPartitionAtMost, words)];
        BytesRef partitionTerm = new BytesRef(partition);
        BytesRef supersededTerm = new BytesRef(IndexSchema.SUPERSEDED);
        int[] block = new int[BLOCK];
        int n = 0;
        for (LeafReaderContext leaf : leaves) {
            SegmentScope scope = SegmentScope.of(leaf.reader(), partitionTerm, currentOnly ? supersededTerm : null);
            if (scope == null) {
                continue;
            }
            VectorCodes segment = VectorCodes.of(leaf.reader(), dimensions);
            int m;
            while ((m = scope.next(segment.present, block)) > 0) {
                n = copy(segment.codes, words, block, m, leaf.docBase, docs, codes, n);
            }
        }
        return new Scope(leaves, words, docs, codes, n);
    }

    /** The documents of one partition's scope with their codes, in document order. */
    static final class Scope {
        private final List<LeafReaderContext> leaves;
        private final int words;
        private final int[] docs;
        private final long[] codes;
        private final int n;
        private final short[] distance;
        private final int[] histogram;

        private Scope(List<LeafReaderContext> leaves, int words, int[] docs, long[] codes, int n) {
            this.leaves = leaves;
            this.words = words;
            this.docs = docs;
            this.codes = codes;
            this.n = n;
            this.distance = new short[n];
            this.histogram = new int[words * 64 + 1];
        }

        /** See {@link CodeScan#nearest}. Not thread-safe (reuses its arrays). */
        List<Neighbour> nearest(float[] unit, int k, int shortlist) throws IOException {
            if (k < 1 || shortlist < 1) {
                return List.of();
            }
            long[] query = new long[words];
            VectorCodes.encode(unit, query, 0);
            Arrays.fill(histogram, 0);
            for (int from = 0; from < n; from += BLOCK) {
                distances(codes, words, query, from, Math.min(n, from + BLOCK), distance, histogram);
            }
            return rerank(leaves, docs, distance, histogram, n, shortlist, unit, k);
        }
    }

    /**
     * How many documents the partition has at most: its term's document count, deleted documents
     * included. Arrays are sized by it, not by the whole index, which may hold many users.
     */
    private static int partitionSizeAtMost(IndexSearcher searcher, String partition) throws IOException {
        return searcher.getIndexReader().docFreq(new Term(IndexSchema.F_PARTITION, partition));
    }

    /** The segment's documents of the partition (deleted ones included); null when it has none. */
    private static @Nullable DocIdSetIterator partitionDocs(LeafReader reader, BytesRef partitionTerm) throws IOException {
        PostingsEnum docs = postings(reader, IndexSchema.F_PARTITION, partitionTerm);
        if (docs != null && docs.cost() == reader.maxDoc()) {
            // the segment holds this partition alone: every document, without reading postings
            return DocIdSetIterator.all(reader.maxDoc());
        }
        return docs;
    }

    private static @Nullable PostingsEnum postings(LeafReader reader, String field, BytesRef term) throws IOException {
        Terms terms = reader.terms(field);
        if (terms == null) {
            return null;
        }
        TermsEnum te = terms.iterator();
        return te.seekExact(term) ? te.postings(null, PostingsEnum.NONE) : null;
    }

    /**
     * The {@code k} nearest to {@code unit} by exact cosine among the {@code shortlist} of the
     * {@code n} documents (increasing) nearest by code distance (whose histogram is given); at the
     * shortlist's boundary distance, the first in document order.
     */
    private static List<Neighbour> rerank(List<LeafReaderContext> leaves, int[] docs, short[] distance, int[] histogram,
                                          int n, int shortlist, float[] unit, int k) throws IOException {
        // the distance below which every document is shortlisted; at it, the first ones in document order
        int limit = 0;
        int below = 0;
        while (limit < histogram.length && below + histogram[limit] <= shortlist) {
            below += histogram[limit];
            limit++;
        }
        Shortlist list = new Shortlist(Math.min(n, shortlist), limit, shortlist - below);
        for (int from = 0; from < n; from += BLOCK) {
            list.take(docs, distance, from, Math.min(n, from + BLOCK));
        }
        return rerank(leaves, list.picked, list.size, unit, k);
    }

    /**
     * The documents of a code distance below {@code limit}, and the first {@code room} at
     * {@code limit}, in the order they are offered.
     */
    private static final class Shortlist {
        final int[] picked;
        int size;
        private final int limit;
        private int room;

        Shortlist(int capacity, int limit, int room) {
            this.picked = new int[capacity];
            this.limit = limit;
            this.room = room;
        }

        /** Offers documents {@code from} (inclusive) to {@code to} (exclusive) of {@code docs}, at their {@code distance}. */
        void take(int[] docs, short[] distance, int from, int to) {
            for (int i = from; i < to; i++) {
                int h = distance[i];
                if (h < limit) {
                    picked[size++] = docs[i];
                } else if (h == limit && room > 0) {
                    picked[size++] = docs[i];
                    room--;
                }
            }
        }
    }

    /**
     * The documents of one segment in a partition's scope: of the partition, not deleted, with a
     * code, and, unless superseded ones are wanted, current. Handed out a block at a time, in
     * document order.
     */
    private static final class SegmentScope {
        private final DocIdSetIterator inPartition;
        private final @Nullable PostingsEnum superseded;
        private final @Nullable Bits live;
        private int nextSuperseded;
        private int doc;

        private SegmentScope(DocIdSetIterator inPartition, @Nullable PostingsEnum superseded, @Nullable Bits live)
                throws IOException {
            this.inPartition = inPartition;
            this.superseded = superseded;
            this.live = live;
            this.nextSuperseded = superseded == null ? DocIdSetIterator.NO_MORE_DOCS : superseded.nextDoc();
            this.doc = inPartition.nextDoc();
        }

        /**
         * The scope in {@code reader} of the partition {@code partitionTerm} names, less the
         * documents of status {@code supersededTerm} when it is given; null when the segment has
         * none of the partition.
         */
        static @Nullable SegmentScope of(LeafReader reader, BytesRef partitionTerm, @Nullable BytesRef supersededTerm)
                throws IOException {
            // the scope filter's two terms read directly: the partition's documents, less the
            // superseded ones (every document has one status, current or superseded; these are few)
            DocIdSetIterator inPartition = partitionDocs(reader, partitionTerm);
            if (inPartition == null) {
                return null;
            }
            PostingsEnum superseded = supersededTerm == null ? null : postings(reader, IndexSchema.F_STATUS, supersededTerm);
            return new SegmentScope(inPartition, superseded, reader.getLiveDocs());
        }

        /**
         * Puts the next documents of the scope that {@code present} holds (up to the block's
         * length) in {@code block}, from its start; returns how many, 0 when there are no more.
         */
        int next(FixedBitSet present, int[] block) throws IOException {
            int m = 0;
            int d = doc;
            while (m < block.length && d != DocIdSetIterator.NO_MORE_DOCS) {
                if (d > nextSuperseded && superseded != null) {
                    nextSuperseded = superseded.advance(d);
                }
                if (d != nextSuperseded && (live == null || live.get(d)) && present.get(d)) {
                    block[m++] = d;
                }
                d = inPartition.nextDoc();
            }
            doc = d;
            return m;
        }
    }

    /**
     * Appends to {@code docs}, {@code distance} (and counts in {@code histogram}) the first
     * {@code m} documents of {@code block} (of the segment at {@code docBase}, whose codes are
     * {@code c} by document) with their distance to {@code query}, from {@code n}; returns the
     * new count.
     */
    private static int distances(long[] c, int words, long[] query, int[] block, int m, int docBase, int[] docs,
                                 short[] distance, int[] histogram, int n) {
        int at = n;
        if (words == 6) {
            // 384 dimensions (MiniLM and the like), unrolled
            long q0 = query[0];
            long q1 = query[1];
            long q2 = query[2];
            long q3 = query[3];
            long q4 = query[4];
            long q5 = query[5];
            for (int i = 0; i < m; i++) {
                int d = block[i];
                int o = d * 6;
                int h = Long.bitCount(c[o] ^ q0) + Long.bitCount(c[o + 1] ^ q1) + Long.bitCount(c[o + 2] ^ q2)
                        + Long.bitCount(c[o + 3] ^ q3) + Long.bitCount(c[o + 4] ^ q4) + Long.bitCount(c[o + 5] ^ q5);
                docs[at] = docBase + d;
                distance[at] = (short) h;
                histogram[h]++;
                at++;
            }
        } else {
            for (int i = 0; i < m; i++) {
                int d = block[i];
                int o = d * words;
                int h = 0;
                for (int w = 0; w < words; w++) {
                    h += Long.bitCount(c[o + w] ^ query[w]);
                }
                docs[at] = docBase + d;
                distance[at] = (short) h;
                histogram[h]++;
                at++;
            }
        }
        return at;
    }

    /**
     * Sets {@code distance} (and counts in {@code histogram}) of the codes {@code from}
     * (inclusive) to {@code to} (exclusive) of {@code c}, one after another, to {@code query}.
     */
    private static void distances(long[] c, int words, long[] query, int from, int to, short[] distance,
                                  int[] histogram) {
        if (words == 6) {
            // 384 dimensions (MiniLM and the like), unrolled
            long q0 = query[0];
            long q1 = query[1];
            long q2 = query[2];
            long q3 = query[3];
            long q4 = query[4];
            long q5 = query[5];
            for (int i = from, o = from * 6; i < to; i++, o += 6) {
                int h = Long.bitCount(c[o] ^ q0) + Long.bitCount(c[o + 1] ^ q1) + Long.bitCount(c[o + 2] ^ q2)
                        + Long.bitCount(c[o + 3] ^ q3) + Long.bitCount(c[o + 4] ^ q4) + Long.bitCount(c[o + 5] ^ q5);
                distance[i] = (short) h;
                histogram[h]++;
            }
        } else {
            for (int i = from, o = from * words; i < to; i++, o += words) {
                int h = 0;
                for (int w = 0; w < words; w++) {
                    h += Long.bitCount(c[o + w] ^ query[w]);
                }
                distance[i] = (short) h;
                histogram[h]++;
            }
        }
    }

    /**
     * Appends to {@code docs} and {@code codes} the first {@code m} documents of {@code block} (of
     * the segment at {@code docBase}, whose codes are {@code c} by document) and their codes, from
     * {@code n}; returns the new count.
     */
    private static int copy(long[] c, int words, int[] block, int m, int docBase, int[] docs, long[] codes, int n) {
        for (int i = 0; i < m; i++) {
            System.arraycopy(c, block[i] * words, codes, (n + i) * words, words);
            docs[n + i] = docBase + block[i];
        }
        return n + m;
    }

    /** The {@code k} of the first {@code m} documents of {@code picked} (increasing) nearest to {@code unit} by exact cosine. */
    private static List<Neighbour> rerank(List<LeafReaderContext> leaves, int[] picked, int m, float[] unit, int k)
            throws IOException {
        double[] cosine = new double[m];
        int leafIndex = -1;
        SegmentVectors vectors = null;
        int docBase = 0;
        for (int i = 0; i < m; i++) {
            int doc = picked[i];
            if (vectors == null || (leafIndex + 1 < leaves.size() && doc >= leaves.get(leafIndex + 1).docBase)) {
                do {
                    leafIndex++;
                } while (leafIndex + 1 < leaves.size() && doc >= leaves.get(leafIndex + 1).docBase);
                LeafReaderContext leaf = leaves.get(leafIndex);
                vectors = SegmentVectors.of(leaf.reader());
                docBase = leaf.docBase;
            }
            float[] v = vectors.vector(doc - docBase);
            if (v == null) {
                throw new IllegalStateException("recall index document " + doc + " has a code but no vector");
            }
            cosine[i] = Vectors.cosine(unit, v);
        }
        // the k best by (cosine descending, document ascending), kept sorted by insertion: the same
        // first k as sorting all m, without sorting them (k is small beside the shortlist)
        int keep = Math.min(k, m);
        int[] best = new int[keep];
        int size = 0;
        for (int i = 0; i < m; i++) {
            if (size == keep && !before(cosine, picked, i, best[size - 1])) {
                continue;
            }
            int at = size == keep ? size - 1 : size++;
            while (at > 0 && before(cosine, picked, i, best[at - 1])) {
                best[at] = best[at - 1];
                at--;
            }
            best[at] = i;
        }
        List<Neighbour> out = new ArrayList<>(keep);
        for (int i = 0; i < size; i++) {
            out.add(new Neighbour(picked[best[i]], cosine[best[i]]));
        }
        return out;
    }

    /** Whether shortlisted document {@code a} ranks before {@code b}: a greater cosine, or the same and a lower document. */
    private static boolean before(double[] cosine, int[] picked, int a, int b) {
        int c = Double.compare(cosine[a], cosine[b]);
        return c > 0 || (c == 0 && picked[a] < picked[b]);
    }
}
