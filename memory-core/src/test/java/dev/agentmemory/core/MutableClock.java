package dev.agentmemory.core;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.Objects;

/** A clock that tests move by hand instead of sleeping. Thread-safe. */
public final class MutableClock extends Clock {

    private volatile Instant now;

    public MutableClock(Instant start) {
        this.now = Objects.requireNonNull(start, "start");
    }

    /** A clock at 2024-10-15T10:00:00Z. */
    public static MutableClock start() {
        return new MutableClock(Instant.parse("2024-10-15T10:00:00Z"));
    }

    /** Moves the clock forward. */
    public synchronized Instant advance(Duration by) {
        if (by.isNegative()) {
            throw new IllegalArgumentException("a clock only moves forward: " + by);
        }
        now = now.plus(by);
        return now;
    }

    @Override
    public ZoneId getZone() {
        return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
        throw new UnsupportedOperationException("a mutable test clock stays in UTC");
    }

    @Override
    public Instant instant() {
        return now;
    }
}
