package dev.agentmemory.langchain4j.recall;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.ToDoubleFunction;
import org.apache.lucene.index.LeafReader;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.PostingsEnum;
import org.apache.lucene.index.Terms;
import org.apache.lucene.index.TermsEnum;
import org.apache.lucene.search.DocIdSetIterator;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.util.Bits;
import org.apache.lucene.util.BytesRef;
import org.apache.lucene.util.FixedBitSet;
import org.jspecify.annotations.Nullable;

import static dev.agentmemory.langchain4j.recall.IndexSchema.F_PARTITION;
import static dev.agentmemory.langchain4j.recall.IndexSchema.F_TEXT;

/** Term statistics inside one partition, for the supersession detectors' term weights. */
final class PartitionIdf {

    private PartitionIdf() {
    }

    /**
     * BM25 idf of terms inside one partition: its live documents, plus items written but not yet
     * visible to this searcher ({@code pending}, each one more document). The partition's
     * documents are collected once per segment; each term then costs one lookup in each segment's term dictionary (one reused
     * enumerator per segment) and a walk of its (usually short) postings, instead of a
     * conjunction query per term (which was more than half of the time spent writing an item).
     */
    static ToDoubleFunction<String> of(IndexSearcher searcher, String partition,
                                                         List<Set<String>> pending) throws IOException {
        List<LeafReaderContext> leaves = searcher.getIndexReader().leaves();
        FixedBitSet[] inPartition = new FixedBitSet[leaves.size()];
        TermsEnum[] textTerms = new TermsEnum[leaves.size()];
        int documents = pending.size();
        for (int i = 0; i < leaves.size(); i++) {
            LeafReader reader = leaves.get(i).reader();
            PostingsEnum docs = postings(termsOf(reader, F_PARTITION), new BytesRef(partition), null);
            if (docs == null) {
                continue;
            }
            textTerms[i] = termsOf(reader, F_TEXT);
            Bits live = reader.getLiveDocs();
            FixedBitSet bits = new FixedBitSet(reader.maxDoc());
            for (int d = docs.nextDoc(); d != DocIdSetIterator.NO_MORE_DOCS; d = docs.nextDoc()) {
                if (live == null || live.get(d)) {
                    bits.set(d);
                    documents++;
                }
            }
            inPartition[i] = bits;
        }
        int n = documents;
        Map<String, Double> memo = new HashMap<>();
        return term -> memo.computeIfAbsent(term, t -> {
            try {
                int df = 0;
                for (Set<String> p : pending) {
                    if (p.contains(t)) {
                        df++;
                    }
                }
                BytesRef bytes = new BytesRef(t);
                PostingsEnum docs = null;
                for (int i = 0; i < leaves.size(); i++) {
                    if (inPartition[i] == null) {
                        continue;
                    }
                    docs = postings(textTerms[i], bytes, docs);
                    if (docs == null) {
                        continue;
                    }
                    for (int d = docs.nextDoc(); d != DocIdSetIterator.NO_MORE_DOCS; d = docs.nextDoc()) {
                        if (inPartition[i].get(d)) {
                            df++;
                        }
                    }
                }
                return Math.log(1 + (n - df + 0.5) / (df + 0.5));
            } catch (IOException e) {
                throw new UncheckedIOException("reading term statistics failed", e);
            }
        });
    }

    /**
     * The same weights as {@link #of} with no pending items, but the partition's documents are
     * only collected when a first term is asked for: a read that compares no two results by
     * their terms (most reads) does not walk the partition. Valid while {@code searcher} is.
     */
    static ToDoubleFunction<String> whenAsked(IndexSearcher searcher, String partition) {
        return new ToDoubleFunction<>() {
            private @Nullable ToDoubleFunction<String> idf;

            @Override
            public double applyAsDouble(String term) {
                ToDoubleFunction<String> f = idf;
                if (f == null) {
                    try {
                        f = of(searcher, partition, List.of());
                    } catch (IOException e) {
                        throw new UncheckedIOException("reading term statistics failed", e);
                    }
                    idf = f;
                }
                return f.applyAsDouble(term);
            }
        };
    }

    /** An enumerator over one segment's terms of a field; null when the segment has none. */
    private static @Nullable TermsEnum termsOf(LeafReader reader, String field) throws IOException {
        Terms terms = reader.terms(field);
        return terms == null ? null : terms.iterator();
    }

    /** The documents (deleted ones included) holding this term; null when none. Reuses {@code reuse} when it can. */
    private static @Nullable PostingsEnum postings(@Nullable TermsEnum terms, BytesRef term,
                                                   @Nullable PostingsEnum reuse) throws IOException {
        if (terms == null || !terms.seekExact(term)) {
            return null;
        }
        return terms.postings(reuse, PostingsEnum.NONE);
    }
}
