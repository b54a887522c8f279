package dev.agentmemory.core;

import dev.agentmemory.core.engine.MemoryEngine;
import dev.agentmemory.core.spi.DerivedData;
import dev.agentmemory.core.spi.DerivedData.ForgetRequest;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Regression (found by the plugin's forgetting test): {@code compact()} reached only the store,
 * so derived data on disk (the episodic index) kept hard-forgotten text in its files.
 */
class DerivedDataCompactTest {

    @Test
    void should_compact_every_registered_derived_data_when_the_engine_compacts() {
        // given
        List<String> compacted = new ArrayList<>();
        try (MemoryEngine engine = MemoryEngine.builder().derived(named("built-in", compacted)).build()) {
            engine.admin().register(named("registered", compacted));

            // when
            engine.admin().compact();

            // then
            assertThat(compacted).containsExactly("built-in", "registered");
        }
    }

    private static DerivedData named(String name, List<String> compacted) {
        return new DerivedData() {
            @Override
            public String name() {
                return name;
            }

            @Override
            public int forget(ForgetRequest request) {
                return 0;
            }

            @Override
            public void compact() {
                compacted.add(name);
            }
        };
    }
}
