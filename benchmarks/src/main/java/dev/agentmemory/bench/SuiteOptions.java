package dev.agentmemory.bench;

import java.nio.file.Path;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * Options shared by all suites.
 *
 * @param data  the data file ({@code --data}), when the suite reads one
 * @param out   where to write the JSON ({@code --out})
 * @param limit a bound on the amount of data used ({@code --limit}; what it counts is per suite)
 */
record SuiteOptions(Optional<Path> data, Optional<Path> out, OptionalInt limit) {

    Path requireData(String suite) {
        return data.orElseThrow(() -> new IllegalArgumentException(suite + " needs --data FILE"));
    }

    int limitOr(int fallback) {
        return limit.orElse(fallback);
    }
}
