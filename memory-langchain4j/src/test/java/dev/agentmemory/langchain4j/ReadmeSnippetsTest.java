package dev.agentmemory.langchain4j;

import dev.agentmemory.testing.Snippets;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * README.md's code is the tested code: every java and properties block of the README names the
 * regions of test code it shows (an HTML comment {@code <!-- snippet: name -->} before the block),
 * here and in the tests of memory-core, memory-store-jdbc, memory-inspector and memory-spring-boot-starter, and equals them apart from indentation and spacing. On a
 * difference the failure prints the tested code to paste into the README.
 */
class ReadmeSnippetsTest {

    private static final Path README = Path.of("..", "README.md");
    private static final List<Path> TESTED_CODE = List.of(Path.of("src", "test", "java"), Path.of("src", "test", "resources"),
            Path.of("..", "memory-core", "src", "test", "java"), Path.of("..", "memory-store-jdbc", "src", "test", "java"),
            Path.of("..", "memory-inspector", "src", "test", "java"),
            Path.of("..", "memory-spring-boot-starter", "src", "test", "java"),
            Path.of("..", "memory-spring-boot-starter", "src", "test", "resources"));

    @Test
    void should_show_exactly_the_tested_code_in_every_readme_block() {
        assertThat(README).as("run from the module directory").isRegularFile();
        List<String> problems = Snippets.mismatches(README, TESTED_CODE, List.of("java", "properties"));
        assertThat(problems).as(String.join("\n\n", problems)).isEmpty();
    }

    @Test
    void should_find_the_marked_blocks_and_their_regions() {
        long marked = Snippets.blocks(README).stream().filter(b -> !b.regions().isEmpty()).count();
        assertThat(marked).as("marked README blocks").isGreaterThanOrEqualTo(8);
        assertThat(Snippets.regions(TESTED_CODE)).containsKeys("register", "engine", "config-file", "spring-properties", "spring-assistant");
        assertThat(Files.exists(Path.of("..", "README-snippets.md"))).as("the old hand-kept copy is gone").isFalse();
    }
}
