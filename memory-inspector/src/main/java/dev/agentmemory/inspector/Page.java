package dev.agentmemory.inspector;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/** One page of a list: {@code total}, {@code offset}, {@code limit} and the page's {@code items}. */
final class Page {

    /** The most items one page holds. */
    static final int MAX_LIMIT = 200;

    private Page() {
    }

    /** The page of {@code all} from {@code offset}; only the items on it are turned into JSON. */
    static <T> Map<String, Object> of(List<T> all, int offset, int limit, Function<T, Map<String, Object>> json) {
        if (offset < 0) {
            throw new Http.BadRequest("offset must be >= 0: " + offset);
        }
        if (limit < 1 || limit > MAX_LIMIT) {
            throw new Http.BadRequest("limit must be 1.." + MAX_LIMIT + ": " + limit);
        }
        int from = Math.min(offset, all.size());
        int to = Math.min(all.size(), from + limit);
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("total", all.size());
        m.put("offset", from);
        m.put("limit", limit);
        m.put("items", all.subList(from, to).stream().map(json).toList());
        return m;
    }
}
