/**
 * Helpers shared by the packages of the LangChain4j module. Not API: anything here may change
 * without notice.
 */
@NullMarked
package dev.agentmemory.langchain4j.internal;

import org.jspecify.annotations.NullMarked;
