package dev.agentmemory.langchain4j;

import dev.agentmemory.core.Caller;
import dev.langchain4j.rag.content.Content;
import org.jspecify.annotations.Nullable;

import java.util.List;
import java.util.Set;

/** The episodic layer of recall: clues from past messages and facts of one user. */
interface EpisodicRecall {

    /**
     * At most {@code max} clues for {@code text} scoring at least {@code minScore}, never outside
     * the caller's tenant and user, leaving out ids in {@code shown} (and adding the ones returned).
     */
    List<Content> recall(Caller caller, @Nullable SessionRef session, String text, int max, double minScore,
                         Set<String> shown);
}
