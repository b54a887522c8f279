package dev.agentmemory.langchain4j.recall;

import org.apache.lucene.codecs.Codec;
import org.apache.lucene.codecs.FilterCodec;
import org.apache.lucene.codecs.KnnVectorsFormat;
import org.apache.lucene.codecs.lucene99.Lucene99HnswVectorsFormat;
import org.apache.lucene.codecs.perfield.PerFieldKnnVectorsFormat;

/**
 * The codec the recall index writes with: the default codec of the Lucene on the class path
 * (Lucene 9.12 or 10), its vectors in an HNSW graph with the index's max connections and beam
 * width. It carries the default codec's name, so a reader needs nothing of ours: the graph
 * parameters only matter while writing, and each vector field records its format's name.
 * (Subclassing the default codec by name, e.g. {@code Lucene912Codec}, would tie the jar to one
 * Lucene version.)
 */
final class RecallCodec extends FilterCodec {

    private final KnnVectorsFormat vectors;

    private RecallCodec(Codec base, int maxConn, int beamWidth) {
        super(base.getName(), base);
        KnnVectorsFormat graph = new Lucene99HnswVectorsFormat(maxConn, beamWidth);
        this.vectors = new PerFieldKnnVectorsFormat() {
            @Override
            public KnnVectorsFormat getKnnVectorsFormatForField(String field) {
                return graph;
            }
        };
    }

    static Codec of(int maxConn, int beamWidth) {
        return new RecallCodec(Codec.getDefault(), maxConn, beamWidth);
    }

    @Override
    public KnnVectorsFormat knnVectorsFormat() {
        return vectors;
    }
}
