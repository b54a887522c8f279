package dev.agentmemory.core.engine;

import dev.agentmemory.core.Caller;
import dev.agentmemory.core.MemoryRecord;
import dev.agentmemory.core.MemoryRecord.Status;
import dev.agentmemory.core.MemoryRecord.Verification;
import dev.agentmemory.core.internal.Ids;
import dev.agentmemory.core.event.Change;
import dev.agentmemory.core.spi.Verifier;
import org.jspecify.annotations.Nullable;

import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;
import dev.agentmemory.core.engine.MemoryEngine.Verifications;

/** Verdicts on records and re-verify deadlines ({@link Verifications}). */
final class RecordVerification implements Verifications {

    private final PartitionRuntime runtime;
    private final EngineConfig config;

    RecordVerification(PartitionRuntime runtime, EngineConfig config) {
        this.runtime = runtime;
        this.config = config;
    }

    @Override
    public MemoryRecord confirm(Caller caller, String recordId) {
        return verdict(caller, recordId, r -> new Change.RecordVerified(r.id(), Verification.CONFIRMED, "confirmed by the user"));
    }

    @Override
    public MemoryRecord refute(Caller caller, String recordId, String why) {
        Objects.requireNonNull(why, "why");
        return verdict(caller, recordId, r -> new Change.RecordVerified(r.id(), Verification.REFUTED, why));
    }

    @Override
    public MemoryRecord verify(Caller caller, String recordId) {
        return verdict(caller, recordId, r -> {
            for (Verifier v : config.verifiers()) {
                Optional<Verifier.Verdict> verdict = v.check(r);
                if (verdict.isPresent()) {
                    return new Change.RecordVerified(r.id(),
                            verdict.get().holds() ? Verification.VERIFIED : Verification.REFUTED, verdict.get().evidence());
                }
            }
            return null;
        });
    }

    private MemoryRecord verdict(Caller caller, String recordId, Function<MemoryRecord, Change.@Nullable RecordVerified> f) {
        Objects.requireNonNull(recordId, "recordId");
        return runtime.write(caller, (s, tx) -> {
            MemoryRecord r = s.record(recordId);
            if (r == null || !r.readableBy(caller.agent())) {
                throw new IllegalArgumentException("no record " + Ids.quote(recordId) + " for " + caller.tenant() + "/" + caller.user());
            }
            if (r.status() == Status.FORGOTTEN) {
                throw new IllegalStateException("record " + recordId + " is forgotten");
            }
            Change.RecordVerified change = f.apply(r);
            if (change != null) {
                tx.add(s, change);
            }
            return Objects.requireNonNull(s.record(recordId), "the record just verified");
        });
    }

    @Override
    public int expireDue(Caller caller) {
        return runtime.write(caller, (s, tx) -> {
            Instant now = runtime.clock().instant();
            List<String> ids = s.records().stream()
                    .filter(r -> r.status() == Status.ACTIVE && r.expiresAt() != null && !now.isBefore(r.expiresAt()))
                    .map(MemoryRecord::id).toList();
            if (!ids.isEmpty()) {
                tx.add(s, new Change.RecordsExpired(ids));
            }
            return ids.size();
        });
    }
}
