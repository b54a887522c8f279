package dev.agentmemory.store.jdbc;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Instant;
import java.time.LocalDate;
import java.time.format.DateTimeParseException;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The stored time's parser gives what {@link Instant#parse} gives, for every text. */
class StoredTimeTest {

    @ParameterizedTest
    @ValueSource(strings = {
            // the shape the store writes: no fraction, or 3, 6, 9 digits; and 1 to 9 digits
            "2026-12-05T11:10:35Z",
            "2026-12-05T11:10:35.889Z",
            "2026-12-05T11:10:35.889367Z",
            "2026-12-05T11:10:35.889367010Z",
            "2026-12-05T11:10:35.8Z",
            "2026-12-05T11:10:35.88Z",
            "2026-12-05T11:10:35.8893Z",
            "2026-12-05T11:10:35.88936Z",
            "2026-12-05T11:10:35.8893670Z",
            "2026-12-05T11:10:35.88936701Z",
            "2026-12-05T11:10:35.000000001Z",
            "2026-12-05T11:10:35.000000000Z",
            "2026-12-05T11:10:35.0Z",
            "2026-12-05T11:10:35.100Z",
            // the epoch and around it
            "1970-01-01T00:00:00Z",
            "1969-12-31T23:59:59.999999999Z",
            "1970-01-01T00:00:00.000000001Z",
            // the ends of four-digit years, leap days and month ends
            "0000-01-01T00:00:00Z",
            "0000-02-29T12:00:00Z",
            "0001-01-01T00:00:00Z",
            "0399-12-31T23:59:59Z",
            "0400-02-29T00:00:00Z",
            "1600-02-29T00:00:00Z",
            "1900-02-28T23:59:59Z",
            "2000-02-29T00:00:00Z",
            "2024-02-29T23:59:59.999999999Z",
            "2024-04-30T00:00:00Z",
            "2024-12-31T23:59:59Z",
            "9999-12-31T23:59:59.999999999Z",
            // other texts Instant.parse reads: lower case, offsets, years past 9999 or before 0, 24:00, a leap second
            "2024-05-01t10:00:01z",
            "2024-05-01T10:00:01+02:00",
            "2024-05-01T10:00:01-05:30",
            "2024-05-01T10:00:01+00:00",
            "+10000-01-01T00:00:00Z",
            "-0001-12-31T23:59:59Z",
            "-1000000000-01-01T00:00:00Z",
            "2024-05-01T24:00:00Z",
            "2024-06-30T23:59:60Z",
            "2024-06-30T23:59:60.5Z",
            // texts that are not instants
            "",
            "Z",
            "garbage",
            "2024-05-01T10:00:01",
            "2024-05-01T10:00Z",
            "2024-05-01T10:00:01.Z",
            "2024-05-01T10:00:01.1234567890Z",
            "2024-05-01T10:00:01,5Z",
            "2024-05-01 10:00:01Z",
            " 2024-05-01T10:00:01Z",
            "2024-05-01T10:00:01Z ",
            "2024-5-01T10:00:01Z",
            "2024-13-01T10:00:01Z",
            "2024-00-01T10:00:01Z",
            "2024-04-31T10:00:01Z",
            "2023-02-29T10:00:01Z",
            "1900-02-29T10:00:01Z",
            "2024-05-00T10:00:01Z",
            "2024-05-01T25:00:01Z",
            "2024-05-01T10:60:01Z",
            "2024-05-01T10:00:61Z",
            "2024-05-01T1a:00:01Z",
            "2024-05-01T10:00:01.12a4Z",
            "2024-05-01T10:00:01.-1Z",
            "2024-05-01T10:00:01X",
            "2024-05-01X10:00:01Z",
            "\u0662\u0660\u0662\u0664-05-01T10:00:01Z",
            "2024-05-01T10:00:01.\u0661Z",
    })
    void should_read_a_text_as_Instant_parse_does_when_given_edge_cases(String text) {
        Instant expected;
        try {
            expected = Instant.parse(text);
        } catch (DateTimeParseException e) {
            assertThatThrownBy(() -> StoredTime.parse(text)).as(text).isInstanceOf(DateTimeParseException.class)
                    .hasMessage(e.getMessage());
            return;
        }
        assertThat(StoredTime.parse(text)).as(text).isEqualTo(expected);
    }

    @Test
    void should_read_back_what_it_writes_when_given_instants_of_years_0_to_9999() {
        Random random = new Random(27);
        long from = Instant.parse("0000-01-01T00:00:00Z").getEpochSecond();
        long to = Instant.parse("9999-12-31T23:59:59Z").getEpochSecond();
        for (int i = 0; i < 200_000; i++) {
            long second = from + Math.floorMod(random.nextLong(), to - from + 1);
            int nanos = switch (i % 4) {
                case 0 -> 0;
                case 1 -> random.nextInt(1_000) * 1_000_000;
                case 2 -> random.nextInt(1_000_000) * 1_000;
                default -> random.nextInt(1_000_000_000);
            };
            Instant at = Instant.ofEpochSecond(second, nanos);
            String text = StoredTime.text(at);

            assertThat(text).isEqualTo(at.toString());
            assertThat(StoredTime.parse(text)).as(text).isEqualTo(at);
        }
    }

    @Test
    void should_count_the_days_of_every_date_from_year_0_to_9999_as_LocalDate_does() {
        for (LocalDate d = LocalDate.of(0, 1, 1); d.getYear() <= 9999; d = d.plusDays(1)) {
            if (StoredTime.epochDay(d.getYear(), d.getMonthValue(), d.getDayOfMonth()) != d.toEpochDay()) {
                assertThat(StoredTime.epochDay(d.getYear(), d.getMonthValue(), d.getDayOfMonth())).as(d.toString())
                        .isEqualTo(d.toEpochDay());
            }
        }
    }
}
