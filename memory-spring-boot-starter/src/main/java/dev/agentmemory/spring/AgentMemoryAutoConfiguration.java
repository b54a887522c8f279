package dev.agentmemory.spring;

import dev.agentmemory.langchain4j.AgentMemory;
import dev.agentmemory.langchain4j.tools.MemoryTools;
import dev.langchain4j.memory.chat.ChatMemoryProvider;
import dev.langchain4j.model.embedding.EmbeddingModel;
import dev.langchain4j.rag.RetrievalAugmentor;
import dev.langchain4j.store.memory.chat.ChatMemoryStore;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.core.env.Environment;

import javax.sql.DataSource;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Makes an {@link AgentMemory} from the {@code agentmemory.*} properties (the keys of the
 * configuration file, validated the same way: a bad value fails startup naming the key) and
 * exposes the parts LangChain4j's {@code @AiService} wiring and a hand-built {@code AiServices}
 * take: the {@link ChatMemoryProvider}, the {@link ChatMemoryStore}, the {@link RetrievalAugmentor}
 * and the {@link MemoryTools}. Every bean backs off when the application defines its own of that
 * type; the memory is closed with the context.
 *
 * <p>Where memory is kept, first match wins: {@code agentmemory.h2-file} (an H2 file, path without
 * {@code .mv.db}); {@code agentmemory.jdbc.url} (a database server, with {@code .user}, {@code .password},
 * {@code .pool-size}); the application's one {@link DataSource} bean (e.g. PostgreSQL, borrowed, not
 * closed); otherwise the H2 file {@code agentmemory/memory} under the working directory.
 * The application's one {@link EmbeddingModel} bean, when there is one, turns on episodic recall.
 * The summarizer stays off (no {@code agentmemory.*} key enables it); an
 * {@link AgentMemoryBuilderCustomizer} bean sets it and any other builder setting in code.
 *
 * <p>Observability: the application's {@code MeterRegistry} bean gets the memory's meters, its
 * {@code OpenTelemetry} bean the memory's spans (each off with {@code agentmemory.metrics.enabled}
 * or {@code agentmemory.tracing.enabled} set to false), and with Actuator a health indicator
 * {@code agentMemory} reports the store, the episodic index and an audit of a few users.
 */
// the DataSource auto-configuration of Spring Boot 3, and of Spring Boot 4 (moved to spring-boot-jdbc)
@AutoConfiguration(afterName = {"org.springframework.boot.autoconfigure.jdbc.DataSourceAutoConfiguration",
        "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration"})
@ConditionalOnClass(AgentMemory.class)
@Import({AgentMemoryObservabilityConfiguration.Metrics.class, AgentMemoryObservabilityConfiguration.Tracing.class,
        AgentMemoryHealthConfiguration.class})
public class AgentMemoryAutoConfiguration {

    /** Created by Spring Boot from the auto-configuration imports. */
    public AgentMemoryAutoConfiguration() {
    }

    /**
     * The memory, from the {@code agentmemory.*} properties, on the store chosen as the class
     * comment says. Fails startup with {@link InvalidMemoryPropertyException} on a bad property.
     */
    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean
    public AgentMemory agentMemory(Environment environment, ObjectProvider<DataSource> dataSource,
                                   ObjectProvider<EmbeddingModel> embeddingModel,
                                   ObjectProvider<AgentMemoryBuilderCustomizer> customizers) {
        MemoryProperties props = MemoryProperties.of(environment);
        AgentMemory.Builder builder = AgentMemory.builder();
        try {
            builder.config(props.settings);
        } catch (IllegalArgumentException e) {
            throw new InvalidMemoryPropertyException(e);
        }
        Path h2File = props.h2File;
        @Nullable DataSource appDataSource = h2File == null && !props.jdbcUrl ? dataSource.getIfUnique() : null;
        if (appDataSource != null) {
            builder.dataSource(appDataSource);
        } else if (!props.jdbcUrl) {
            builder.h2File(withParentDirectory(h2File != null ? h2File : MemoryProperties.DEFAULT_H2_FILE));
        }
        EmbeddingModel embeddings = embeddingModel.getIfUnique();
        if (embeddings != null) {
            builder.embeddingModel(embeddings);
        }
        customizers.orderedStream().forEach(c -> c.customize(builder));
        return builder.build();
    }

    /** The chat memory of every memory id, over the memory's store. */
    @Bean(destroyMethod = "")
    @ConditionalOnMissingBean
    public ChatMemoryProvider agentMemoryChatMemoryProvider(AgentMemory memory) {
        return memory.chatMemoryProvider();
    }

    /** The memory's chat memory store, for an application that makes its own chat memories. */
    @Bean(destroyMethod = "")
    @ConditionalOnMissingBean
    public ChatMemoryStore agentMemoryChatMemoryStore(AgentMemory memory) {
        return memory.chatMemoryStore();
    }

    /** Puts the memory block (state, persistent, episodic) in front of each user message. */
    @Bean(destroyMethod = "")
    @ConditionalOnMissingBean
    public RetrievalAugmentor agentMemoryRetrievalAugmentor(AgentMemory memory) {
        return memory.retrievalAugmentor();
    }

    /** The memory tools the model calls (remember, updateState, forget, tasks). */
    @Bean(destroyMethod = "")
    @ConditionalOnMissingBean
    public MemoryTools agentMemoryTools(AgentMemory memory) {
        return memory.tools();
    }

    private static Path withParentDirectory(Path file) {
        Path parent = file.toAbsolutePath().getParent();
        if (parent != null) {
            try {
                Files.createDirectories(parent);
            } catch (IOException e) {
                throw new UncheckedIOException("cannot create the directory of " + MemoryProperties.H2_FILE + " " + file, e);
            }
        }
        return file;
    }
}
