package dev.agentmemory.inspector;

import dev.agentmemory.langchain4j.AgentMemory;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** The README's "Memory inspector" example, run: start, print the address, stop with the block. */
class InspectorReadmeTest {

    private final List<URI> printed = new ArrayList<>();
    private final List<Integer> ports = new ArrayList<>();

    @Test
    void should_start_print_the_address_and_stop_as_the_readme_shows() {
        try (AgentMemory memory = AgentMemory.builder().build()) {
            // tag::inspector-start[]
            try (MemoryInspector inspector = MemoryInspector.start(memory,
                    InspectorOptions.builder("acme").forgetting(true).build())) {
                System.out.println("memory inspector: " + inspector.uri());
                whileTheApplicationRuns(inspector);
            }
            // end::inspector-start[]
        }
        assertThat(printed.get(0).toString()).matches("http://127\\.0\\.0\\.1:\\d+/\\?token=[A-Za-z0-9_-]{43}");
        assertThat(ports.get(0)).isPositive();
    }

    /** Stands for the application's work while the page is open. */
    private void whileTheApplicationRuns(MemoryInspector inspector) {
        printed.add(inspector.uri());
        ports.add(inspector.address().getPort());
    }

    @Test
    void should_name_a_bad_option_in_one_line() {
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> InspectorOptions.builder("acme").port(70000).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessage("port must be 0..65535: 70000");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> InspectorOptions.builder("ac/me").build())
                .isInstanceOf(IllegalArgumentException.class).hasMessage("tenant is not an identifier: \"ac/me\"");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> InspectorOptions.builder("acme").operator("a b").build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("operator must match [A-Za-z0-9][A-Za-z0-9._@-]{0,63}: \"a b\"");
    }
}
