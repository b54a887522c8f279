package dev.agentmemory.bench;

import java.nio.file.Path;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * Options shared by all suites.
 *
 * @param data       the data file ({@code --data}), when the suite reads one
 * @param out        where to write the JSON ({@code --out})
 * @param limit      a bound on the amount of data used ({@code --limit}; what it counts is per suite)
 * @param turns      how many turns a timing suite measures ({@code --turns}; what a turn is is per suite)
 * @param pgUrl      a PostgreSQL JDBC URL ({@code --pg-url}), for the suites that use a server
 * @param pgUser     its user ({@code --pg-user})
 * @param pgPassword its password ({@code --pg-password})
 */
record SuiteOptions(Optional<Path> data, Optional<Path> out, OptionalInt limit, OptionalInt turns,
                    Optional<String> pgUrl, Optional<String> pgUser, Optional<String> pgPassword) {

    SuiteOptions(Optional<Path> data, Optional<Path> out, OptionalInt limit) {
        this(data, out, limit, OptionalInt.empty(), Optional.empty(), Optional.empty(), Optional.empty());
    }

    Path requireData(String suite) {
        return data.orElseThrow(() -> new IllegalArgumentException(suite + " needs --data FILE"));
    }

    int limitOr(int fallback) {
        return limit.orElse(fallback);
    }

    int turnsOr(int fallback) {
        return turns.orElse(fallback);
    }
}
