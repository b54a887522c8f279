package dev.agentmemory.langchain4j.recall;

import dev.agentmemory.langchain4j.recall.ExactScan.Neighbour;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.search.DocIdSetIterator;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.ScoreMode;
import org.apache.lucene.search.Scorer;
import org.apache.lucene.search.Weight;
import org.apache.lucene.util.Bits;

/**
 * The vector search of large partitions: every live document the filter selects is compared with
 * the query by the Hamming distance of their sign codes ({@link VectorCodes}: a few XORs and bit
 * counts per document), the {@code shortlist} nearest by that distance have their cosine computed
 * exactly on their float vectors, and the {@code k} best of those are returned with it. No graph:
 * nothing is built when documents are written, and every document of the filter is looked at, so a
 * filter matching few documents costs no recall. The codes only choose which documents are scored
 * exactly; the cosines returned are exact.
 */
final class CodeScan {

    private CodeScan() {
    }

    /**
     * The {@code k} live documents of {@code filter} nearest to {@code unit} among the
     * {@code shortlist} nearest by code, with their exact cosine, nearest first (equal cosines in
     * document order). Documents at the shortlist's boundary distance are taken in document order.
     */
    static List<Neighbour> nearest(IndexSearcher searcher, Query filter, float[] unit, int k, int shortlist)
            throws IOException {
        if (k < 1 || shortlist < 1) {
            return List.of();
        }
        int words = VectorCodes.words(unit.length);
        long[] query = new long[words];
        VectorCodes.encode(unit, query, 0);
        Weight weight = searcher.createWeight(searcher.rewrite(filter), ScoreMode.COMPLETE_NO_SCORES, 1f);
        List<LeafReaderContext> leaves = searcher.getIndexReader().leaves();
        int maxDoc = searcher.getIndexReader().maxDoc();
        int[] docs = new int[maxDoc];
        short[] distance = new short[maxDoc];
        int[] histogram = new int[words * 64 + 1];
        int n = 0;
        for (LeafReaderContext leaf : leaves) {
            Scorer scorer = weight.scorer(leaf);
            if (scorer == null) {
                continue;
            }
            VectorCodes codes = VectorCodes.of(leaf.reader(), unit.length);
            long[] c = codes.codes;
            Bits live = leaf.reader().getLiveDocs();
            DocIdSetIterator it = scorer.iterator();
            for (int d = it.nextDoc(); d != DocIdSetIterator.NO_MORE_DOCS; d = it.nextDoc()) {
                if ((live != null && !live.get(d)) || !codes.present.get(d)) {
                    continue;
                }
                int h = 0;
                for (int w = 0, o = d * words; w < words; w++, o++) {
                    h += Long.bitCount(c[o] ^ query[w]);
                }
                docs[n] = leaf.docBase + d;
                distance[n] = (short) h;
                histogram[h]++;
                n++;
            }
        }
        // the distance below which every document is shortlisted; at it, the first ones in document order
        int limit = 0;
        int below = 0;
        while (limit < histogram.length && below + histogram[limit] <= shortlist) {
            below += histogram[limit];
            limit++;
        }
        int room = shortlist - below;
        int[] picked = new int[Math.min(n, shortlist)];
        int m = 0;
        for (int i = 0; i < n; i++) {
            int h = distance[i];
            if (h < limit) {
                picked[m++] = docs[i];
            } else if (h == limit && room > 0) {
                picked[m++] = docs[i];
                room--;
            }
        }
        return rerank(leaves, picked, m, unit, k);
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
        Integer[] order = new Integer[m];
        for (int i = 0; i < m; i++) {
            order[i] = i;
        }
        Arrays.sort(order, (a, b) -> {
            int c = Double.compare(cosine[b], cosine[a]);
            return c != 0 ? c : Integer.compare(picked[a], picked[b]);
        });
        List<Neighbour> out = new ArrayList<>(Math.min(k, m));
        for (int i = 0; i < Math.min(k, m); i++) {
            out.add(new Neighbour(picked[order[i]], cosine[order[i]]));
        }
        return out;
    }
}
