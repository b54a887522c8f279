package dev.agentmemory.testing;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.Objects;

/**
 * A clock that tests move by hand instead of sleeping; always in UTC, thread-safe. A ticking clock
 * also moves forward by a fixed step on every read, so that events written in one test step still
 * get distinct, ordered instants.
 */
public final class TestClock extends Clock {

    /** The instant {@link #start()} begins at. */
    public static final Instant DEFAULT_START = Instant.parse("2024-10-15T10:00:00Z");

    private final Duration tick;
    private Instant now;

    private TestClock(Instant start, Duration tick) {
        this.now = Objects.requireNonNull(start, "start");
        this.tick = tick;
    }

    /** A clock standing at {@code start} until moved. */
    public TestClock(Instant start) {
        this(start, Duration.ZERO);
    }

    /** A clock at {@link #DEFAULT_START} (2024-10-15T10:00:00Z). */
    public static TestClock start() {
        return new TestClock(DEFAULT_START);
    }

    /** A clock that moves forward by {@code tick} on every read, starting just after {@code start}. */
    public static TestClock ticking(Instant start, Duration tick) {
        if (tick.isNegative() || tick.isZero()) {
            throw new IllegalArgumentException("a ticking clock needs a positive tick: " + tick);
        }
        return new TestClock(start, tick);
    }

    /** Moves the clock forward and returns the new instant. */
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

    /** This clock (a test clock stays in UTC whatever zone is asked for). */
    @Override
    public Clock withZone(ZoneId zone) {
        return this;
    }

    @Override
    public synchronized Instant instant() {
        now = now.plus(tick);
        return now;
    }
}
