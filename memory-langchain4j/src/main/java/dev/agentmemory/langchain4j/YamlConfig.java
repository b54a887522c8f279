package dev.agentmemory.langchain4j;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Path;
import java.util.Iterator;
import java.util.Map;
import java.util.Properties;

/** Reads a YAML config file into the same dotted keys a properties file uses. */
final class YamlConfig {
    private static final YAMLMapper YAML = new YAMLMapper();

    private YamlConfig() {
    }

    static void load(InputStream in, Path file, Properties into) throws IOException {
        JsonNode root;
        try {
            root = YAML.readTree(in);
        } catch (JacksonException e) {
            throw new IllegalArgumentException("config file " + file + " is not valid YAML: " + e.getOriginalMessage());
        }
        if (root == null || root.isMissingNode() || root.isNull()) {
            return;
        }
        if (!root.isObject()) {
            throw new IllegalArgumentException("config file " + file + " must hold a map of settings");
        }
        flatten("", root, into, file);
    }

    private static void flatten(String prefix, JsonNode node, Properties into, Path file) {
        for (Iterator<Map.Entry<String, JsonNode>> it = node.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            String key = prefix.isEmpty() ? e.getKey() : prefix + "." + e.getKey();
            JsonNode value = e.getValue();
            if (value.isObject()) {
                flatten(key, value, into, file);
            } else if (value.isValueNode() && !value.isNull()) {
                into.setProperty(key, value.asText());
            } else {
                throw new IllegalArgumentException(key + " in " + file + " must be a single value");
            }
        }
    }
}
