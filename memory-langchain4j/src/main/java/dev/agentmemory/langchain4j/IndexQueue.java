package dev.agentmemory.langchain4j;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * The episodic index's queue: one daemon thread, so commits are indexed in the order they were
 * made, that also knows when the oldest task still queued (or running) was handed to it, for the
 * index-lag gauge.
 */
final class IndexQueue extends AbstractExecutorService {

    private final ExecutorService thread;
    private final Supplier<Clock> clock;
    /** When each task not yet finished was queued, oldest first. */
    private final ConcurrentLinkedDeque<Instant> queuedAt = new ConcurrentLinkedDeque<>();

    IndexQueue(String threadName, Supplier<Clock> clock) {
        this.clock = clock;
        this.thread = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, threadName);
            t.setDaemon(true);
            return t;
        });
    }

    /** How long the oldest task not yet finished has waited; zero when the queue is empty. */
    Duration oldestWait() {
        Instant first = queuedAt.peekFirst();
        if (first == null) {
            return Duration.ZERO;
        }
        Duration d = Duration.between(first, clock.get().instant());
        return d.isNegative() ? Duration.ZERO : d;
    }

    @Override
    public void execute(Runnable task) {
        Instant at = clock.get().instant();
        queuedAt.addLast(at);
        try {
            thread.execute(() -> {
                try {
                    task.run();
                } finally {
                    queuedAt.removeFirstOccurrence(at);
                }
            });
        } catch (RejectedExecutionException e) {
            queuedAt.removeLastOccurrence(at);
            throw e;
        }
    }

    @Override
    public void shutdown() {
        thread.shutdown();
    }

    @Override
    public List<Runnable> shutdownNow() {
        List<Runnable> left = thread.shutdownNow();
        queuedAt.clear();
        return left;
    }

    @Override
    public boolean isShutdown() {
        return thread.isShutdown();
    }

    @Override
    public boolean isTerminated() {
        return thread.isTerminated();
    }

    @Override
    public boolean awaitTermination(long timeout, TimeUnit unit) throws InterruptedException {
        return thread.awaitTermination(timeout, unit);
    }
}
