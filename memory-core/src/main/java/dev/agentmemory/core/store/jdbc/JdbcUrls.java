package dev.agentmemory.core.store.jdbc;

import java.util.regex.Pattern;

/** JDBC URLs as they may be shown: in messages, logs and {@code toString}, never with a password. */
final class JdbcUrls {

    /** {@code password=...} (any case, also {@code sslpassword}), up to the next separator. */
    private static final Pattern PASSWORD_PARAM = Pattern.compile("(?i)((?:ssl)?password=)[^&;]*");
    /** {@code //user:secret@host}: the secret of a URL's user-info part. */
    private static final Pattern USER_INFO_SECRET = Pattern.compile("(//[^/:@?&;]*):[^/@?&;]*@");

    private JdbcUrls() {
    }

    /** The URL with every password in it replaced by {@code ***}. */
    static String redact(String url) {
        String out = PASSWORD_PARAM.matcher(url).replaceAll("$1***");
        return USER_INFO_SECRET.matcher(out).replaceAll("$1:***@");
    }
}
