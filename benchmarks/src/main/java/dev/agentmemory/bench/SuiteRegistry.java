package dev.agentmemory.bench;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/** The suites the CLI knows, by name. A new suite is one class plus one line here. */
final class SuiteRegistry {

    private final Map<String, Suite> suites = new LinkedHashMap<>();

    SuiteRegistry register(Suite suite) {
        if (suites.putIfAbsent(suite.name(), suite) != null) {
            throw new IllegalArgumentException("suite registered twice: " + suite.name());
        }
        return this;
    }

    Optional<Suite> find(String name) {
        return Optional.ofNullable(suites.get(name));
    }

    Map<String, Suite> all() {
        return Map.copyOf(suites);
    }

    Iterable<Suite> inOrder() {
        return suites.values();
    }

    /** Every suite of this module. */
    static SuiteRegistry standard() {
        return new SuiteRegistry()
                .register(new LocomoSuite())
                .register(new KnowledgeUpdateSuite())
                .register(new InjectionSuite())
                .register(new PerfSuite())
                .register(new PostgresPerfSuite());
    }
}
