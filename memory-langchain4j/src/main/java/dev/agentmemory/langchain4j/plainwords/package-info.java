/**
 * Plain-words changes: deterministic rules that read the common first-person and
 * organisation-attribute statements of a user's message ("I work at Acme", "我搬到上海了",
 * "our billing contact is Priya") as values of fixed attribute keys, so that a later statement of
 * the same attribute supersedes the earlier one through the engine's keyed versions. Not API.
 */
@NullMarked
package dev.agentmemory.langchain4j.plainwords;

import org.jspecify.annotations.NullMarked;
