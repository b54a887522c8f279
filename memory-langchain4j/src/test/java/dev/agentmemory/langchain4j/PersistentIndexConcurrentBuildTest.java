package dev.agentmemory.langchain4j;

import static org.assertj.core.api.Assertions.assertThat;

import dev.agentmemory.core.Caller;
import dev.agentmemory.core.ForgetMode;
import dev.agentmemory.core.ForgetTarget;
import dev.agentmemory.core.MemoryKey;
import dev.agentmemory.core.MemoryRecord.Kind;
import dev.agentmemory.core.MemoryRecord.Source;
import dev.agentmemory.core.Proposal;
import dev.agentmemory.core.engine.MemoryEngine;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Builds off the request path racing real threads: one writes keys (now and then more at once
 * than the index follows, so that it builds again), one writes a secret and forgets it (now and
 * then the whole user), one queries. A forgotten secret's word is in no index once the forget
 * returns, whatever build is under way; and once the threads and the builds are done, the index
 * ranks what a fresh one ranks.
 */
class PersistentIndexConcurrentBuildTest {

    private static final String[] WORDS = {"garden", "kitchen", "delivery", "refund", "hotel", "filler", "note"};
    private static final Set<String> QUERY = PersistentIndex.terms("garden kitchen delivery note");

    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3, 4, 5})
    void should_forget_at_once_and_end_like_a_fresh_index_while_builds_race_the_writes(long seed) throws Exception {
        try (AgentMemory memory = AgentMemory.builder().build()) {
            MemoryEngine engine = memory.engine();
            Caller caller = new Caller("acme", "alice", "assistant");
            PersistentIndex index = new PersistentIndex(engine, 4, 8);
            index.attach();
            ExecutorService threads = Executors.newFixedThreadPool(3);
            try {
                List<Future<?>> running = new ArrayList<>();
                running.add(threads.submit(() -> {
                    Random random = new Random(seed);
                    for (int i = 0; i < 300; i++) {
                        int many = random.nextInt(40) == 0 ? 70 : 1;
                        for (int k = 0; k < many; k++) {
                            write(engine, caller, "topic.k" + random.nextInt(120),
                                    WORDS[random.nextInt(WORDS.length)] + " " + WORDS[random.nextInt(WORDS.length)]);
                        }
                    }
                }));
                running.add(threads.submit(() -> {
                    Random random = new Random(seed + 100);
                    for (int i = 0; i < 150; i++) {
                        String word = "zebra" + i + "x";
                        write(engine, caller, "secret.s" + i, "the " + word + " garden");
                        if (random.nextBoolean()) {
                            index.top(caller, QUERY, 5);
                        }
                        if (random.nextInt(30) == 0) {
                            engine.forget(caller, ForgetTarget.user(), ForgetMode.HARD);
                        } else {
                            engine.forget(caller, ForgetTarget.key(caller.persistent(), MemoryKey.of("secret.s" + i)),
                                    ForgetMode.HARD);
                        }
                        assertThat(index.holdsTerm(caller, word)).as("the forgotten " + word).isFalse();
                    }
                }));
                running.add(threads.submit(() -> {
                    Random random = new Random(seed + 200);
                    for (int i = 0; i < 400; i++) {
                        assertThat(index.top(caller, QUERY, 1 + random.nextInt(60))).isNotNull();
                    }
                }));
                for (Future<?> f : running) {
                    f.get();
                }
            } finally {
                threads.shutdownNow();
            }
            index.top(caller, QUERY, 10);
            index.awaitBuilds();
            for (int keep : new int[] {0, 1, 7, 500}) {
                assertThat(index.top(caller, QUERY, keep)).as("keep " + keep)
                        .isEqualTo(PersistentIndex.fromScratch(engine, caller, QUERY, keep));
            }
            index.awaitBuilds();
            assertThat(index.top(caller, QUERY, 20)).isEqualTo(PersistentIndex.fromScratch(engine, caller, QUERY, 20));
            assertThat(index.scans()).as("queries answered by a pass").isPositive();
            assertThat(index.builds()).as("builds over every key").isPositive();
            index.detach();
        }
    }

    private static void write(MemoryEngine engine, Caller caller, String key, String value) {
        engine.write(caller, Proposal.set(caller.persistent(), key, value).kind(Kind.DECISION).source(Source.USER).build());
    }
}
