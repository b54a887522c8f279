package dev.agentmemory.core.testing;

import dev.agentmemory.core.StaleVersionException;
import dev.agentmemory.core.spi.EventStore;
import dev.agentmemory.core.spi.Partition;
import dev.agentmemory.core.spi.StoredEvent;
import dev.agentmemory.core.spi.StoredVector;
import dev.agentmemory.core.spi.VectorModel;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.LongStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * What every {@link EventStore} must do: the store contract for implementors. A store's test
 * extends this class and implements {@link #newStore()}; every test here then runs against it
 * (JUnit 5). For example:
 *
 * <pre>{@code
 * class MyStoreTest extends EventStoreContract {
 *     @Override protected EventStore newStore() { return new MyStore(freshDatabase()); }
 * }
 * }</pre>
 *
 * <p>Tests append and read events in a few partitions, check optimistic versioning
 * ({@code StaleVersionException}), bad arguments, concurrent appenders and partition listing.
 */
public abstract class EventStoreContract {

    protected static final Partition ALICE = new Partition("shop", "alice");
    protected static final Partition BOB = new Partition("shop", "bob");
    protected static final Partition OTHER_TENANT_ALICE = new Partition("bank", "alice");
    private static final Instant T0 = Instant.parse("2024-10-15T10:00:00Z");

    protected EventStore store;

    /** A fresh store with no events. Called before each test; closed after it. */
    protected abstract EventStore newStore();

    @BeforeEach
    void openStore() {
        store = newStore();
    }

    @AfterEach
    void closeStore() {
        store.close();
    }

    /** An event with sequence {@code seq}. */
    protected static StoredEvent event(long seq, String payload) {
        return new StoredEvent(seq, T0.plusSeconds(seq), "record-written", "assistant", "trace-" + seq, payload);
    }

    private static List<StoredEvent> events(long from, long to) {
        return LongStream.rangeClosed(from, to).mapToObj(s -> event(s, "{\"n\":" + s + "}")).toList();
    }

    @Test
    void should_read_events_back_in_order_with_every_field_when_appended() {
        // given
        StoredEvent first = new StoredEvent(1, T0, "record-written", "assistant", "trace-a", "{\"v\":\"black\"}");
        StoredEvent second = new StoredEvent(2, T0.plusMillis(1500), "task-changed", "tool:orders", "trace-b",
                "payload with ünïcödé and \"quotes\"");

        // when
        store.append(ALICE, 0, List.of(first));
        store.append(ALICE, 1, List.of(second));

        // then
        assertThat(store.read(ALICE, 0)).containsExactly(first, second);
        assertThat(store.lastSequence(ALICE)).isEqualTo(2);
    }

    @Test
    void should_return_only_later_events_when_reading_after_a_sequence() {
        store.append(ALICE, 0, events(1, 5));

        assertThat(store.read(ALICE, 3)).extracting(StoredEvent::seq).containsExactly(4L, 5L);
        assertThat(store.read(ALICE, 5)).isEmpty();
        assertThat(store.read(ALICE, 99)).isEmpty();
    }

    @Test
    void should_read_empty_and_sequence_zero_when_partition_is_unknown() {
        assertThat(store.read(new Partition("nobody", "nobody"), 0)).isEmpty();
        assertThat(store.lastSequence(new Partition("nobody", "nobody"))).isZero();
        assertThat(store.partitions("nobody")).isEmpty();
    }

    @Test
    void should_throw_stale_version_and_store_nothing_when_expected_sequence_is_behind() {
        // given
        store.append(ALICE, 0, events(1, 2));

        // when / then
        assertThatThrownBy(() -> store.append(ALICE, 1, List.of(event(2, "late writer"))))
                .isInstanceOf(StaleVersionException.class)
                .hasMessageContaining("shop/alice");
        assertThat(store.read(ALICE, 0)).extracting(StoredEvent::payload).containsExactly("{\"n\":1}", "{\"n\":2}");
        assertThat(store.lastSequence(ALICE)).isEqualTo(2);
    }

    @Test
    void should_throw_stale_version_when_expected_sequence_is_ahead() {
        store.append(ALICE, 0, events(1, 1));

        assertThatThrownBy(() -> store.append(ALICE, 5, List.of(event(6, "gap"))))
                .isInstanceOf(StaleVersionException.class);
        assertThat(store.lastSequence(ALICE)).isEqualTo(1);
    }

    @Test
    void should_reject_whole_batch_when_its_sequences_are_not_contiguous() {
        // given
        store.append(ALICE, 0, events(1, 1));

        // when / then
        assertThatThrownBy(() -> store.append(ALICE, 1, List.of(event(2, "a"), event(4, "b"))))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("4");
        assertThat(store.read(ALICE, 0)).extracting(StoredEvent::seq).containsExactly(1L);
    }

    @Test
    void should_reject_batch_when_first_sequence_does_not_follow_expected() {
        assertThatThrownBy(() -> store.append(ALICE, 0, List.of(event(2, "a"))))
                .isInstanceOf(IllegalArgumentException.class);
        assertThat(store.read(ALICE, 0)).isEmpty();
        assertThat(store.partitions("shop")).isEmpty();
    }

    @Test
    void should_append_a_batch_atomically() {
        store.append(ALICE, 0, events(1, 50));

        assertThat(store.read(ALICE, 0)).extracting(StoredEvent::seq)
                .containsExactlyElementsOf(LongStream.rangeClosed(1, 50).boxed().toList());
    }

    @Test
    void should_keep_partitions_isolated_when_users_and_tenants_share_names() {
        // given
        store.append(ALICE, 0, List.of(event(1, "alice in shop")));
        store.append(BOB, 0, List.of(event(1, "bob in shop"), event(2, "bob again")));
        store.append(OTHER_TENANT_ALICE, 0, List.of(event(1, "alice in bank")));

        // then
        assertThat(store.read(ALICE, 0)).extracting(StoredEvent::payload).containsExactly("alice in shop");
        assertThat(store.read(BOB, 0)).extracting(StoredEvent::payload).containsExactly("bob in shop", "bob again");
        assertThat(store.read(OTHER_TENANT_ALICE, 0)).extracting(StoredEvent::payload).containsExactly("alice in bank");
        assertThat(store.lastSequence(ALICE)).isEqualTo(1);
        assertThat(store.lastSequence(BOB)).isEqualTo(2);
    }

    @Test
    void should_list_partitions_of_one_tenant_sorted_by_user() {
        store.append(BOB, 0, events(1, 1));
        store.append(ALICE, 0, events(1, 1));
        store.append(OTHER_TENANT_ALICE, 0, events(1, 1));

        assertThat(store.partitions("shop")).containsExactly(ALICE, BOB);
        assertThat(store.partitions("bank")).containsExactly(OTHER_TENANT_ALICE);
    }

    @Test
    void should_not_list_partition_when_its_only_append_failed() {
        // regression: a failed append to a new partition left an empty partition behind
        assertThatThrownBy(() -> store.append(ALICE, 3, List.of(event(4, "x"))))
                .isInstanceOf(StaleVersionException.class);

        assertThat(store.partitions("shop")).isEmpty();
    }

    @Test
    void should_check_expected_sequence_when_batch_is_empty() {
        // regression: the JDBC store accepted an empty batch whatever the expected sequence
        store.append(ALICE, 0, events(1, 2));

        store.append(ALICE, 2, List.of());
        assertThatThrownBy(() -> store.append(ALICE, 1, List.of())).isInstanceOf(StaleVersionException.class);
        assertThat(store.lastSequence(ALICE)).isEqualTo(2);
    }

    @Test
    void should_replace_payloads_only_of_named_sequences_when_rewritten() {
        // given
        store.append(ALICE, 0, events(1, 3));
        store.append(BOB, 0, events(1, 3));

        // when
        store.rewrite(ALICE, Map.of(2L, "scrubbed", 99L, "ignored"));

        // then
        List<StoredEvent> alice = store.read(ALICE, 0);
        assertThat(alice).extracting(StoredEvent::payload).containsExactly("{\"n\":1}", "scrubbed", "{\"n\":3}");
        assertThat(alice.get(1)).isEqualTo(new StoredEvent(2, event(2, "").at(), "record-written", "assistant",
                "trace-2", "scrubbed"));
        assertThat(store.read(BOB, 0)).extracting(StoredEvent::payload).containsExactly("{\"n\":1}", "{\"n\":2}", "{\"n\":3}");
        assertThat(store.lastSequence(ALICE)).isEqualTo(3);
    }

    @Test
    void should_ignore_rewrite_when_partition_is_unknown() {
        store.rewrite(ALICE, Map.of(1L, "x"));

        assertThat(store.read(ALICE, 0)).isEmpty();
        assertThat(store.partitions("shop")).isEmpty();
    }

    @Test
    void should_keep_events_after_compact() {
        store.append(ALICE, 0, events(1, 3));
        store.rewrite(ALICE, Map.of(1L, "gone"));

        store.compact();

        assertThat(store.read(ALICE, 0)).extracting(StoredEvent::payload).containsExactly("gone", "{\"n\":2}", "{\"n\":3}");
        store.append(ALICE, 3, List.of(event(4, "after compact")));
        assertThat(store.lastSequence(ALICE)).isEqualTo(4);
    }

    // ------------------------------------------------------------------ vectors kept next to events

    private static final VectorModel MINI = new VectorModel("mini-lm", 3);
    private static final VectorModel MINI_WIDER = new VectorModel("mini-lm", 4);
    private static final VectorModel OTHER_MODEL = new VectorModel("other-model", 3);

    private static StoredVector vector(String item, long seq, float... v) {
        return new StoredVector(item, seq, v);
    }

    @Test
    void should_read_back_vectors_in_one_batch_only_for_the_model_that_made_them() {
        assumeTrue(store.keepsVectors(), "this store keeps no vectors");
        // given
        store.append(ALICE, 0, events(1, 2));
        store.saveVectors(ALICE, MINI, List.of(vector("m|1", 1, 0.5f, -1.25f, 3e-8f), vector("r|x", 2, 1, 2, 3)));

        // when
        Map<String, StoredVector> found = store.vectors(ALICE, MINI, List.of("m|1", "r|x", "missing"));

        // then
        assertThat(found).containsOnlyKeys("m|1", "r|x");
        assertThat(found.get("m|1")).isEqualTo(vector("m|1", 1, 0.5f, -1.25f, 3e-8f));
        assertThat(found.get("r|x").seq()).isEqualTo(2);
        assertThat(store.vectors(ALICE, OTHER_MODEL, List.of("m|1", "r|x"))).isEmpty();
        assertThat(store.vectors(ALICE, MINI_WIDER, List.of("m|1", "r|x"))).isEmpty();
        assertThat(store.vectors(BOB, MINI, List.of("m|1", "r|x"))).isEmpty();
        assertThat(store.vectors(OTHER_TENANT_ALICE, MINI, List.of("m|1"))).isEmpty();
        assertThat(store.vectors(ALICE, MINI, List.of())).isEmpty();
    }

    @Test
    void should_keep_the_first_vector_when_an_item_is_saved_twice() {
        assumeTrue(store.keepsVectors(), "this store keeps no vectors");
        store.append(ALICE, 0, events(1, 1));
        store.saveVectors(ALICE, MINI, List.of(vector("m|1", 1, 1, 1, 1)));

        store.saveVectors(ALICE, MINI, List.of(vector("m|1", 1, 2, 2, 2), vector("m|2", 1, 3, 3, 3)));
        store.saveVectors(ALICE, OTHER_MODEL, List.of(vector("m|1", 1, 4, 4, 4)));

        assertThat(store.vectors(ALICE, MINI, List.of("m|1", "m|2")).values())
                .containsExactlyInAnyOrder(vector("m|1", 1, 1, 1, 1), vector("m|2", 1, 3, 3, 3));
        assertThat(store.vectors(ALICE, OTHER_MODEL, List.of("m|1")).get("m|1")).isEqualTo(vector("m|1", 1, 4, 4, 4));
    }

    @Test
    void should_keep_nothing_of_a_batch_when_a_vector_has_the_wrong_dimension() {
        assumeTrue(store.keepsVectors(), "this store keeps no vectors");
        store.append(ALICE, 0, events(1, 1));

        assertThatThrownBy(() -> store.saveVectors(ALICE, MINI, List.of(vector("m|1", 1, 1, 1, 1), vector("m|2", 1, 1, 1))))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("vector of m|2 has 2 dimensions, not the 3 of mini-lm (3 dims)");
        assertThat(store.vectors(ALICE, MINI, List.of("m|1", "m|2"))).isEmpty();
    }

    @Test
    void should_delete_named_vectors_in_every_model_and_nothing_else_when_forgotten() {
        assumeTrue(store.keepsVectors(), "this store keeps no vectors");
        // given
        store.append(ALICE, 0, events(1, 2));
        store.append(BOB, 0, events(1, 1));
        store.saveVectors(ALICE, MINI, List.of(vector("m|1", 1, 1, 1, 1), vector("m|2", 2, 2, 2, 2)));
        store.saveVectors(ALICE, OTHER_MODEL, List.of(vector("m|1", 1, 3, 3, 3)));
        store.saveVectors(BOB, MINI, List.of(vector("m|1", 1, 4, 4, 4)));

        // when
        store.deleteVectors(ALICE, List.of("m|1", "unknown"));

        // then
        assertThat(store.vectors(ALICE, MINI, List.of("m|1", "m|2"))).containsOnlyKeys("m|2");
        assertThat(store.vectors(ALICE, OTHER_MODEL, List.of("m|1"))).isEmpty();
        assertThat(store.vectors(BOB, MINI, List.of("m|1"))).containsOnlyKeys("m|1");
    }

    @Test
    void should_delete_every_vector_of_the_partition_when_the_user_is_purged() {
        assumeTrue(store.keepsVectors(), "this store keeps no vectors");
        store.append(ALICE, 0, events(1, 2));
        store.append(OTHER_TENANT_ALICE, 0, events(1, 1));
        store.saveVectors(ALICE, MINI, List.of(vector("m|1", 1, 1, 1, 1), vector("m|2", 2, 2, 2, 2)));
        store.saveVectors(ALICE, OTHER_MODEL, List.of(vector("m|1", 1, 3, 3, 3)));
        store.saveVectors(OTHER_TENANT_ALICE, MINI, List.of(vector("m|1", 1, 4, 4, 4)));

        store.deleteAllVectors(ALICE);

        assertThat(store.vectors(ALICE, MINI, List.of("m|1", "m|2"))).isEmpty();
        assertThat(store.vectors(ALICE, OTHER_MODEL, List.of("m|1"))).isEmpty();
        assertThat(store.vectors(OTHER_TENANT_ALICE, MINI, List.of("m|1"))).containsOnlyKeys("m|1");
    }

    @Test
    void should_delete_the_vectors_of_rewritten_events_when_hard_forgotten() {
        assumeTrue(store.keepsVectors(), "this store keeps no vectors");
        // given
        store.append(ALICE, 0, events(1, 3));
        store.saveVectors(ALICE, MINI, List.of(vector("m|1", 1, 1, 1, 1), vector("m|2", 2, 2, 2, 2),
                vector("r|a", 2, 5, 5, 5), vector("m|3", 3, 3, 3, 3)));
        store.saveVectors(ALICE, OTHER_MODEL, List.of(vector("m|2", 2, 6, 6, 6)));

        // when
        store.rewrite(ALICE, Map.of(2L, "scrubbed"));

        // then
        assertThat(store.vectors(ALICE, MINI, List.of("m|1", "m|2", "r|a", "m|3"))).containsOnlyKeys("m|1", "m|3");
        assertThat(store.vectors(ALICE, OTHER_MODEL, List.of("m|2"))).isEmpty();
    }

    @Test
    void should_reject_null_arguments_naming_them() {
        assertThatThrownBy(() -> store.append(null, 0, List.of())).isInstanceOf(NullPointerException.class)
                .hasMessage("partition");
        assertThatThrownBy(() -> store.append(ALICE, 0, null)).isInstanceOf(NullPointerException.class)
                .hasMessage("events");
        assertThatThrownBy(() -> store.read(null, 0)).isInstanceOf(NullPointerException.class).hasMessage("partition");
        assertThatThrownBy(() -> store.partitions(null)).isInstanceOf(NullPointerException.class).hasMessage("tenant");
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void should_lose_nothing_when_many_threads_append_to_one_partition() throws Exception {
        // given: 8 writers, each appending 25 events, retrying when another writer got there first
        int writers = 8;
        int each = 25;
        ExecutorService pool = Executors.newFixedThreadPool(writers);
        CountDownLatch start = new CountDownLatch(1);
        List<Future<Integer>> results = new ArrayList<>();
        try {
            for (int w = 0; w < writers; w++) {
                String writer = "w" + w;
                results.add(pool.submit(() -> {
                    start.await();
                    int stale = 0;
                    for (int i = 0; i < each; ) {
                        long last = store.lastSequence(ALICE);
                        try {
                            store.append(ALICE, last, List.of(event(last + 1, writer + "-" + i)));
                            i++;
                        } catch (StaleVersionException e) {
                            stale++;
                        }
                    }
                    return stale;
                }));
            }

            // when
            start.countDown();
            for (Future<Integer> f : results) {
                f.get(60, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }

        // then: contiguous 1..200, and every writer's every event is there exactly once
        List<StoredEvent> log = store.read(ALICE, 0);
        assertThat(log).extracting(StoredEvent::seq)
                .containsExactlyElementsOf(LongStream.rangeClosed(1, (long) writers * each).boxed().toList());
        List<String> expected = new ArrayList<>();
        for (int w = 0; w < writers; w++) {
            for (int i = 0; i < each; i++) {
                expected.add("w" + w + "-" + i);
            }
        }
        assertThat(log).extracting(StoredEvent::payload).containsExactlyInAnyOrderElementsOf(expected);
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void should_keep_partitions_independent_when_threads_write_different_users() throws Exception {
        int users = 6;
        ExecutorService pool = Executors.newFixedThreadPool(users);
        List<Future<?>> results = new ArrayList<>();
        try {
            for (int u = 0; u < users; u++) {
                Partition p = new Partition("shop", "user" + u);
                results.add(pool.submit(() -> {
                    for (long s = 1; s <= 30; s++) {
                        store.append(p, s - 1, List.of(event(s, p.user() + "-" + s)));
                    }
                }));
            }
            for (Future<?> f : results) {
                f.get(60, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }

        assertThat(store.partitions("shop")).hasSize(users);
        for (int u = 0; u < users; u++) {
            Partition p = new Partition("shop", "user" + u);
            assertThat(store.read(p, 0)).extracting(StoredEvent::payload)
                    .allMatch(payload -> payload.startsWith(p.user() + "-")).hasSize(30);
        }
    }
}
