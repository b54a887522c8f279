package dev.agentmemory.langchain4j.framing;

import dev.agentmemory.core.MemoryRecord.Trust;
import static java.util.Objects.requireNonNull;

import dev.agentmemory.core.policy.InstructionDetector;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.ToIntFunction;
import java.util.random.RandomGenerator;

/**
 * Renders remembered items into one prompt block that a model reads as background data.
 *
 * <p>The block (format in {@code FrameCodec}) opens with a fence line carrying a fresh random
 * 128-bit nonce, then one fixed line telling the model that what follows is data, not
 * instructions, that the current conversation takes precedence, and what "untrusted" and "flags"
 * mean; then one JSON line per item showing id, date, kind, source, trust, status, flags, extra
 * attributes and text; then a closing fence with the same nonce and an HMAC of the block under the
 * framer's key. Item strings are JSON-encoded with {@code < > `}, line breaks, control, format and
 * separator characters and unpaired surrogates escaped, so no item content can end the block, open
 * another one, or put anything outside it; {@link MemoryFrameParser} decodes every item back to
 * exactly its original strings.
 *
 * <p>Untrusted items whose strings read like instructions (per {@link InstructionDetector}) carry
 * {@code "flags"} naming the cue kinds found (labels only, never text). Trusted items are not
 * flagged: a user's "from now on, answer in Chinese" is a preference the model should honour.
 *
 * <p>A budget bounds the block: items are taken in the given order (put the most important
 * first); an item that does not fit in the remaining characters or approximate tokens is cut and
 * reported in {@link FramedBlock#cut()}, and later, smaller items may still fit. Nothing is
 * truncated.
 *
 * <p>Thread-safe when its random generator is (the default {@link SecureRandom} is).
 */
public final class MemoryFramer {

    /** Default character budget of a block. */
    public static final int DEFAULT_MAX_CHARS = 8_000;
    /** Default approximate token budget of a block. */
    public static final int DEFAULT_MAX_TOKENS = 2_000;

    private final int maxChars;
    private final int maxTokens;
    private final ToIntFunction<String> tokenEstimator;
    private final RandomGenerator random;
    private final byte[] key;
    private final InstructionDetector instructionDetector;
    /**
     * The last texts {@link #attach} produced, each mapped to the user text it framed: the chat
     * memory store strips the current turn's block on every update, and an exact match needs no
     * parse or MAC check (a profile put that at a third of persisting a turn).
     */
    private final Map<String, String> recentlyAttached = new LinkedHashMap<>(64, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, String> eldest) {
            return size() > RECENTLY_ATTACHED;
        }
    };
    private static final int RECENTLY_ATTACHED = 256;

    private MemoryFramer(Builder b) {
        this.maxChars = b.maxChars;
        this.maxTokens = b.maxTokens;
        this.tokenEstimator = b.tokenEstimator;
        this.random = b.random;
        this.key = b.key.clone();
        this.instructionDetector = b.instructionDetector;
    }

    /** A builder with the defaults: 8,000 characters, 2,000 approximate tokens, random nonce and key. */
    public static Builder builder() {
        return new Builder();
    }

    /** Frames {@code items} in order, within the budget. An empty result has empty text. */
    public FramedBlock frame(List<FramedItem> items) {
        requireNonNull(items, "items");
        List<FramedItem> all = List.copyOf(items);
        String nonce = nonce();
        String intro = FrameCodec.intro(nonce);
        String widestHeader = FrameCodec.header(nonce, Math.max(1, all.size()));
        String sampleFooter = FrameCodec.footer(nonce, "0".repeat(FrameCodec.MAC_HEX));
        int usedChars = widestHeader.length() + 1 + intro.length() + 1 + sampleFooter.length();
        int usedTokens = tokens(widestHeader) + tokens(intro) + tokens(sampleFooter);

        List<FramedItem> included = new ArrayList<>();
        List<String> lines = new ArrayList<>();
        List<CutItem> cut = new ArrayList<>();
        for (FramedItem item : all) {
            String line = FrameCodec.itemLine(included.size() + 1, item, flagsFor(item));
            int chars = line.length() + 1;
            int toks = tokens(line);
            if (usedChars + chars > maxChars) {
                cut.add(new CutItem(item, CutItem.Reason.CHARACTER_BUDGET, "needs " + chars + " characters, "
                        + Math.max(0, maxChars - usedChars) + " of the " + maxChars + "-character budget left"));
            } else if (usedTokens + toks > maxTokens) {
                cut.add(new CutItem(item, CutItem.Reason.TOKEN_BUDGET, "needs about " + toks + " tokens, "
                        + Math.max(0, maxTokens - usedTokens) + " of the " + maxTokens + "-token budget left"));
            } else {
                included.add(item);
                lines.add(line);
                usedChars += chars;
                usedTokens += toks;
            }
        }
        if (included.isEmpty()) {
            return new FramedBlock("", "", List.of(), cut, 0);
        }
        String header = FrameCodec.header(nonce, included.size());
        StringBuilder body = new StringBuilder(usedChars).append(header).append('\n').append(intro);
        int approx = tokens(header) + tokens(intro);
        for (String line : lines) {
            body.append('\n').append(line);
            approx += tokens(line);
        }
        String footer = FrameCodec.footer(nonce, FrameCodec.mac(key, body.toString()));
        approx += tokens(footer);
        return new FramedBlock(body.append('\n').append(footer).toString(), nonce, included, cut, approx);
    }

    /**
     * The user's message with {@code block} in front of it (block, blank line, user text), or the
     * text unchanged when the block is empty. {@link #stripFrames} undoes exactly this.
     */
    public String attach(String userText, FramedBlock block) {
        requireNonNull(userText, "userText");
        requireNonNull(block, "block");
        if (block.isEmpty()) {
            return userText;
        }
        String framed = block.text() + MemoryFrameParser.SEPARATOR + userText;
        synchronized (recentlyAttached) {
            recentlyAttached.put(framed, userText);
        }
        return framed;
    }

    /**
     * Drops the texts {@link #attach} remembered (they hold memory values), so nothing forgotten
     * stays in this cache; returns how many there were. Stripping still works without them.
     */
    public int forgetAttached() {
        synchronized (recentlyAttached) {
            int n = recentlyAttached.size();
            recentlyAttached.clear();
            return n;
        }
    }

    /** The blocks in {@code text} that this framer produced (their mac matches its key). */
    public List<ParsedFrame> parse(String text) {
        return MemoryFrameParser.parse(text, key);
    }

    /**
     * Undoes {@link #attach}: when {@code text} starts with a block this framer produced (its mac
     * matches this framer's key) followed by the separator attach puts after it, the text after
     * them; otherwise {@code text} unchanged. Only that one block, at that one position, is ever
     * removed: a block anywhere else (a model's reply echoing it, a user pasting it, marker lines
     * quoted in tool arguments), a foreign or tampered block, and any other text are left exactly
     * as they are.
     */
    public String stripFrames(String text) {
        requireNonNull(text, "text");
        synchronized (recentlyAttached) {
            String attachedTo = recentlyAttached.get(text);
            if (attachedTo != null) {
                return attachedTo;
            }
        }
        if (!text.startsWith(FrameCodec.OPEN)) {
            return text;
        }
        List<ParsedFrame> frames = parse(text);
        if (frames.isEmpty() || frames.get(0).start() != 0
                || !text.startsWith(MemoryFrameParser.SEPARATOR, frames.get(0).end())) {
            return text;
        }
        return text.substring(frames.get(0).end() + MemoryFrameParser.SEPARATOR.length());
    }

    /** The character budget. */
    public int maxChars() {
        return maxChars;
    }

    /** The approximate token budget. */
    public int maxTokens() {
        return maxTokens;
    }

    /**
     * The default token estimate: a quarter token per ASCII character, half per other character
     * below U+3000, one per character from U+3000 (CJK, emoji). Close enough for budgeting.
     */
    public static int approxTokens(String text) {
        requireNonNull(text, "text");
        long quarters = 0;
        for (int i = 0; i < text.length(); ) {
            int cp = text.codePointAt(i);
            i += Character.charCount(cp);
            quarters += cp < 0x80 ? 1 : cp < 0x3000 ? 2 : 4;
        }
        return (int) Math.min(Integer.MAX_VALUE, (quarters + 3) / 4);
    }

    private int tokens(String s) {
        int t = tokenEstimator.applyAsInt(s);
        if (t < 0) {
            throw new IllegalStateException("token estimator returned a negative count: " + t);
        }
        return t;
    }

    private List<String> flagsFor(FramedItem item) {
        if (item.trust() == Trust.TRUSTED) {
            return List.of();
        }
        StringBuilder all = new StringBuilder(item.text());
        all.append('\n').append(item.id()).append('\n').append(item.kind()).append('\n').append(item.source())
                .append('\n').append(item.status());
        item.extra().forEach((k, v) -> all.append('\n').append(k).append(": ").append(v));
        return instructionDetector.detect(all.toString()).stream()
                .map(InstructionDetector.Cue::label).toList();
    }

    private String nonce() {
        byte[] b = new byte[FrameCodec.NONCE_HEX / 2];
        random.nextBytes(b);
        return HexFormat.of().formatHex(b);
    }

    /** Configures a {@link MemoryFramer}. Not thread-safe. */
    public static final class Builder {
        private int maxChars = DEFAULT_MAX_CHARS;
        private int maxTokens = DEFAULT_MAX_TOKENS;
        private ToIntFunction<String> tokenEstimator = MemoryFramer::approxTokens;
        private RandomGenerator random = new SecureRandom();
        private byte[] key;
        private InstructionDetector instructionDetector = InstructionDetector.standard();

        private Builder() {
            key = new byte[32];
            new SecureRandom().nextBytes(key);
        }

        /** The most characters a block may have, header and fences included; at least 1. */
        public Builder maxChars(int maxChars) {
            if (maxChars < 1) {
                throw new IllegalArgumentException("maxChars must be > 0: " + maxChars);
            }
            this.maxChars = maxChars;
            return this;
        }

        /** The most approximate tokens a block may have, header and fences included; at least 1. */
        public Builder maxTokens(int maxTokens) {
            if (maxTokens < 1) {
                throw new IllegalArgumentException("maxTokens must be > 0: " + maxTokens);
            }
            this.maxTokens = maxTokens;
            return this;
        }

        /** How tokens are counted (e.g. a model's own estimator); applied to each line of the block. */
        public Builder tokenEstimator(ToIntFunction<String> tokenEstimator) {
            this.tokenEstimator = requireNonNull(tokenEstimator, "tokenEstimator");
            return this;
        }

        /** Where nonces come from; the default is a {@link SecureRandom}. Tests may fix it. */
        public Builder random(RandomGenerator random) {
            this.random = requireNonNull(random, "random");
            return this;
        }

        /**
         * The secret that authenticates this framer's blocks (at least 16 bytes; default: 32 random
         * bytes). Share one framer, or one key, between the injector and the chat-memory store.
         */
        public Builder key(byte[] key) {
            requireNonNull(key, "key");
            if (key.length < 16) {
                throw new IllegalArgumentException("key must have at least 16 bytes: " + key.length);
            }
            this.key = key.clone();
            return this;
        }

        /**
         * Which untrusted items carry instruction-like flags in the block. Default:
         * {@link InstructionDetector#standard()}.
         */
        public Builder instructionDetector(InstructionDetector detector) {
            this.instructionDetector = requireNonNull(detector, "detector");
            return this;
        }

        public MemoryFramer build() {
            return new MemoryFramer(this);
        }
    }
}
