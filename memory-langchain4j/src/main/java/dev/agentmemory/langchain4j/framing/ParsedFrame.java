package dev.agentmemory.langchain4j.framing;

import static java.util.Objects.requireNonNull;

import java.util.List;

/**
 * A memory block found in a prompt by {@link MemoryFrameParser}.
 *
 * @param nonce the block's nonce
 * @param start offset of the block's first character in the searched text
 * @param end   offset just after the block's last character
 * @param items the decoded items, in block order
 * @param flags for each item (same index), the instruction cues rendered for it; empty for trusted
 *              items and for untrusted items without cues
 * @param mac   the authentication code carried by the closing fence
 */
public record ParsedFrame(String nonce, int start, int end, List<FramedItem> items, List<List<String>> flags, String mac) {

    public ParsedFrame {
        requireNonNull(nonce, "nonce");
        requireNonNull(mac, "mac");
        items = List.copyOf(items);
        flags = flags.stream().map(List::copyOf).toList();
        if (flags.size() != items.size()) {
            throw new IllegalArgumentException("flags size " + flags.size() + " != items size " + items.size());
        }
        if (start < 0 || end < start) {
            throw new IllegalArgumentException("bad range: [" + start + ", " + end + ")");
        }
    }
}
