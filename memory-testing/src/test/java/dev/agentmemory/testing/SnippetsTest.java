package dev.agentmemory.testing;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class SnippetsTest {

    @TempDir
    Path dir;

    private Path source() throws IOException {
        Path src = Files.createDirectories(dir.resolve("src"));
        Files.writeString(src.resolve("Example.java"), String.join("\n",
                "class Example {",
                "    void run() {",
                "        // tag::hello[]",
                "        String greeting = \"hello\";   // a comment",
                "        // tag::inner[]",
                "        System.out.println(greeting);",
                "        // end::inner[]",
                "        // end::hello[]",
                "    }",
                "}"));
        return src;
    }

    private Path readme(String... lines) throws IOException {
        return Files.writeString(dir.resolve("README.md"), String.join("\n", lines));
    }

    @Test
    void should_take_a_region_without_its_indentation_and_without_nested_markers() throws IOException {
        assertThat(Snippets.regions(List.of(source()))).containsEntry("hello",
                "String greeting = \"hello\";   // a comment\nSystem.out.println(greeting);")
                .containsEntry("inner", "System.out.println(greeting);");
    }

    @Test
    void should_accept_a_block_equal_to_its_regions_up_to_spacing() throws IOException {
        Path readme = readme("text", "<!-- snippet: hello inner -->", "```java",
                "  String greeting = \"hello\"; // a comment", "System.out.println(greeting);", "",
                "System.out.println(greeting);", "```");
        assertThat(Snippets.mismatches(readme, List.of(source()), List.of("java"))).isEmpty();
    }

    @Test
    void should_report_a_changed_block_with_the_tested_code() throws IOException {
        Path readme = readme("<!-- snippet: hello -->", "```java", "String greeting = \"bye\";",
                "System.out.println(greeting);", "```");
        List<String> problems = Snippets.mismatches(readme, List.of(source()), List.of("java"));
        assertThat(problems).hasSize(1);
        assertThat(problems.get(0)).contains("README.md line 2", "[hello]", "String greeting = \"hello\";");
    }

    @Test
    void should_report_unmarked_blocks_of_checked_languages_and_unknown_regions() throws IOException {
        Path readme = readme("```java", "int x = 1;", "```", "```bash", "mvn verify", "```",
                "<!-- snippet: missing -->", "```java", "int y;", "```");
        List<String> problems = Snippets.mismatches(readme, List.of(source()), List.of("java"));
        assertThat(problems).hasSize(2);
        assertThat(problems.get(0)).contains("line 1", "without <!-- snippet");
        assertThat(problems.get(1)).contains("no region tag::missing[]");
    }

    @Test
    void should_refuse_a_region_that_is_never_closed() throws IOException {
        Path src = Files.createDirectories(dir.resolve("open"));
        Files.writeString(src.resolve("Open.java"), "// tag::open[]\nint x;\n");
        assertThatThrownBy(() -> Snippets.regions(List.of(src))).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("open");
    }
}
