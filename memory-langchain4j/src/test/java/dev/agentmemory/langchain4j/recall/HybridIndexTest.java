package dev.agentmemory.langchain4j.recall;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.agentmemory.testing.langchain4j.SharedEmbeddingModel;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class HybridIndexTest {

    private static final Instant T0 = Instant.parse("2024-05-01T10:00:00Z");
    private static final String ALICE = "acme/alice";
    private static final String BOB = "acme/bob";

    private final HybridIndex index = HybridIndex.inMemory(384);

    @AfterEach
    void close() {
        index.close();
    }

    private void add(String id, String partition, String text, Instant time) {
        index.upsert(new IndexedItem(id, partition, text, SharedEmbeddingModel.embed(text), time,
                Map.of("source", "test")));
    }

    private List<RecallHit> search(String partition, String question, int max) {
        return index.search(RecallQuery.of(partition, question, SharedEmbeddingModel.embed(question), max,
                T0.plus(Duration.ofDays(10))));
    }

    private static List<String> ids(List<RecallHit> hits) {
        return hits.stream().map(RecallHit::id).toList();
    }

    @Test
    void should_never_return_items_of_another_partition_when_searching() {
        // given: Bob holds the only item that matches the question exactly
        add("b1", BOB, "My bank PIN is 4711 and my dog is called Rex.", T0);
        add("a1", ALICE, "I like hiking in the Alps.", T0);
        add("a2", ALICE, "Lunch is usually a salad.", T0);

        // when: Alice asks for many results
        List<RecallHit> hits = search(ALICE, "What is my bank PIN and my dog's name?", 50);
        List<RecallHit> lexicalOnly = index.search(new RecallQuery(ALICE, "bank PIN dog Rex 4711", null, 50,
                T0, true, 0));

        // then
        assertThat(ids(hits)).containsExactlyInAnyOrder("a1", "a2");
        assertThat(lexicalOnly).isEmpty();
        assertThat(ids(search(BOB, "What is my bank PIN?", 50))).containsExactly("b1");
    }

    @Test
    void should_replace_item_when_upserting_same_id() {
        // given
        add("x", ALICE, "The meeting is in room 12.", T0);

        // when
        add("x", ALICE, "Sourdough needs a long fermentation.", T0.plusSeconds(60));

        // then
        assertThat(index.size()).isEqualTo(1);
        List<RecallHit> hits = search(ALICE, "How long does sourdough ferment?", 5);
        assertThat(hits).extracting(RecallHit::text).containsExactly("Sourdough needs a long fermentation.");
        assertThat(hits.get(0).attributes()).isEqualTo(Map.of("source", "test"));
        assertThat(hits.get(0).time()).isEqualTo(T0.plusSeconds(60));
    }

    @Test
    void should_forget_items_when_deleted_by_id_or_partition() {
        // given
        add("a1", ALICE, "I play the cello.", T0);
        add("a2", ALICE, "My sister lives in Lisbon.", T0);
        add("b1", BOB, "I play the cello too.", T0);

        // when / then
        assertThat(index.delete("a1")).isTrue();
        assertThat(index.delete("a1")).isFalse();
        assertThat(index.find("a1")).isEmpty();
        assertThat(ids(search(ALICE, "cello", 5))).containsExactly("a2");
        assertThat(index.deletePartition(ALICE)).isEqualTo(1);
        assertThat(search(ALICE, "Lisbon sister", 5)).isEmpty();
        assertThat(index.size()).isEqualTo(1);
        assertThat(ids(search(BOB, "cello", 5))).containsExactly("b1");
    }

    @Test
    void should_match_chinese_text_lexically_when_query_shares_words() {
        // given: Chinese memories (the embedding model is English-only, so lexical scoring must carry this)
        add("zh1", ALICE, "我喜欢喝乌龙茶，不喜欢咖啡。", T0);
        add("zh2", ALICE, "下周三我要去上海出差。", T0);
        add("en1", ALICE, "I prefer answers in English.", T0);

        // when: lexical-only queries in Chinese
        List<RecallHit> trip = index.search(new RecallQuery(ALICE, "上海出差是哪天？", null, 3, T0, false, 0));
        List<RecallHit> tea = index.search(new RecallQuery(ALICE, "乌龙茶", null, 3, T0, false, 0));
        List<RecallHit> single = index.search(new RecallQuery(ALICE, "茶", null, 3, T0, false, 0));

        // then
        assertThat(ids(trip)).containsExactly("zh2");
        assertThat(ids(tea)).containsExactly("zh1");
        assertThat(ids(single)).containsExactly("zh1");
        assertThat(trip.get(0).why()).contains("lexical");
    }

    @Test
    void should_stem_english_words_when_matching_lexically() {
        // given
        add("e1", ALICE, "She was running marathons in 2019.", T0);
        add("e2", ALICE, "The cat sleeps on the sofa.", T0);

        // when
        List<RecallHit> hits = index.search(new RecallQuery(ALICE, "marathon runs", null, 5, T0, false, 0));

        // then
        assertThat(ids(hits)).containsExactly("e1");
    }

    @Test
    void should_mark_older_statement_superseded_when_newer_near_duplicate_disagrees() {
        // given
        add("old", ALICE, "Bryen Forster is an accomplished graphic designer based in Seattle.", T0);
        add("other", ALICE, "Bryen Forster and Austen Moralez collaborated on a branding project.", T0.plusSeconds(60));

        // when
        add("new", ALICE, "Bryen Forster is an accomplished graphic designer based in Austin, Texas.",
                T0.plus(Duration.ofDays(1)));

        // then
        assertThat(index.supersededBy("old")).contains("new");
        assertThat(index.supersededBy("other")).isEmpty();
        assertThat(index.supersededBy("new")).isEmpty();
        List<RecallHit> hits = search(ALICE, "Which city is Bryen Forster based in?", 5);
        assertThat(ids(hits)).doesNotContain("old").startsWith("new");
        assertThat(hits).noneMatch(RecallHit::superseded);
    }

    @Test
    void should_not_supersede_when_a_different_speaker_says_it() {
        // given: Alice's friend states a near-duplicate that differs
        index.upsert(new IndexedItem("mine", ALICE, "My favourite programming language is Python.",
                SharedEmbeddingModel.embed("My favourite programming language is Python."), T0,
                Map.of(HybridIndex.SPEAKER_ATTRIBUTE, "Alice")));

        // when
        index.upsert(new IndexedItem("friend", ALICE, "My favourite programming language is Rust.",
                SharedEmbeddingModel.embed("My favourite programming language is Rust."), T0.plus(Duration.ofDays(2)),
                Map.of(HybridIndex.SPEAKER_ATTRIBUTE, "Bob")));

        // then: both stay current, at write and at read time
        assertThat(index.supersededBy("mine")).isEmpty();
        List<RecallHit> hits = index.search(RecallQuery.of(ALICE, "favourite programming language",
                SharedEmbeddingModel.embed("favourite programming language"), 5, T0.plus(Duration.ofDays(3)))
                .withIncludeSuperseded(true));
        assertThat(ids(hits)).containsExactlyInAnyOrder("mine", "friend");
        assertThat(hits).noneMatch(RecallHit::superseded);
    }

    @Test
    void should_include_superseded_items_flagged_and_demoted_when_asked() {
        // given
        add("old", ALICE, "My favourite programming language is Python.", T0);
        add("new", ALICE, "My favourite programming language is Rust.", T0.plus(Duration.ofDays(2)));

        // when
        List<RecallHit> hits = index.search(RecallQuery.of(ALICE, "favourite programming language",
                SharedEmbeddingModel.embed("favourite programming language"), 5, T0.plus(Duration.ofDays(3)))
                .withIncludeSuperseded(true));

        // then
        assertThat(ids(hits)).containsExactly("new", "old");
        RecallHit old = hits.get(1);
        assertThat(old.superseded()).isTrue();
        assertThat(old.supersededBy()).isEqualTo("new");
        assertThat(old.why()).contains("superseded by new");
        assertThat(hits.get(0).superseded()).isFalse();
        assertThat(hits.get(0).supersededBy()).isNull();
    }

    @Test
    void should_keep_older_item_current_when_newer_arrives_out_of_order() {
        // given: the newer statement was indexed first
        add("new", ALICE, "My favourite programming language is Rust.", T0.plus(Duration.ofDays(2)));

        // when: an older statement is indexed late
        add("old", ALICE, "My favourite programming language is Python.", T0);

        // then
        assertThat(index.supersededBy("old")).contains("new");
        assertThat(index.supersededBy("new")).isEmpty();
    }

    @Test
    void should_restore_superseded_item_when_newer_one_is_deleted() {
        // given
        add("old", ALICE, "My favourite programming language is Python.", T0);
        add("new", ALICE, "My favourite programming language is Rust.", T0.plus(Duration.ofDays(2)));
        assertThat(index.supersededBy("old")).contains("new");

        // when
        index.delete("new");

        // then
        assertThat(index.supersededBy("old")).isEmpty();
        assertThat(ids(search(ALICE, "favourite programming language", 5))).containsExactly("old");
    }

    @Test
    void should_not_supersede_unrelated_facts_when_they_share_a_name() {
        // given: several different facts about one person, said over time
        add("f1", ALICE, "Theresa Bronn is a professional musician and conductor.", T0);
        add("f2", ALICE, "Theresa Bronn has directed numerous community and church choirs.", T0.plusSeconds(60));
        add("f3", ALICE, "Theresa Bronn has collaborated with other musicians and composers.", T0.plusSeconds(120));
        add("f4", ALICE, "Theresa Bronn teaches piano to children on weekends.", T0.plusSeconds(180));
        add("f5", ALICE, "Theresa Bronn grew up in a small town in Michigan.", T0.plusSeconds(240));

        // when / then: nothing is hidden, neither at write time nor at read time
        for (String id : List.of("f1", "f2", "f3", "f4", "f5")) {
            assertThat(index.supersededBy(id)).as(id).isEmpty();
        }
        List<RecallHit> hits = index.search(RecallQuery.of(ALICE, "What does Theresa Bronn do?",
                SharedEmbeddingModel.embed("What does Theresa Bronn do?"), 10, T0.plus(Duration.ofDays(1)))
                .withIncludeSuperseded(true));
        assertThat(ids(hits)).containsExactlyInAnyOrder("f1", "f2", "f3", "f4", "f5");
        assertThat(hits).noneMatch(RecallHit::superseded);
    }

    @Test
    void should_rank_the_matching_memory_first_when_others_are_off_topic() {
        // given
        add("m1", ALICE, "My daughter's birthday is on the 3rd of March.", T0);
        add("m2", ALICE, "The car needs new winter tyres.", T0);
        add("m3", ALICE, "I booked a flight to Oslo for the conference.", T0);
        add("m4", ALICE, "Our team standup is at 9:30 every morning.", T0);

        // when
        List<RecallHit> hits = search(ALICE, "When is my daughter's birthday?", 4);

        // then
        assertThat(ids(hits)).hasSize(4).startsWith("m1");
        assertThat(hits).isSortedAccordingTo((a, b) -> Double.compare(b.score(), a.score()));
        assertThat(hits.get(0).why()).startsWith("dense ").contains("lexical").contains("recency");
    }

    @Test
    void should_prefer_recent_item_when_two_are_equally_relevant() {
        // given: the same text in two items, a year apart (no supersession so both stay current)
        HybridIndex plain = HybridIndex.builder(384).supersessionDetection(false)
                .readTimeSupersession(false, 0.5, 0.5, 0.5).build();
        try (plain) {
            float[] v = SharedEmbeddingModel.embed("We talked about the garden.");
            plain.upsert(IndexedItem.of("old", ALICE, "We talked about the garden.", v, T0));
            plain.upsert(IndexedItem.of("recent", ALICE, "We talked about the garden.", v, T0.plus(Duration.ofDays(365))));

            // when
            List<RecallHit> hits = plain.search(RecallQuery.of(ALICE, "garden", v, 2, T0.plus(Duration.ofDays(366))));

            // then
            assertThat(ids(hits)).containsExactly("recent", "old");
        }
    }

    @Test
    void should_reject_vectors_of_wrong_dimension_when_upserting_or_searching() {
        assertThatThrownBy(() -> index.upsert(IndexedItem.of("x", ALICE, "t", new float[3], T0)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("item x has 3 dimensions, the index has 384");
        assertThatThrownBy(() -> index.upsert(IndexedItem.of("z", ALICE, "t", new float[384], T0)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("item z must be a non-zero finite vector, its norm is 0.0");
        assertThatThrownBy(() -> index.search(RecallQuery.of(ALICE, "q", new float[5], 3, T0)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("query vector has 5 dimensions, the index has 384");
        assertThat(index.size()).isZero();
    }

    @Test
    void should_return_the_same_results_with_the_default_vector_candidates_as_with_an_exhaustive_vector_search() {
        // given: the same items in an index with the default (few) vector candidates and one that fetches all
        String[] texts = {"The wifi password is on the fridge.", "My sister lives in Lisbon.",
                "I prefer window seats on long flights.", "The dentist appointment moved to Friday.",
                "Our cat is called Miso.", "I am allergic to peanuts.", "The car needs new tyres before winter.",
                "We planted tomatoes in the garden.", "My passport expires next March.", "I run every Sunday morning.",
                "The printer on the second floor is broken.", "Dinner with Ana is on Thursday.",
                "I switched my phone plan to the cheaper one.", "The garage door code is 4711.",
                "I want to learn Portuguese this year."};
        HybridIndex exhaustive = HybridIndex.builder(384).candidates(500, 50).build();
        try (exhaustive) {
            for (int i = 0; i < texts.length; i++) {
                IndexedItem item = IndexedItem.of("f" + i, ALICE, texts[i], SharedEmbeddingModel.embed(texts[i]),
                        T0.plus(Duration.ofMinutes(i)));
                index.upsert(item);
                exhaustive.upsert(item);
            }
            for (String question : List.of("Where does my sister live?", "what is the code for the garage",
                    "food allergies", "travel documents", "pets")) {
                RecallQuery q = RecallQuery.of(ALICE, question, SharedEmbeddingModel.embed(question), 5, T0.plus(Duration.ofDays(1)));

                // when / then
                assertThat(ids(index.search(q))).as(question).isEqualTo(ids(exhaustive.search(q)));
            }
        }
    }

    @Test
    void should_keep_one_item_per_id_when_a_bulk_load_repeats_ids_or_replaces_indexed_ones() {
        // given: a bulk load (no knowledge-update checks) over an item already indexed, with an id twice in the batch
        try (HybridIndex bulk = HybridIndex.builder(384).supersessionDetection(false).build()) {
            bulk.upsert(IndexedItem.of("x", ALICE, "The old code is 1111.", SharedEmbeddingModel.embed("The old code is 1111."), T0));
            List<IndexedItem> batch = List.of(
                    IndexedItem.of("x", ALICE, "The garage code is 2222.", SharedEmbeddingModel.embed("The garage code is 2222."), T0),
                    IndexedItem.of("y", ALICE, "The wifi password is pony.", SharedEmbeddingModel.embed("The wifi password is pony."), T0),
                    IndexedItem.of("y", ALICE, "The wifi password is horse.", SharedEmbeddingModel.embed("The wifi password is horse."), T0));

            // when
            bulk.upsertAll(batch);

            // then: the last version of each id, once
            assertThat(bulk.size()).isEqualTo(2);
            assertThat(bulk.find("x").orElseThrow().text()).isEqualTo("The garage code is 2222.");
            assertThat(bulk.find("y").orElseThrow().text()).isEqualTo("The wifi password is horse.");
            RecallQuery q = new RecallQuery(ALICE, "code password 1111 2222 pony horse", null, 10, T0, false, 0);
            assertThat(ids(bulk.search(q))).containsExactlyInAnyOrder("x", "y");
        }
    }

    @Test
    void should_score_exactly_up_to_the_exact_search_size_and_through_the_graph_past_it() {
        // given: three items of Alice's in one chat session, and Bob's
        try (HybridIndex small = HybridIndex.builder(384).exactSearchBelow(3).neighbourShare(1.0).build()) {
            String[] texts = {"I like green tea.", "I walk the dog at seven.", "My bike is red."};
            for (int i = 0; i < texts.length; i++) {
                small.upsert(new IndexedItem("a" + i, ALICE, texts[i], SharedEmbeddingModel.embed(texts[i]),
                        T0.plusSeconds(i), Map.of(HybridIndex.THREAD_ATTRIBUTE, "s1")));
                small.upsert(IndexedItem.of("b" + i, BOB, texts[i], SharedEmbeddingModel.embed(texts[i]), T0.plusSeconds(i)));
            }
            RecallQuery q = RecallQuery.of(ALICE, "green tea", SharedEmbeddingModel.embed("green tea"), 3, T0.plusSeconds(60));

            // when / then: at three items the search is exact (neighbouring turns share the best hit's score)
            assertThat(small.search(q)).anyMatch(h -> h.why().contains("neighbour"));
            small.upsert(new IndexedItem("a3", ALICE, "I sold my car.", SharedEmbeddingModel.embed("I sold my car."),
                    T0.plusSeconds(3), Map.of(HybridIndex.THREAD_ATTRIBUTE, "s1")));
            assertThat(small.search(q)).noneMatch(h -> h.why().contains("neighbour"));
            // a deleted item still in its segment does not count
            small.delete("a3");
            assertThat(small.search(q)).anyMatch(h -> h.why().contains("neighbour"));
        }
    }

    @Test
    void should_reject_candidate_counts_below_one() {
        assertThatThrownBy(() -> HybridIndex.builder(384).denseCandidates(0, 4))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("minimum candidates must be >= 1: 0");
        assertThatThrownBy(() -> HybridIndex.builder(384).denseCandidates(40, 0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("candidates per result must be >= 1: 0");
    }

    @Test
    void should_reject_a_candidate_growth_size_below_one() {
        assertThatThrownBy(() -> HybridIndex.builder(384).denseCandidatesGrowFrom(0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("denseCandidatesGrowFrom must be >= 1: 0");
    }

    @Test
    void should_fetch_the_configured_vector_candidates_at_every_partition_size() {
        // given: 10 results asked, at least 40 candidates and 4 per result
        IndexSettings settings = HybridIndex.builder(384).settings();

        // then: the same count at every size (the growth of the graph days is accepted and ignored),
        // each candidate chosen among 10 items scored exactly, at least 200
        assertThat(settings.denseCandidates(10)).isEqualTo(40);
        assertThat(settings.denseCandidates(15)).isEqualTo(60);
        assertThat(HybridIndex.builder(384).denseCandidatesGrowFrom(500).settings().denseCandidates(10)).isEqualTo(40);
        assertThat(settings.shortlist(40)).isEqualTo(400);
        assertThat(settings.shortlist(8)).isEqualTo(200);
    }

    @Test
    void should_find_what_an_exhaustive_search_finds_in_a_large_partition_whatever_the_growth_setting() {
        // given: 4,000 clustered vectors in one partition, searched by code with few candidates
        // (10 for 10 results; the growth setting of the graph days at 500 or off), and by scoring every item
        java.util.Random random = new java.util.Random(11);
        int dims = 64;
        float[][] centroids = new float[80][];
        for (int c = 0; c < centroids.length; c++) {
            centroids[c] = gaussian(random, dims, 1.0, null);
        }
        List<IndexedItem> items = new java.util.ArrayList<>();
        for (int i = 0; i < 4_000; i++) {
            items.add(IndexedItem.of("v" + i, ALICE, "item " + i,
                    gaussian(random, dims, 0.35, centroids[random.nextInt(centroids.length)]), T0.plusSeconds(i)));
        }
        try (HybridIndex fixed = HybridIndex.builder(dims).supersessionDetection(false).exactSearchBelow(0)
                .denseCandidates(10, 1).denseCandidatesGrowFrom(Integer.MAX_VALUE).build();
             HybridIndex growing = HybridIndex.builder(dims).supersessionDetection(false).exactSearchBelow(0)
                .denseCandidates(10, 1).denseCandidatesGrowFrom(500).build();
             HybridIndex exhaustive = HybridIndex.builder(dims).supersessionDetection(false)
                .exactSearchBelow(Integer.MAX_VALUE).build()) {
            for (HybridIndex each : List.of(fixed, growing, exhaustive)) {
                each.upsertAll(items);
                each.optimize();
            }

            // when: 50 questions near the clusters
            double recall = 0;
            for (int q = 0; q < 50; q++) {
                RecallQuery query = RecallQuery.of(ALICE, "", gaussian(random, dims, 0.35,
                        centroids[random.nextInt(centroids.length)]), 10, T0.plusSeconds(5_000));
                java.util.Set<String> truth = new java.util.HashSet<>(ids(exhaustive.search(query)));
                List<String> found = ids(fixed.search(query));
                assertThat(ids(growing.search(query))).as("query %d", q).isEqualTo(found);
                recall += found.stream().filter(truth::contains).count() / 500.0;
            }

            // then: (nearly) all of the exact top 10, the growth setting changing nothing
            assertThat(recall).isGreaterThanOrEqualTo(0.98);
        }
    }

    private static float[] gaussian(java.util.Random random, int dims, double sigma, float @org.jspecify.annotations.Nullable [] around) {
        float[] v = new float[dims];
        for (int i = 0; i < dims; i++) {
            v[i] = (float) ((around == null ? 0 : around[i]) + sigma * random.nextGaussian());
        }
        return v;
    }

    @Test
    void should_decide_supersession_in_a_batch_exactly_as_item_by_item() {
        // given: statements of two users, some replacing earlier ones, some only sharing a name or words
        String[] texts = {
                "My phone number is 555-1234.", "I live in Lisbon with my sister.", "My favourite colour is green.",
                "Nora Fishel is an accomplished violinist.", "Nora Fishel and Eliza Woodley organised a charity concert.",
                "I work as a nurse at the city hospital.", "My phone number is now 555-9876.",
                "I moved from Lisbon to Porto last month.", "My favourite colour is blue these days.",
                "Eliza Woodley writes historical novels.", "I work as a teacher at the primary school now.",
                "The dentist appointment is on Friday.", "The dentist appointment moved to Monday.",
                "Our cat is called Miso.", "Our cat is called Miso and she is three.", "I am allergic to peanuts."};
        List<IndexedItem> items = new java.util.ArrayList<>();
        for (int i = 0; i < texts.length; i++) {
            String user = i % 5 == 4 ? BOB : ALICE;
            items.add(new IndexedItem("s" + i, user, texts[i], SharedEmbeddingModel.embed(texts[i]),
                    T0.plus(Duration.ofMinutes(i)), java.util.Map.of(HybridIndex.SPEAKER_ATTRIBUTE, i % 7 == 3 ? "bot" : "user")));
        }
        try (HybridIndex oneByOne = HybridIndex.inMemory(384); HybridIndex batched = HybridIndex.inMemory(384)) {
            // when
            for (IndexedItem item : items) {
                oneByOne.upsertAll(List.of(item));
            }
            batched.upsertAll(items);

            // then: the same items superseded, by the same newer ones, and some were
            java.util.Map<String, String> expected = new java.util.TreeMap<>();
            java.util.Map<String, String> actual = new java.util.TreeMap<>();
            for (IndexedItem item : items) {
                oneByOne.supersededBy(item.id()).ifPresent(by -> expected.put(item.id(), by));
                batched.supersededBy(item.id()).ifPresent(by -> actual.put(item.id(), by));
            }
            assertThat(expected).isNotEmpty();
            assertThat(actual).isEqualTo(expected);
            assertThat(batched.size()).isEqualTo(oneByOne.size());
        }
    }

    @Test
    void should_keep_items_when_reopening_a_directory_index(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) {
        // given
        try (HybridIndex onDisk = HybridIndex.inDirectory(dir, 384)) {
            onDisk.upsert(IndexedItem.of("d1", ALICE, "The wifi password is on the fridge.",
                    SharedEmbeddingModel.embed("The wifi password is on the fridge."), T0));
        }

        // when
        try (HybridIndex reopened = HybridIndex.inDirectory(dir, 384)) {
            // then
            assertThat(reopened.size()).isEqualTo(1);
            assertThat(reopened.find("d1")).get().extracting(IndexedItem::text)
                    .isEqualTo("The wifi password is on the fridge.");
        }
    }

    @Test
    void should_rank_items_written_before_ranking_doc_values_existed(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir)
            throws Exception {
        // given: an index in the earlier layout, time and superseded mark in stored fields only
        String text = "We talked about the garden.";
        float[] v = SharedEmbeddingModel.embed(text);
        try (org.apache.lucene.store.Directory d = org.apache.lucene.store.FSDirectory.open(dir);
             org.apache.lucene.index.IndexWriter w = new org.apache.lucene.index.IndexWriter(d,
                     new org.apache.lucene.index.IndexWriterConfig(new RecallAnalyzer()))) {
            w.addDocument(earlierLayout("old", text, v, T0, null));
            w.addDocument(earlierLayout("recent", text, v, T0.plus(Duration.ofDays(365)), null));
            w.addDocument(earlierLayout("replaced", text, v, T0.minus(Duration.ofDays(30)), "recent"));
        }

        // when: reopened, one item in the new layout added
        try (HybridIndex reopened = HybridIndex.builder(384).directory(dir).supersessionDetection(false).build()) {
            reopened.upsert(IndexedItem.of("newest", ALICE, text, v, T0.plus(Duration.ofDays(366))));
            List<RecallHit> current = reopened.search(RecallQuery.of(ALICE, "garden", v, 5, T0.plus(Duration.ofDays(367))));
            List<RecallHit> all = reopened.search(new RecallQuery(ALICE, "garden", v, 5, T0.plus(Duration.ofDays(367)),
                    true, 0));

            // then: ranked by recency as in the new layout; the superseded one is left out, or flagged
            assertThat(ids(current)).containsExactly("newest", "recent", "old");
            assertThat(current.get(1).time()).isEqualTo(T0.plus(Duration.ofDays(365)));
            assertThat(ids(all)).containsExactly("newest", "recent", "old", "replaced");
            assertThat(all.get(3).superseded()).isTrue();
            assertThat(all.get(3).why()).contains("superseded by recent");
        }
    }

    /** A document as HybridIndex wrote it before the ranking doc values were added. */
    private static org.apache.lucene.document.Document earlierLayout(String id, String text, float[] v, Instant time,
                                                                      String supersededBy) {
        var d = new org.apache.lucene.document.Document();
        var store = org.apache.lucene.document.Field.Store.YES;
        d.add(new org.apache.lucene.document.StringField(IndexSchema.F_ID, id, store));
        d.add(new org.apache.lucene.document.StringField(IndexSchema.F_PARTITION, ALICE, store));
        d.add(new org.apache.lucene.document.TextField(IndexSchema.F_TEXT, text, store));
        float[] unit = v.clone();
        double norm = 0;
        for (float x : unit) {
            norm += x * x;
        }
        for (int i = 0; i < unit.length; i++) {
            unit[i] /= (float) Math.sqrt(norm);
        }
        d.add(new org.apache.lucene.document.KnnFloatVectorField(IndexSchema.F_VECTOR, unit,
                org.apache.lucene.index.VectorSimilarityFunction.DOT_PRODUCT));
        d.add(new org.apache.lucene.document.StoredField(IndexSchema.F_TIME, time.getEpochSecond()));
        d.add(new org.apache.lucene.document.StoredField(IndexSchema.F_TIME, time.getNano()));
        d.add(new org.apache.lucene.document.StoredField(IndexSchema.F_ATTR_KEY, "source"));
        d.add(new org.apache.lucene.document.StoredField(IndexSchema.F_ATTR_VALUE, "test"));
        d.add(new org.apache.lucene.document.StringField(IndexSchema.F_STATUS,
                supersededBy == null ? IndexSchema.CURRENT : IndexSchema.SUPERSEDED, org.apache.lucene.document.Field.Store.NO));
        if (supersededBy != null) {
            d.add(new org.apache.lucene.document.StringField(IndexSchema.F_SUPERSEDED_BY, supersededBy, store));
        }
        return d;
    }

    @Test
    void should_fail_clearly_when_used_after_close() {
        index.close();
        assertThatThrownBy(index::size).isInstanceOf(IllegalStateException.class)
                .hasMessage("recall index is closed");
    }
}
