package dev.agentmemory.inspector;

import java.util.Objects;
import java.util.regex.Pattern;

/**
 * How a {@link MemoryInspector} runs. Immutable; build with {@link #builder(String)}.
 *
 * @param port       the local port to listen on, {@code 0} for a free one
 * @param tenant     the only tenant whose users it shows; a request for any other tenant is refused
 * @param forgetting whether the page may forget (off: the inspector is read-only)
 * @param operator   who is inspecting, written into the log with every read and forget it makes
 *                   (as the actor {@code inspector:<operator>})
 */
public record InspectorOptions(int port, String tenant, boolean forgetting, String operator) {

    private static final Pattern ID = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._@-]{0,63}");

    public InspectorOptions {
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException("port must be 0..65535: " + port);
        }
        Objects.requireNonNull(tenant, "tenant");
        Objects.requireNonNull(operator, "operator");
        if (!ID.matcher(tenant).matches()) {
            throw new IllegalArgumentException("tenant is not an identifier: \"" + tenant + "\"");
        }
        if (!ID.matcher(operator).matches()) {
            throw new IllegalArgumentException("operator must match " + ID.pattern() + ": \"" + operator + "\"");
        }
    }

    /** Options for one tenant: a free port, read-only, operator {@code local}. */
    public static Builder builder(String tenant) {
        return new Builder(tenant);
    }

    /** The agent name the inspector's reads and forgets are logged under. */
    String actor() {
        return "inspector:" + operator;
    }

    /** Configures {@link InspectorOptions}. Not thread-safe. */
    public static final class Builder {
        private final String tenant;
        private int port;
        private boolean forgetting;
        private String operator = "local";

        private Builder(String tenant) {
            this.tenant = Objects.requireNonNull(tenant, "tenant");
        }

        /** The port on 127.0.0.1; {@code 0} (the default) picks a free one. */
        public Builder port(int port) {
            this.port = port;
            return this;
        }

        /** Allows the page to forget keys, conversations and the whole user. Default: off (read-only). */
        public Builder forgetting(boolean enabled) {
            this.forgetting = enabled;
            return this;
        }

        /** Who is inspecting, for the log. Default: {@code local}. */
        public Builder operator(String operator) {
            this.operator = Objects.requireNonNull(operator, "operator");
            return this;
        }

        public InspectorOptions build() {
            return new InspectorOptions(port, tenant, forgetting, operator);
        }
    }
}
