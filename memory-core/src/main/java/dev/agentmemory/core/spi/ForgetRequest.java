package dev.agentmemory.core.spi;

import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * What a forget removed, handed to every registered {@link DerivedData} so that copies derived
 * from it (embeddings, summaries, caches) go too.
 *
 * @param partition  whose memory
 * @param recordIds  ids of forgotten records
 * @param messages   forgotten message indices by session
 * @param wholeUser  whether everything of the user was forgotten
 * @param hard       whether bytes must be removed (not only hidden)
 */
public record ForgetRequest(Partition partition, Set<String> recordIds, Map<String, List<Long>> messages,
                            boolean wholeUser, boolean hard) {
    public ForgetRequest {
        Objects.requireNonNull(partition, "partition");
        recordIds = Set.copyOf(recordIds);
        messages = Map.copyOf(messages);
    }
}
