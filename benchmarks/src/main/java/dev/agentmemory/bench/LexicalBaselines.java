package dev.agentmemory.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.apache.lucene.analysis.TokenStream;
import org.apache.lucene.analysis.en.EnglishAnalyzer;
import org.apache.lucene.analysis.tokenattributes.CharTermAttribute;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.Field;
import org.apache.lucene.document.StoredField;
import org.apache.lucene.document.TextField;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.index.Term;
import org.apache.lucene.search.BooleanClause;
import org.apache.lucene.search.BooleanQuery;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.ScoreDoc;
import org.apache.lucene.search.TermQuery;
import org.apache.lucene.store.ByteBuffersDirectory;

/**
 * The two plain baselines over one user's turns: BM25 alone (Lucene, {@link EnglishAnalyzer},
 * default {@code BM25Similarity}) and the plain fusion of BM25 and cosine, each scaled to [0, 1]
 * per query (min-max over all turns, a turn without a matching term has BM25 0) and weighted
 * {@value #LEXICAL_WEIGHT} : {@value #DENSE_WEIGHT}.
 */
final class LexicalBaselines implements AutoCloseable {

    static final String BM25 = "bm25";
    static final String FUSION = "fusion-0.6/0.4";
    static final double LEXICAL_WEIGHT = 0.6;
    static final double DENSE_WEIGHT = 0.4;

    private final EnglishAnalyzer analyzer = new EnglishAnalyzer();
    private final ByteBuffersDirectory directory = new ByteBuffersDirectory();
    private final List<String> ids;
    private final List<float[]> vectors;
    private final DirectoryReader reader;
    private final IndexSearcher searcher;

    /** Indexes the turns ({@code ids}, {@code texts} and {@code vectors} at the same positions). */
    LexicalBaselines(List<String> ids, List<String> texts, List<float[]> vectors) {
        this.ids = List.copyOf(ids);
        this.vectors = List.copyOf(vectors);
        try (IndexWriter writer = new IndexWriter(directory, new IndexWriterConfig(analyzer))) {
            for (int i = 0; i < ids.size(); i++) {
                Document d = new Document();
                d.add(new StoredField("pos", i));
                d.add(new TextField("text", texts.get(i), Field.Store.NO));
                writer.addDocument(d);
            }
            writer.commit();
            this.reader = DirectoryReader.open(directory);
        } catch (IOException e) {
            throw new UncheckedIOException("indexing the baseline failed", e);
        }
        this.searcher = new IndexSearcher(reader);
    }

    /** BM25 score of every turn for the question (0 when no term matches), by position. */
    private double[] bm25(String question) {
        double[] scores = new double[ids.size()];
        BooleanQuery.Builder b = new BooleanQuery.Builder();
        int clauses = 0;
        try (TokenStream ts = analyzer.tokenStream("text", question)) {
            CharTermAttribute term = ts.addAttribute(CharTermAttribute.class);
            ts.reset();
            while (ts.incrementToken()) {
                b.add(new TermQuery(new Term("text", term.toString())), BooleanClause.Occur.SHOULD);
                clauses++;
            }
            ts.end();
            if (clauses == 0) {
                return scores;
            }
            for (ScoreDoc sd : searcher.search(b.build(), ids.size()).scoreDocs) {
                int pos = searcher.storedFields().document(sd.doc).getField("pos").numericValue().intValue();
                scores[pos] = sd.score;
            }
        } catch (IOException e) {
            throw new UncheckedIOException("searching the baseline failed", e);
        }
        return scores;
    }

    /** The ids of the best {@code k} turns by BM25 alone (only turns sharing a term). */
    List<String> bm25Top(String question, int k) {
        double[] s = bm25(question);
        List<Integer> order = rank(s);
        List<String> out = new ArrayList<>();
        for (int pos : order) {
            if (out.size() == k || s[pos] <= 0) {
                break;
            }
            out.add(ids.get(pos));
        }
        return out;
    }

    /** The ids of the best {@code k} turns by the plain fusion. */
    List<String> fusionTop(String question, float[] questionVector, int k) {
        double[] lexical = minMax(bm25(question));
        double[] dense = new double[ids.size()];
        for (int i = 0; i < dense.length; i++) {
            dense[i] = cosine(questionVector, vectors.get(i));
        }
        dense = minMax(dense);
        double[] fused = new double[ids.size()];
        for (int i = 0; i < fused.length; i++) {
            fused[i] = LEXICAL_WEIGHT * lexical[i] + DENSE_WEIGHT * dense[i];
        }
        List<Integer> order = rank(fused);
        List<String> out = new ArrayList<>();
        for (int i = 0; i < Math.min(k, order.size()); i++) {
            out.add(ids.get(order.get(i)));
        }
        return out;
    }

    /** Positions by score, best first; equal scores in turn order. */
    private static List<Integer> rank(double[] scores) {
        List<Integer> order = new ArrayList<>();
        for (int i = 0; i < scores.length; i++) {
            order.add(i);
        }
        order.sort(Comparator.comparingDouble((Integer i) -> scores[i]).reversed().thenComparing(i -> i));
        return order;
    }

    private static double[] minMax(double[] x) {
        double min = Double.MAX_VALUE;
        double max = -Double.MAX_VALUE;
        for (double v : x) {
            min = Math.min(min, v);
            max = Math.max(max, v);
        }
        double[] out = new double[x.length];
        if (max > min) {
            for (int i = 0; i < x.length; i++) {
                out[i] = (x[i] - min) / (max - min);
            }
        }
        return out;
    }

    static double cosine(float[] a, float[] b) {
        double dot = 0;
        double na = 0;
        double nb = 0;
        for (int i = 0; i < a.length; i++) {
            dot += (double) a[i] * b[i];
            na += (double) a[i] * a[i];
            nb += (double) b[i] * b[i];
        }
        return na == 0 || nb == 0 ? 0 : dot / Math.sqrt(na * nb);
    }

    @Override
    public void close() {
        try {
            reader.close();
            directory.close();
            analyzer.close();
        } catch (IOException e) {
            throw new UncheckedIOException("closing the baseline failed", e);
        }
    }
}
