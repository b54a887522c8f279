package dev.agentmemory.langchain4j.framing;

import static java.util.Objects.requireNonNull;

import java.security.MessageDigest;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * Finds memory blocks written by {@link MemoryFramer} in a text, decodes them and strips them.
 *
 * <p>A block is recognized only when it is complete and exactly in the framer's format: header at
 * the start of a line, the fixed introduction naming the same nonce, the announced number of item
 * lines each in canonical encoding, and the closing fence with the same nonce on a line of its own.
 * Anything else (a truncated block, a fake fence, a header quoted inside other text) is left alone.
 * The static methods check structure only; {@link MemoryFramer#parse} and {@link
 * MemoryFramer#stripFrames} also require the block's authentication code to match the framer's
 * key, so that only blocks that framer produced are touched.
 *
 * <p>Stateless and thread-safe.
 */
public final class MemoryFrameParser {

    /** What {@link MemoryFramer#attach} puts between the block and the user's text. */
    static final String SEPARATOR = "\n\n";

    private static final int HEADER_MAX = FrameCodec.OPEN.length() + FrameCodec.NONCE_HEX + " items=".length() + 9 + 3;
    private static final Pattern HEADER_PREFIX =
            Pattern.compile("<<<AGENT-MEMORY-DATA nonce=[0-9a-f]{32} items=[1-9][0-9]{0,8}>>>");

    private MemoryFrameParser() {
    }

    /** Every structurally valid block in {@code text}, in order of appearance. */
    public static List<ParsedFrame> parse(String text) {
        return parse(text, null);
    }

    /**
     * {@code text} without its structurally valid blocks. Each block is removed together with the
     * separator {@link MemoryFramer#attach} placed after it (or, for a block that ends the text, the
     * separator before it), so {@code stripFrames(framer.attach(userText, block)) == userText}.
     */
    public static String stripFrames(String text) {
        return strip(text, parse(text, null));
    }

    static String strip(String text, List<ParsedFrame> frames) {
        if (frames.isEmpty()) {
            return text;
        }
        StringBuilder out = new StringBuilder(text.length());
        int from = 0;
        for (ParsedFrame f : frames) {
            int start = f.start();
            int end = f.end();
            if (text.startsWith(SEPARATOR, end)) {
                end += SEPARATOR.length();
            } else if (end == text.length() && start - SEPARATOR.length() >= from
                    && text.startsWith(SEPARATOR, start - SEPARATOR.length())) {
                start -= SEPARATOR.length();
            }
            out.append(text, from, start);
            from = end;
        }
        out.append(text, from, text.length());
        return out.toString();
    }

    /** Blocks in {@code text}; when {@code key} is given, only those whose mac matches it. */
    static List<ParsedFrame> parse(String text, byte @Nullable [] key) {
        requireNonNull(text, "text");
        List<ParsedFrame> found = new ArrayList<>();
        int from = 0;
        while (true) {
            int at = text.indexOf(FrameCodec.OPEN, from);
            if (at < 0) {
                return found;
            }
            Optional<ParsedFrame> frame = at == 0 || text.charAt(at - 1) == '\n'
                    ? tryBlock(text, at, key) : Optional.empty();
            if (frame.isPresent()) {
                found.add(frame.get());
                from = frame.get().end();
            } else {
                from = at + 1;
            }
        }
    }

    private static Optional<ParsedFrame> tryBlock(String text, int at, byte @Nullable [] key) {
        var m = HEADER_PREFIX.matcher(text).region(at, Math.min(text.length(), at + HEADER_MAX));
        if (!m.lookingAt() || m.end() >= text.length() || text.charAt(m.end()) != '\n') {
            return Optional.empty();
        }
        Optional<FrameCodec.Header> header = FrameCodec.parseHeader(text.substring(at, m.end()));
        if (header.isEmpty()) {
            return Optional.empty();
        }
        String nonce = header.get().nonce();
        int count = header.get().items();
        String intro = FrameCodec.intro(nonce);
        int pos = m.end() + 1;
        if (!text.startsWith(intro, pos) || !text.startsWith("\n", pos + intro.length())) {
            return Optional.empty();
        }
        pos += intro.length() + 1;
        List<FramedItem> items = new ArrayList<>();
        List<List<String>> flags = new ArrayList<>();
        for (int n = 1; n <= count; n++) {
            int eol = text.indexOf('\n', pos);
            if (eol < 0) {
                return Optional.empty();
            }
            Optional<FrameCodec.DecodedLine> line = FrameCodec.parseItemLine(text.substring(pos, eol), n);
            if (line.isEmpty()) {
                return Optional.empty();
            }
            items.add(line.get().item());
            flags.add(line.get().flags());
            pos = eol + 1;
        }
        int footerEnd = pos + FrameCodec.CLOSE.length() + FrameCodec.NONCE_HEX + " mac=".length() + FrameCodec.MAC_HEX + 3;
        if (footerEnd > text.length() || (footerEnd < text.length() && text.charAt(footerEnd) != '\n')) {
            return Optional.empty();
        }
        Optional<String[]> footer = FrameCodec.parseFooter(text.substring(pos, footerEnd));
        if (footer.isEmpty() || !footer.get()[0].equals(nonce)) {
            return Optional.empty();
        }
        String mac = footer.get()[1];
        if (key != null) {
            String expected = FrameCodec.mac(key, text.substring(at, pos - 1));
            if (!MessageDigest.isEqual(expected.getBytes(StandardCharsets.US_ASCII), mac.getBytes(StandardCharsets.US_ASCII))) {
                return Optional.empty();
            }
        }
        return Optional.of(new ParsedFrame(nonce, at, footerEnd, items, flags, mac));
    }
}
