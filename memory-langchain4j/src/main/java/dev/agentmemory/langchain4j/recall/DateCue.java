package dev.agentmemory.langchain4j.recall;

import java.time.Instant;
import java.time.LocalDate;
import java.time.Month;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A date a query names ("in June", "in July 2023", "on 13 October, 2023", "on May 3, 2023",
 * "in 2022"), as the spans of time it covers (UTC): a day, a month (of the given year, or of every
 * year when none is given) or a year. An item said during such a span matches it. English month
 * names only; "May" counts as a month only after "in", "on", "during", "since", "by", "early",
 * "late", "mid" or "of", or before a number.
 */
record DateCue(List<Span> spans) {

    /** A half-open span of time {@code [from, to)}; a month without a year has {@code anyYear}. */
    record Span(int year, int month, int day, boolean anyYear) {
        boolean contains(Instant t) {
            LocalDate d = t.atZone(ZoneOffset.UTC).toLocalDate();
            if (!anyYear && d.getYear() != year) {
                return false;
            }
            if (month != 0 && d.getMonthValue() != month) {
                return false;
            }
            return day == 0 || d.getDayOfMonth() == day;
        }
    }

    private static final String MONTHS = "January|February|March|April|May|June|July|August|September|October"
            + "|November|December";
    /** Optional preposition, optional day, month, optional day, optional year. */
    private static final Pattern MONTH_DATE = Pattern.compile(
            "(?:\\b(in|on|during|since|by|early|late|mid|of)\\s+)?(?:(\\d{1,2})(?:st|nd|rd|th)?\\s+)?\\b(" + MONTHS
                    + ")\\b(?:\\s+(\\d{1,2})(?:st|nd|rd|th)?\\b)?(?:,?\\s+((?:19|20)\\d\\d)\\b)?");
    private static final Pattern YEAR = Pattern.compile("\\b(?:in|of|during)\\s+((?:19|20)\\d\\d)\\b");

    /** The date the text names, if any. */
    static Optional<DateCue> in(String text) {
        List<Span> spans = new ArrayList<>();
        Matcher m = MONTH_DATE.matcher(text);
        boolean monthFound = false;
        while (m.find()) {
            String month = m.group(3);
            boolean anchored = m.group(1) != null || m.group(2) != null || m.group(4) != null || m.group(5) != null;
            if (month.equals("May") && !anchored) {
                continue; // the verb
            }
            monthFound = true;
            int mo = Month.valueOf(month.toUpperCase(Locale.ROOT)).getValue();
            String dayText = m.group(2) != null ? m.group(2) : m.group(4);
            int day = dayText == null ? 0 : Integer.parseInt(dayText);
            if (day > 31) {
                day = 0;
            }
            int year = m.group(5) == null ? 0 : Integer.parseInt(m.group(5));
            spans.add(new Span(year, mo, day, year == 0));
        }
        if (!monthFound) {
            Matcher y = YEAR.matcher(text);
            while (y.find()) {
                spans.add(new Span(Integer.parseInt(y.group(1)), 0, 0, false));
            }
        }
        return spans.isEmpty() ? Optional.empty() : Optional.of(new DateCue(List.copyOf(spans)));
    }

    /** Whether an item said at {@code t} falls in one of the spans. */
    boolean matches(Instant t) {
        for (Span s : spans) {
            if (s.contains(t)) {
                return true;
            }
        }
        return false;
    }
}
