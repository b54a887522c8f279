/**
 * Episodic recall for the LangChain4j adapter: a hybrid (dense HNSW + BM25 lexical + recency)
 * index over past messages and facts, partitioned by tenant and user, that detects when a newer
 * statement replaces an older near-duplicate and stops presenting the older one as current.
 *
 * <p>The front door is {@link dev.agentmemory.langchain4j.recall.HybridIndex}. Embeddings are
 * computed by the caller once, at write time, and passed in with each
 * {@link dev.agentmemory.langchain4j.recall.IndexedItem}; the index never embeds.
 */
@NullMarked
package dev.agentmemory.langchain4j.recall;

import org.jspecify.annotations.NullMarked;
