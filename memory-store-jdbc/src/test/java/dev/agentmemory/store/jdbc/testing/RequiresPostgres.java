package dev.agentmemory.store.jdbc.testing;

import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Runs a test class only when a PostgreSQL server is configured ({@link PostgresTestDatabase});
 * otherwise each of its tests is reported as skipped with how to run it, or, under
 * {@code AGENTMEMORY_REQUIRE_PG=1}, fails.
 */
public final class RequiresPostgres implements ExecutionCondition {

    @Override
    public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
        if (PostgresTestDatabase.configured()) {
            return ConditionEvaluationResult.enabled("PostgreSQL at " + System.getenv(PostgresTestDatabase.URL_ENV));
        }
        String testClass = context.getRequiredTestClass().getName();
        String reason = PostgresTestDatabase.notConfigured(testClass);
        if (context.getTestMethod().isEmpty()) {
            // the class itself runs (its tests are reported one by one below), unless required
            if (PostgresTestDatabase.required()) {
                throw new IllegalStateException(reason + " (AGENTMEMORY_REQUIRE_PG=1: PostgreSQL tests may not be skipped)");
            }
            return ConditionEvaluationResult.enabled("tests skipped one by one");
        }
        return ConditionEvaluationResult.disabled(reason);
    }
}
