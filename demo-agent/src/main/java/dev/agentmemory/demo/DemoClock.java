package dev.agentmemory.demo;

import static java.util.Objects.requireNonNull;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The demo's clock: the scenario sets the day and moves it forward; it never reads the wall
 * clock. Each read returns the set instant, so everything written in one step has the same time.
 */
final class DemoClock extends Clock {

    private final AtomicReference<Instant> now;

    DemoClock(Instant start) {
        this.now = new AtomicReference<>(requireNonNull(start, "start"));
    }

    void set(Instant instant) {
        now.set(requireNonNull(instant, "instant"));
    }

    void advance(Duration d) {
        now.updateAndGet(t -> t.plus(d));
    }

    @Override
    public Instant instant() {
        return requireNonNull(now.get(), "the clock holds an instant");
    }

    @Override
    public ZoneId getZone() {
        return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
        throw new UnsupportedOperationException("the demo clock is UTC only");
    }
}
