package dev.agentmemory.core.internal;

import org.jspecify.annotations.Nullable;

import java.util.Locale;
import java.util.regex.Pattern;

/** Validation of the identifiers that name tenants, users, sessions, tasks and agents. Not an API. */
public final class Ids {
    private static final Pattern ID = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._:@-]{0,127}");

    private Ids() {
    }

    public static String check(@Nullable String value, String what) {
        if (value == null) {
            throw new IllegalArgumentException(what + " must not be null");
        }
        if (!ID.matcher(value).matches()) {
            throw new IllegalArgumentException(what + " must match " + ID.pattern() + ": " + quote(value));
        }
        return value;
    }

    public static String quote(String s) {
        String shown = s.length() > 80 ? s.substring(0, 80) + "..." : s;
        StringBuilder b = new StringBuilder("\"");
        for (int i = 0; i < shown.length(); i++) {
            char c = shown.charAt(i);
            if (c < 0x20 || c == 0x7f || Character.isSurrogate(c)) {
                b.append(String.format(Locale.ROOT, "\\u%04x", (int) c));
            } else {
                b.append(c);
            }
        }
        return b.append('"').toString();
    }
}
