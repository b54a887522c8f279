package dev.agentmemory.langchain4j.recall;

import static org.assertj.core.api.Assertions.assertThat;

import dev.agentmemory.testing.langchain4j.SharedEmbeddingModel;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A write does not refresh what searches see; the next read (or {@link HybridIndex#refresh()})
 * does, once for every write before it, and every read (search, find, absent) still answers as
 * of every write and delete that returned before it.
 */
class IndexRefreshesTest {

    private static final Instant T0 = Instant.parse("2024-05-01T10:00:00Z");
    private static final String ALICE = "acme/alice";
    private static final String BOB = "acme/bob";

    private final HybridIndex index = HybridIndex.inMemory(384);

    @AfterEach
    void close() {
        index.close();
    }

    private static IndexedItem item(String id, String partition, String text, Instant time) {
        return new IndexedItem(id, partition, text, SharedEmbeddingModel.embed(text), time, Map.of("source", "test"));
    }

    private void add(String id, String partition, String text, Instant time) {
        index.upsert(item(id, partition, text, time));
    }

    private List<String> search(HybridIndex in, String partition, String question) {
        return in.search(RecallQuery.of(partition, question, SharedEmbeddingModel.embed(question), 20,
                T0.plus(Duration.ofDays(10)))).stream().map(RecallHit::id).toList();
    }

    @Test
    void should_refresh_once_for_every_write_before_a_read() {
        // given: items written one at a time, nothing read
        String[] texts = {"I play the cello.", "My sister lives in Lisbon.", "The dentist appointment is on Friday.",
                "Our cat is called Miso.", "I am allergic to peanuts.", "I ordered the blue raincoat in size medium."};
        for (int i = 0; i < texts.length; i++) {
            add("a" + i, ALICE, texts[i], T0.plusSeconds(i));
        }
        add("b0", BOB, "I prefer trains to planes.", T0);
        assertThat(index.refreshes()).isZero();

        // when: two searches
        List<String> first = search(index, ALICE, "Where does my sister live?");
        List<String> second = search(index, BOB, "How do I like to travel?");

        // then: the first refreshed once and saw every write; the second needed no refresh
        assertThat(first).hasSize(texts.length).startsWith("a1");
        assertThat(second).containsExactly("b0");
        assertThat(index.refreshes()).isEqualTo(1);
    }

    @Test
    void should_tell_what_is_absent_from_the_writes_since_the_last_refresh_without_refreshing() {
        // given: one item seen by a refresh, then one written and one deleted after it
        add("seen", ALICE, "I play the cello.", T0);
        assertThat(index.size()).isEqualTo(1);
        long refreshed = index.refreshes();
        add("new", ALICE, "My sister lives in Lisbon.", T0.plusSeconds(1));
        add("gone", ALICE, "Our cat is called Miso.", T0.plusSeconds(2));
        index.delete("gone");
        long afterDelete = index.refreshes();

        // when
        List<String> absent = index.absent(List.of("seen", "new", "gone", "never"));

        // then: answered without another refresh
        assertThat(absent).containsExactly("gone", "never");
        assertThat(index.refreshes()).isEqualTo(afterDelete);
        assertThat(afterDelete - refreshed).isLessThanOrEqualTo(1);
    }

    @Test
    void should_not_show_an_item_deleted_before_any_read_saw_it() {
        // given: written, never read
        add("pin", ALICE, "My card PIN is 4921, keep it safe.", T0);
        add("coat", ALICE, "I ordered the blue raincoat in size medium.", T0.plusSeconds(1));

        // when
        boolean deleted = index.delete("pin");

        // then: no read shows it
        assertThat(deleted).isTrue();
        assertThat(index.absent(List.of("pin"))).containsExactly("pin");
        assertThat(index.find("pin")).isEmpty();
        assertThat(search(index, ALICE, "What is my card PIN?")).containsExactly("coat");
        assertThat(index.size()).isEqualTo(1);
    }

    @Test
    void should_restore_the_older_statement_when_its_unread_replacement_is_deleted() {
        // given: a statement a search saw, then its replacement, written and not read
        add("old", ALICE, "My favourite programming language is Python.", T0);
        assertThat(search(index, ALICE, "favourite programming language")).containsExactly("old");
        add("new", ALICE, "My favourite programming language is Rust.", T0.plus(Duration.ofDays(2)));

        // when
        index.delete("new");

        // then: the older one is current again
        assertThat(index.supersededBy("old")).isEmpty();
        assertThat(search(index, ALICE, "favourite programming language")).containsExactly("old");
    }

    @Test
    void should_end_in_the_same_state_whether_or_not_a_read_follows_each_write_and_delete() {
        // given: statements, some replacing earlier ones, and deletes among them
        String[] texts = {
                "My phone number is 555-1234.", "I live in Lisbon with my sister.", "My favourite colour is green.",
                "Nora Fishel is an accomplished violinist.", "My phone number is now 555-9876.",
                "I moved from Lisbon to Porto last month.", "My favourite colour is blue these days.",
                "The dentist appointment is on Friday.", "The dentist appointment moved to Monday.",
                "Our cat is called Miso.", "Our cat is called Miso and she is three.", "I am allergic to peanuts."};
        try (HybridIndex read = HybridIndex.inMemory(384); HybridIndex unread = HybridIndex.inMemory(384)) {
            for (int i = 0; i < texts.length; i++) {
                IndexedItem item = item("s" + i, i % 4 == 3 ? BOB : ALICE, texts[i], T0.plus(Duration.ofMinutes(i)));
                List<Runnable> ops = new ArrayList<>();
                ops.add(() -> read.upsert(item));
                ops.add(() -> unread.upsert(item));
                if (i == 5 || i == 9) {
                    String id = "s" + (i - 1); // the newest before: a replacement or a replaced one
                    ops.add(() -> read.delete(id));
                    ops.add(() -> unread.delete(id));
                }
                if (i == 10) {
                    IndexedItem again = item("s2", ALICE, "My favourite colour is red now.", T0.plus(Duration.ofMinutes(20)));
                    ops.add(() -> read.upsert(again));
                    ops.add(() -> unread.upsert(again));
                }
                for (int k = 0; k < ops.size(); k += 2) {
                    ops.get(k).run();
                    read.size(); // a read after every change: refreshed each time
                    ops.get(k + 1).run();
                }
            }
            long unreadRefreshes = unread.refreshes();

            // then: the same items, superseded by the same ones, found by the same searches
            Map<String, String> expected = new TreeMap<>();
            Map<String, String> actual = new TreeMap<>();
            for (int i = 0; i < texts.length; i++) {
                String id = "s" + i;
                read.supersededBy(id).ifPresent(by -> expected.put(id, by));
                unread.supersededBy(id).ifPresent(by -> actual.put(id, by));
            }
            assertThat(expected).isNotEmpty();
            assertThat(actual).isEqualTo(expected);
            assertThat(unread.size()).isEqualTo(read.size());
            assertThat(search(unread, ALICE, "What is my phone number?")).isEqualTo(search(read, ALICE, "What is my phone number?"));
            assertThat(unreadRefreshes).isLessThan(read.refreshes());
        }
    }

    @Test
    void should_search_without_a_refresh_when_only_left_out_items_are_unshown_and_see_every_other_change() {
        // given: an item a search saw, then one the caller leaves out (a message in its window)
        add("seen", ALICE, "I play the cello.", T0);
        assertThat(search(index, ALICE, "What instrument do I play?")).containsExactly("seen");
        long refreshed = index.refreshes();
        add("window", ALICE, "My sister lives in Lisbon.", T0.plusSeconds(1));
        RecallQuery question = RecallQuery.of(ALICE, "Where does my sister live?",
                SharedEmbeddingModel.embed("Where does my sister live?"), 20, T0.plus(Duration.ofDays(10)));

        // when / then: leaving it out, no refresh; another item's write, or a delete, is seen at once
        assertThat(index.search(question, java.util.Set.of("window"))).extracting(RecallHit::id).containsExactly("seen");
        assertThat(index.refreshes()).isEqualTo(refreshed);
        add("other", ALICE, "Our cat is called Miso.", T0.plusSeconds(2));
        assertThat(index.search(question, java.util.Set.of("window"))).extracting(RecallHit::id)
                .containsExactlyInAnyOrder("seen", "window", "other");
        assertThat(index.refreshes()).isEqualTo(refreshed + 1);
        add("window2", ALICE, "My brother lives in Porto.", T0.plusSeconds(3));
        index.delete("seen");
        assertThat(index.search(question, java.util.Set.of("window", "window2"))).extracting(RecallHit::id)
                .doesNotContain("seen").contains("other");
    }
}
