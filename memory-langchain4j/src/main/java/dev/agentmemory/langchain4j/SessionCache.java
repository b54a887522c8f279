package dev.agentmemory.langchain4j;

import dev.agentmemory.core.event.StoredMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.ChatMessageDeserializer;
import org.jspecify.annotations.Nullable;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What {@link EngineChatMemoryStore} knows of one session: the decoded messages of the window by
 * history index, the window as last read or written, and which message instances it handed out
 * or stored. It is only a cache of what the engine holds (every decision is taken on the engine's
 * window, under the user's lock), so several stores over one engine never disagree; dropping it
 * loses nothing. A decoded message is reused only while the stored message of its index is still
 * the one it was decoded from (same serialized form): a message another instance over the same
 * store redacted, or anything else that rewrote it, is decoded again from what is stored now.
 */
final class SessionCache {

    /** How many handed-out message instances are remembered with their history index. */
    static final int REMEMBERED_INSTANCES = 4096;

    final SessionRef ref;
    private final Map<Long, Decoded> decoded = new ConcurrentHashMap<>();
    /** The window as last read or written here, with its decoded messages (same positions); null when unknown. */
    private volatile @Nullable Snapshot snapshot;
    /** Message instances this cache handed out or stored, with their history index (the most recent ones). */
    private final Map<ChatMessage, Long> indexOf = new IdentityHashMap<>();
    private final ArrayDeque<ChatMessage> remembered = new ArrayDeque<>();

    /**
     * A window and its decoded messages. The engine hands out the same {@link StoredMessage}
     * instances until the window changes, so comparing by identity tells whether it is still current.
     */
    record Snapshot(List<StoredMessage> window, List<ChatMessage> messages) {
        boolean sameWindow(List<StoredMessage> other) {
            if (other.size() != window.size()) {
                return false;
            }
            for (int p = 0; p < other.size(); p++) {
                if (other.get(p) != window.get(p)) {
                    return false;
                }
            }
            return true;
        }
    }

    /** A message decoded from {@code json}, its stored serialized form. */
    private record Decoded(String json, ChatMessage message) {
    }

    SessionCache(SessionRef ref) {
        this.ref = ref;
    }

    /** The decoded messages of {@code window}: the snapshot's when it is the same window, else decoded one by one. */
    List<ChatMessage> messagesOf(List<StoredMessage> window) {
        Snapshot snap = snapshot;
        if (snap != null && snap.sameWindow(window)) {
            return snap.messages();
        }
        List<ChatMessage> out = new ArrayList<>(window.size());
        for (StoredMessage m : window) {
            out.add(decode(m));
        }
        Snapshot fresh = new Snapshot(window, List.copyOf(out));
        snapshot = fresh;
        return fresh.messages();
    }

    private ChatMessage decode(StoredMessage m) {
        String json = Objects.requireNonNull(m.json(), "a forgotten message is never in a window");
        Decoded known = decoded.get(m.index());
        if (known != null && known.json().equals(json)) {
            return known.message();
        }
        ChatMessage fresh = ChatMessageDeserializer.messageFromJson(json);
        decoded.put(m.index(), new Decoded(json, fresh));
        remember(fresh, m.index());
        return fresh;
    }

    /** The history index of a message instance this cache handed out or stored, or null. */
    synchronized @Nullable Long indexOf(ChatMessage message) {
        return indexOf.get(message);
    }

    /** Records a change this store computed (under the user's lock, before it is written). */
    void apply(WindowDiff.Result result) {
        Map<Long, String> json = new HashMap<>();
        for (StoredMessage m : result.change().appended()) {
            if (m.json() != null) {
                json.put(m.index(), m.json());
            }
        }
        for (Map.Entry<Long, WindowDiff.Appended> e : result.appended().entrySet()) {
            String stored = json.get(e.getKey());
            if (stored != null) {
                decoded.put(e.getKey(), new Decoded(stored, e.getValue().stored()));
            }
            remember(e.getValue().stored(), e.getKey());
            remember(e.getValue().given(), e.getKey());
        }
        for (Long e : result.change().evicted()) {
            decoded.remove(e);
        }
        WindowDiff.Window after = result.windowAfter();
        snapshot = after == null ? null : new Snapshot(after.stored(), after.messages());
    }

    /**
     * Takes back what {@link #apply} recorded of a change whose append was refused (another
     * instance appended first; the change is then computed again on the fresh window): its new
     * messages were never stored at the indices it gave them, so they must not be recognised as
     * stored there.
     */
    void undo(WindowDiff.Result result) {
        for (Map.Entry<Long, WindowDiff.Appended> e : result.appended().entrySet()) {
            decoded.remove(e.getKey());
            forget(e.getValue().stored(), e.getKey());
            forget(e.getValue().given(), e.getKey());
        }
        snapshot = null;
    }

    private synchronized void forget(ChatMessage message, long index) {
        indexOf.remove(message, index);
    }

    private synchronized void remember(ChatMessage message, long index) {
        if (indexOf.put(message, index) == null) {
            remembered.addLast(message);
            if (remembered.size() > REMEMBERED_INSTANCES) {
                indexOf.remove(remembered.removeFirst());
            }
        }
    }
}
