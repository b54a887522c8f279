package dev.agentmemory.spring;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.agentmemory.langchain4j.AgentMemory;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * The IDE metadata ({@code META-INF/spring-configuration-metadata.json}, hand-written) against the
 * one source of truth, the keys {@code AgentMemory.Builder#config} knows: it lists every one of
 * them (a key added there and not here fails), no key that the builder does not know, and each
 * default it shows is a value the builder accepts.
 */
class ConfigurationMetadataTest {

    /** The starter's own keys, read by the auto-configuration and not passed to the builder. */
    private static final Set<String> STARTER_KEYS = starterKeys();

    private static Set<String> starterKeys() {
        Set<String> keys = new TreeSet<>(MemoryProperties.STARTER_KEYS.keySet());
        keys.add(MemoryProperties.H2_FILE);
        return keys;
    }

    @Test
    void should_list_every_key_the_builder_knows_and_no_other() throws IOException {
        Map<String, JsonNode> metadata = metadata();
        Set<String> known = keysTheBuilderKnows();
        assertThat(known).as("the builder's list").contains("agentmemory.window-size");

        Set<String> forTheBuilder = new TreeSet<>(metadata.keySet());
        forTheBuilder.removeAll(STARTER_KEYS);
        assertThat(forTheBuilder).containsExactlyInAnyOrderElementsOf(known);
    }

    @Test
    void should_show_the_starters_own_keys_with_the_defaults_it_applies() throws IOException {
        Map<String, JsonNode> metadata = metadata();
        MemoryProperties.STARTER_KEYS.forEach((key, applied) -> {
            assertThat(metadata).as(key).containsKey(key);
            assertThat(metadata.get(key).get("defaultValue").asText()).as(key).isEqualTo(applied);
            assertThat(metadata.get(key).get("description").asText()).as(key).isNotBlank();
        });
    }

    @Test
    void should_show_defaults_the_builder_accepts() throws IOException {
        for (Map.Entry<String, JsonNode> e : metadata().entrySet()) {
            JsonNode def = e.getValue().get("defaultValue");
            if (def == null || STARTER_KEYS.contains(e.getKey())) {
                continue;
            }
            Properties p = new Properties();
            p.setProperty(e.getKey(), def.asText());
            assertThat(catchThrowable(() -> AgentMemory.builder().config(p))).as(e.getKey() + "=" + def).isNull();
            assertThat(e.getValue().get("description").asText()).isNotBlank();
        }
    }

    /** The keys the builder's "unknown setting" error lists, the map key {@code ttl.<kind>} as {@code ttl}. */
    private static Set<String> keysTheBuilderKnows() {
        Properties p = new Properties();
        p.setProperty("agentmemory.no-such-key", "1");
        Throwable error = catchThrowable(() -> AgentMemory.builder().config(p));
        assertThatThrownBy(() -> { throw error; }).hasMessageContaining("(known: ");
        String list = error.getMessage().substring(error.getMessage().indexOf("(known: ") + 8);
        list = list.substring(0, list.lastIndexOf(')'));
        return Arrays.stream(list.split(","))
                .map(String::trim)
                .map(k -> k.equals("ttl.<kind>") ? "ttl" : k)
                .map(k -> "agentmemory." + k)
                .collect(Collectors.toCollection(TreeSet::new));
    }

    private static Map<String, JsonNode> metadata() throws IOException {
        try (InputStream in = ConfigurationMetadataTest.class.getResourceAsStream("/META-INF/spring-configuration-metadata.json")) {
            assertThat(in).as("the metadata on the class path").isNotNull();
            Map<String, JsonNode> byName = new LinkedHashMap<>();
            new ObjectMapper().readTree(in).get("properties").forEach(n -> byName.put(n.get("name").asText(), n));
            return byName;
        }
    }
}
