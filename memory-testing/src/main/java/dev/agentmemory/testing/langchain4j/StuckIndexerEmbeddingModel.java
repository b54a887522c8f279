package dev.agentmemory.testing.langchain4j;

import dev.langchain4j.data.embedding.Embedding;
import dev.langchain4j.data.segment.TextSegment;
import dev.langchain4j.model.embedding.EmbeddingModel;
import dev.langchain4j.model.output.Response;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * The real embedding model ({@link SharedEmbeddingModel}), except that calls made on the episodic
 * index's background thread ({@value #INDEXER_THREAD}) block until {@link #release()}: a test can
 * hold the indexer back and check what a turn, a recall or a gauge does meanwhile. A call still
 * blocked after {@code maxWait} fails, so a test that forgets to release cannot hang the build.
 */
public final class StuckIndexerEmbeddingModel implements EmbeddingModel {

    /** The name of the episodic index's background thread. */
    public static final String INDEXER_THREAD = "agent-memory-indexer";

    private final CountDownLatch gate = new CountDownLatch(1);
    private final CountDownLatch blocked = new CountDownLatch(1);
    private final long maxWaitSeconds;

    /** A model whose indexer calls wait at most {@code maxWaitSeconds} for {@link #release()}. */
    public StuckIndexerEmbeddingModel(long maxWaitSeconds) {
        this.maxWaitSeconds = maxWaitSeconds;
    }

    /**
     * Waits until a call on the indexer's thread is blocked (at most {@code maxWaitSeconds}). From
     * then until {@link #release()} the indexer moves nothing: what it has not indexed stays as it is.
     *
     * @return false when no indexer call came in time
     */
    public boolean awaitBlocked() throws InterruptedException {
        return blocked.await(maxWaitSeconds, TimeUnit.SECONDS);
    }

    /** Lets the indexer's calls (the blocked one and every later one) through. */
    public void release() {
        gate.countDown();
    }

    @Override
    public Response<List<Embedding>> embedAll(List<TextSegment> segments) {
        if (Thread.currentThread().getName().equals(INDEXER_THREAD)) {
            blocked.countDown();
            try {
                if (!gate.await(maxWaitSeconds, TimeUnit.SECONDS)) {
                    throw new IllegalStateException("the test never released the indexer");
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        }
        return SharedEmbeddingModel.get().embedAll(segments);
    }

    @Override
    public int dimension() {
        return SharedEmbeddingModel.get().dimension();
    }
}
