package dev.agentmemory.langchain4j;

import static org.assertj.core.api.Assertions.assertThat;

import dev.agentmemory.core.Caller;
import dev.agentmemory.core.MemoryKey;
import dev.agentmemory.core.MemoryRecord;
import dev.agentmemory.core.MemoryRecord.Kind;
import dev.agentmemory.core.MemoryRecord.Source;
import dev.agentmemory.core.MemoryValue;
import dev.agentmemory.core.Proposal;
import dev.agentmemory.core.Scope.Layer;
import dev.agentmemory.core.ScopeView.KeyState;
import dev.agentmemory.testing.TestClock;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.invocation.InvocationContext;
import dev.langchain4j.rag.query.Metadata;
import dev.langchain4j.rag.query.Query;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The persistent index's word scanner, which lower-cases as it scans, gives exactly the words of
 * the definition it replaced: the runs of {@code [\p{L}\p{N}]} in the text lower-cased whole with
 * {@link Locale#ROOT}, of three chars or more, in order, repeats included. On generated text whose
 * lower case depends on context or changes length (Turkish dotted I, German sharp s, Greek final
 * sigma), CJK, emoji, combining marks, letters outside the basic plane and lone surrogates.
 */
class WordScannerTest {

    private static final Pattern WORD = Pattern.compile("[\\p{L}\\p{N}]+");

    private static final List<String> PIECES = List.of(
            // ASCII words, digits and separators
            "Hotel", "LISBOA", "k12", "2024", "ab", "x", " ", ".", "-", "_", ":", "'", "\t", "\n", ",",
            // Turkish: capital I with dot (lower case: i and a combining dot), dotless i, i with a combining dot
            "İ", "İstanbul", "DİYARBAKIR", "ı", "I", "i\u0307", "Iİ",
            // German: sharp s, capital sharp s, words with them
            "ß", "ẞ", "Straße", "STRASSE", "GROẞ",
            // Greek: capital sigma, final or not depending on the letters around it (across case-ignorable marks too)
            "Σ", "σ", "ς", "ΟΔΟΣ", "ΣΑΣ", "ΑΣ", "Σ.", "ό", "\u00B7", "ΌΣΟΣ",
            // CJK, Hangul, other scripts and numbers of other kinds
            "中文", "日本語", "한국어", "٣٤٥", "²", "Ⅻ", "ǅ", "ʰ", "Ωμέγα",
            // emoji (outside the basic plane), a modifier, a joiner, a flag
            "😀", "👍🏽", "\u200D", "🇩🇪",
            // combining marks, alone and after letters
            "\u0301", "e\u0301", "\u0308", "Å", "A\u030A",
            // letters outside the basic plane whose lower case also is, and lone surrogates
            "𐐀", "𐐨", "𝐀", "\uD800", "\uDC00");

    /** The definition the scanner replaced. */
    private static List<String> previousDefinition(String text) {
        List<String> out = new ArrayList<>();
        Matcher m = WORD.matcher(text.toLowerCase(Locale.ROOT));
        while (m.find()) {
            if (m.end() - m.start() > 2) {
                out.add(m.group());
            }
        }
        return out;
    }

    /** What a value may hold: no lone surrogate. */
    private static final List<String> VALUE_PIECES = PIECES.stream()
            .filter(p -> !p.equals("\uD800") && !p.equals("\uDC00")).toList();

    private static String generated(Random random, int maxPieces) {
        return generated(random, maxPieces, PIECES);
    }

    private static String generated(Random random, int maxPieces, List<String> pieces) {
        StringBuilder text = new StringBuilder();
        for (int n = random.nextInt(maxPieces); n >= 0; n--) {
            text.append(pieces.get(random.nextInt(pieces.size())));
        }
        return text.toString();
    }

    private static List<String> scanned(String text) {
        List<String> out = new ArrayList<>();
        new WordScanner().scan(text, (chars, length, hash) -> out.add(new String(chars, 0, length)));
        return out;
    }

    @Test
    void should_give_the_words_of_the_previous_definition_in_order_with_repeats() {
        Random random = new Random(27);
        WordScanner scanner = new WordScanner();
        for (int i = 0; i < 50_000; i++) {
            // given
            String text = generated(random, 16);

            // when: one scanner reused, as the index does
            List<String> words = new ArrayList<>();
            scanner.scan(text, (chars, length, hash) -> {
                String word = new String(chars, 0, length);
                assertThat(hash).as("hash of '%s'", word).isEqualTo(word.hashCode());
                words.add(word);
            });

            // then
            assertThat(words).as("words of '%s'", text).isEqualTo(previousDefinition(text));
        }
    }

    @Test
    void should_give_a_keys_words_as_its_path_and_its_value_joined_by_a_space() {
        Random random = new Random(6);
        WordScanner scanner = new WordScanner();
        List<String> paths = List.of("fact", "order.colour", "trip:2026-03.hotel_name", "a.b.c", "K1.straße_x");
        for (int i = 0; i < 30_000; i++) {
            // given: the value's text inside quotes, as in its JSON, and the path
            String path = paths.get(random.nextInt(paths.size() - 1));
            String value = generated(random, 10);
            String json = "\"" + value + "\"";

            // when
            List<String> words = new ArrayList<>();
            scanner.scanKey(path, json, 1, json.length() - 1, (chars, length, hash) -> words.add(new String(chars, 0, length)));

            // then
            assertThat(words).as("words of '%s' and '%s'", path, value)
                    .isEqualTo(previousDefinition(path.replace('.', ' ') + " " + value));
        }
    }

    @Test
    void should_give_the_same_words_after_a_text_and_a_word_longer_than_the_buffers_it_keeps() {
        // given: one scanner, as an index has, and texts of every length, some one long word
        Random random = new Random(8);
        WordScanner scanner = new WordScanner();
        for (int length : new int[] {10, 5_000, 3, 20_000, 40, 9_000, 1}) {
            StringBuilder text = new StringBuilder();
            while (text.length() < length) {
                text.append(random.nextBoolean() ? "Wörter " : "x".repeat(random.nextInt(6_000)));
            }

            // when
            List<String> words = new ArrayList<>();
            scanner.scan(text.toString(), (chars, n, hash) -> words.add(new String(chars, 0, n)));

            // then
            assertThat(words).isEqualTo(previousDefinition(text.toString()));
        }
    }

    @Test
    void should_find_words_whose_lower_case_depends_on_the_letters_around_them() {
        assertThat(scanned("ΟΔΟΣ ΣΑΣ")).containsExactly("οδος", "σας");
        assertThat(scanned("İstanbul DİYARBAKIR")).containsExactly("stanbul", "yarbakir");
        assertThat(scanned("STRAẞE Straße")).containsExactly("straße", "straße");
        assertThat(scanned("中文 😀😀😀 e\u0301tes")).containsExactly("tes");
        assertThat(scanned("日本語 𐐀𐐀𐐀")).containsExactly("日本語", "𐐨𐐨𐐨");
    }

    @Test
    void should_rank_memories_in_any_script_as_a_sort_by_the_previous_definition_does() {
        // given: keys whose values are generated text, each recorded at its own time
        Random random = new Random(12);
        SessionRef alice = new SessionRef("acme", "alice", "s1");
        TestClock clock = new TestClock(Instant.parse("2026-03-01T10:00:00Z"));
        try (AgentMemory memory = AgentMemory.builder().engineSettings(e -> e.clock(clock)).build()) {
            Caller caller = memory.caller(alice);
            for (int i = 0; i < 80; i++) {
                memory.engine().write(caller, Proposal.set(caller.persistent(), MemoryKey.of("note.k" + i),
                        MemoryValue.of(generated(random, 12, VALUE_PIECES))).kind(i % 13 == 0 ? Kind.PREFERENCE : Kind.DECISION)
                        .source(Source.USER).build());
                clock.advance(Duration.ofSeconds(random.nextInt(3)));
            }
            List<KeyState> servable = memory.engine().servable(caller, Layer.PERSISTENT);
            for (int q = 0; q < 40; q++) {
                String question = generated(random, 8, VALUE_PIECES) + " " + generated(random, 8, VALUE_PIECES);
                Set<String> query = new HashSet<>(previousDefinition(question));

                // when
                Metadata md = Metadata.builder().chatMessage(UserMessage.from(question))
                        .invocationContext(InvocationContext.builder().chatMemoryId(alice).build()).build();
                List<String> got = memory.contentRetriever().retrieve(Query.from(question, md)).stream()
                        .filter(c -> "persistent".equals(c.textSegment().metadata().getString(MemoryContent.LAYER)))
                        .map(c -> c.textSegment().metadata().getString(MemoryContent.KEY)).toList();

                // then
                List<String> expected = servable.stream().sorted(ranking(query)).limit(got.size())
                        .map(k -> k.key().path()).toList();
                assertThat(PersistentIndex.terms(question)).as(question).isEqualTo(query);
                assertThat(got).as(question).isNotEmpty().isEqualTo(expected);
            }
        }
    }

    /** Preferences first, then by the share of the query's words a key holds, newest first, then by key. */
    private static Comparator<KeyState> ranking(Set<String> query) {
        return Comparator.<KeyState, Boolean>comparing(k -> k.current().kind() == Kind.PREFERENCE).reversed()
                .thenComparing(Comparator.<KeyState>comparingDouble(k -> overlap(query, k)).reversed())
                .thenComparing(Comparator.<KeyState, Instant>comparing(k -> k.current().recordedAt()).reversed())
                .thenComparing(k -> k.key().path());
    }

    private static double overlap(Set<String> query, KeyState k) {
        MemoryRecord r = k.current();
        Set<String> item = new HashSet<>(previousDefinition(k.key().path().replace('.', ' ') + " " + r.text()));
        return query.isEmpty() ? 0 : (double) query.stream().filter(item::contains).count() / query.size();
    }
}
