package dev.agentmemory.langchain4j.framing;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;

/** The properties every framed prompt must have, checked the same way by every test. */
final class FrameInvariants {

    private FrameInvariants() {
    }

    /** Frames {@code items}, attaches to {@code userText} and checks everything; returns the block. */
    static FramedBlock frameAndCheck(MemoryFramer framer, List<FramedItem> items, String userText) {
        FramedBlock block = framer.frame(items);
        String prompt = framer.attach(userText, block);

        // budget respected; every input is either included or cut, in order
        assertThat(block.chars()).isLessThanOrEqualTo(framer.maxChars());
        assertThat(block.approxTokens()).isLessThanOrEqualTo(framer.maxTokens());
        List<FramedItem> accounted = new ArrayList<>(block.included());
        block.cut().forEach(c -> accounted.add(c.item()));
        assertThat(accounted).containsExactlyInAnyOrderElementsOf(items);
        assertThat(block.included()).isSubsetOf(items);

        if (block.isEmpty()) {
            assertThat(prompt).isEqualTo(userText);
            return block;
        }
        // exactly one block, found both structurally and by the authenticating framer
        List<ParsedFrame> authentic = framer.parse(prompt);
        List<ParsedFrame> structural = MemoryFrameParser.parse(prompt);
        assertThat(authentic).hasSize(1);
        assertThat(structural).hasSize(1);
        ParsedFrame frame = authentic.get(0);
        assertThat(structural.get(0)).isEqualTo(frame);

        // every item decodes back to exactly what was given
        assertThat(frame.items()).isEqualTo(block.included());
        assertThat(frame.nonce()).isEqualTo(block.nonce());
        assertThat(prompt.substring(frame.start(), frame.end())).isEqualTo(block.text());

        // nothing but the user's own text outside the block; stripping gives it back exactly
        assertThat(prompt.substring(0, frame.start()) + prompt.substring(frame.end()))
                .isEqualTo(MemoryFrameParser.SEPARATOR + userText);
        assertThat(framer.stripFrames(prompt)).isEqualTo(userText);
        framer.forgetAttached(); // strip again by parsing the prompt, not from the attach cache
        assertThat(framer.stripFrames(prompt)).isEqualTo(userText);
        assertThat(MemoryFrameParser.stripFrames(prompt)).isEqualTo(userText);

        // the block holds exactly two fences, one per line, and no raw line breaks beyond its own lines
        String text = block.text();
        assertThat(count(text, "<<<")).isEqualTo(2);
        assertThat(count(text, ">>>")).isEqualTo(2);
        assertThat(count(text, "```")).isZero();
        assertThat(text.lines().count()).isEqualTo(block.included().size() + 3L);
        assertThat(text).doesNotContain("\r", "\u2028", "\u2029", "\u0085", "\u0000");
        return block;
    }

    static int count(String haystack, String needle) {
        int n = 0;
        for (int i = haystack.indexOf(needle); i >= 0; i = haystack.indexOf(needle, i + 1)) {
            n++;
        }
        return n;
    }
}
