package dev.agentmemory.langchain4j.framing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.agentmemory.core.MemoryRecord.Trust;
import dev.agentmemory.testing.InjectionDataset;
import dev.agentmemory.testing.InjectionDataset.Row;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Every string of the shared injection dev set, framed as an untrusted memory. */
class InjectionDatasetFramingTest {

    /** Read in place, never copied into the repository. */
    static final Path DATASET = InjectionDataset.path();

    private static final List<Row> ROWS = new ArrayList<>();

    @BeforeAll
    static void load() {
        if (!Files.isReadable(DATASET)) {
            return;
        }
        ROWS.addAll(InjectionDataset.read(DATASET));
    }

    private static FramedItem item(Row row) {
        return new FramedItem(row.id(), row.text(), "observation",
                "tool:" + row.source(), Trust.UNTRUSTED, Instant.parse("2024-10-15T00:00:00Z"), "current",
                Map.of("label", row.label()));
    }

    @Test
    void should_frame_every_dataset_string_as_one_block_that_decodes_exactly() {
        assumeTrue(Files.isReadable(DATASET), "dataset absent: " + DATASET);
        MemoryFramer framer = MemoryFramer.builder().build();
        int flaggedAttacks = 0;
        int attacks = 0;
        for (int i = 0; i < ROWS.size(); i++) {
            Row row = ROWS.get(i);
            FramedItem trusted = new FramedItem("pref", "answer in Chinese", "preference", "user-message",
                    Trust.TRUSTED, Instant.EPOCH, "current");
            // the next row's text plays the user's message, so attack strings sit on both sides
            String userText = ROWS.get((i + 1) % ROWS.size()).text();

            FramedBlock block = FrameInvariants.frameAndCheck(framer, List.of(item(row), trusted), userText);

            assertThat(block.included()).hasSize(2);
            if (row.label().equals("attack")) {
                attacks++;
                ParsedFrame frame = framer.parse(framer.attach(userText, block)).get(0);
                flaggedAttacks += frame.flags().get(0).isEmpty() ? 0 : 1;
            }
        }
        System.out.printf("framing: %d dataset strings framed; %d / %d attack items carry flags%n",
                ROWS.size(), flaggedAttacks, attacks);
        assertThat(ROWS).hasSizeGreaterThan(1000);
    }

    @Test
    void should_frame_the_whole_dataset_in_one_block_and_report_what_the_budget_cut() {
        assumeTrue(Files.isReadable(DATASET), "dataset absent: " + DATASET);
        List<FramedItem> items = ROWS.stream().map(InjectionDatasetFramingTest::item).toList();

        FramedBlock all = FrameInvariants.frameAndCheck(
                MemoryFramer.builder().maxChars(5_000_000).maxTokens(5_000_000).build(), items, "what do you remember?");
        assertThat(all.included()).isEqualTo(items);

        FramedBlock bounded = FrameInvariants.frameAndCheck(MemoryFramer.builder().build(), items, "what do you remember?");
        assertThat(bounded.included()).isNotEmpty();
        assertThat(bounded.cut()).isNotEmpty();
        assertThat(bounded.included().size() + bounded.cut().size()).isEqualTo(items.size());
        System.out.printf("framing: default budget kept %d of %d items (%d chars, ~%d tokens)%n",
                bounded.included().size(), items.size(), bounded.chars(), bounded.approxTokens());
    }
}
