package dev.agentmemory.core.engine;

import dev.agentmemory.core.Caller;
import dev.agentmemory.core.MemoryRecord;
import dev.agentmemory.core.ScopeView.KeyState;
import dev.agentmemory.core.ReadOptions;
import dev.agentmemory.core.Scope;
import dev.agentmemory.core.ScopeView;
import dev.agentmemory.core.internal.Ids;
import dev.agentmemory.core.audit.AuditReport;
import dev.agentmemory.core.audit.AuditReport.ScopeDiff;
import dev.agentmemory.core.event.Change;
import dev.agentmemory.core.event.LoggedEvent;
import dev.agentmemory.core.internal.state.PartitionState;
import dev.agentmemory.core.spi.DerivedData;
import dev.agentmemory.core.internal.hooks.EventListener;
import dev.agentmemory.core.internal.hooks.MessageRedactor;
import dev.agentmemory.core.spi.Partition;
import dev.agentmemory.core.spi.StoredSnapshot;
import dev.agentmemory.core.spi.StoredVector;
import dev.agentmemory.core.spi.VectorModel;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.BiConsumer;
import dev.agentmemory.core.internal.state.MemoryState;
import dev.agentmemory.core.engine.MemoryEngine.Admin;

/** The operator tools and extension points ({@link Admin}). */
final class AdminTools implements Admin {

    private final PartitionRuntime runtime;
    private final Forgetter forgetter;

    AdminTools(PartitionRuntime runtime, Forgetter forgetter) {
        this.runtime = runtime;
        this.forgetter = forgetter;
    }

    @Override
    public List<LoggedEvent> log(Caller caller) {
        return runtime.log(caller);
    }

    @Override
    public List<LoggedEvent> log(Caller caller, long afterSeq) {
        if (afterSeq < 0) {
            throw new IllegalArgumentException("afterSeq must be >= 0: " + afterSeq);
        }
        return runtime.log(caller, afterSeq);
    }

    @Override
    public Optional<Instant> appendedAt(Caller caller, long seq) {
        if (seq < 1) {
            throw new IllegalArgumentException("seq must be >= 1: " + seq);
        }
        return runtime.appendedAt(caller, seq);
    }

    @Override
    public <T> T holding(Caller caller, java.util.function.Function<MemoryState, T> work) {
        Objects.requireNonNull(work, "work");
        return runtime.read(Objects.requireNonNull(caller, "caller"), s -> work.apply(MemoryState.viewOf(s)));
    }

    @Override
    public void forEachKey(Caller caller, Scope scope, BiConsumer<KeyState, List<MemoryRecord>> each) {
        ScopeGuard.check(Objects.requireNonNull(caller, "caller"), Objects.requireNonNull(scope, "scope"));
        Objects.requireNonNull(each, "each");
        runtime.read(caller, s -> {
            ReadModel.eachKey(caller, s, scope, runtime.clock().instant(), each);
            return null;
        });
    }

    @Override
    public List<String> readableLog(Caller caller) {
        return log(caller).stream().map(e -> EventText.readable(e, caller.agent())).toList();
    }

    @Override
    public MemoryState replay(Caller caller) {
        return MemoryState.replay(log(caller));
    }

    @Override
    public AuditReport audit(Caller caller, Duration staleAfter) {
        Objects.requireNonNull(staleAfter, "staleAfter");
        return runtime.exclusive(caller, held -> {
            // one state against the log it was built from: the snapshot first (never newer than a
            // log read after it), then the log, with the live state caught up to it
            Optional<StoredSnapshot> stored = held.storedSnapshot();
            List<LoggedEvent> log = held.storedLogCaughtUp();
            PartitionState replayed = PartitionState.replay(log);
            AuditReport report = Analysis.audit(held.state(), replayed, runtime.clock().instant(), staleAfter)
                    .withStoreFindings(runtime.storeFindings());
            String snapshot = held.snapshotProblem(stored, log, replayed);
            if (snapshot.isEmpty()) {
                return report;
            }
            String difference = report.replayMatches() ? snapshot : report.replayDifference() + "; " + snapshot;
            return new AuditReport(report.seq(), report.conflictingKeys(), report.expiredButActive(),
                    report.staleKeys(), report.archivedScopesReferenced(), report.pendingActions(), false, difference,
                    report.storeFindings());
        });
    }

    @Override
    public List<String> collect(Caller caller) {
        return runtime.write(caller, (s, tx) -> {
            List<String> ids = Analysis.unreachable(s);
            if (!ids.isEmpty()) {
                tx.add(s, new Change.RecordsArchived(ids));
            }
            return ids;
        });
    }

    @Override
    public ScopeDiff diff(Caller caller, Scope left, Scope right) {
        return Analysis.diff(archivedView(caller, left), archivedView(caller, right));
    }

    /** The whole of a scope, archived state included, as a read with those options sees it. */
    private ScopeView archivedView(Caller caller, Scope scope) {
        ScopeGuard.check(caller, scope);
        return runtime.read(caller, s -> ReadModel.viewOf(caller, s, scope, ReadOptions.withArchived(),
                runtime.clock().instant()));
    }

    @Override
    public List<Partition> users(String tenant) {
        return runtime.partitions(Ids.check(tenant, "tenant"));
    }

    @Override
    public List<Partition> heldUsers() {
        return runtime.held();
    }

    @Override
    public void compact() {
        runtime.compact();
    }

    @Override
    public void invalidateCache() {
        runtime.invalidate();
    }

    @Override
    public long sync(Caller caller) {
        return runtime.sync(caller);
    }

    @Override
    public <T> T consistently(Caller caller, java.util.function.Supplier<T> work) {
        return runtime.consistently(Objects.requireNonNull(caller, "caller"), Objects.requireNonNull(work, "work"));
    }

    @Override
    public <T> T continuing(Caller caller, java.util.function.Supplier<T> work) {
        return runtime.continuing(Objects.requireNonNull(caller, "caller"), Objects.requireNonNull(work, "work"));
    }

    @Override
    public void register(DerivedData data) {
        runtime.register(Objects.requireNonNull(data, "data"));
    }

    @Override
    public boolean unregister(DerivedData data) {
        return runtime.unregister(Objects.requireNonNull(data, "data"));
    }

    @Override
    public List<String> derivedDataNames() {
        List<DerivedData> derived = runtime.derived();
        List<String> names = new ArrayList<>(derived.size());
        for (DerivedData d : derived) {
            names.add(d.name());
        }
        return List.copyOf(names);
    }

    @Override
    public void addListener(EventListener listener) {
        runtime.addListener(Objects.requireNonNull(listener, "listener"));
    }

    @Override
    public boolean removeListener(EventListener listener) {
        return runtime.removeListener(Objects.requireNonNull(listener, "listener"));
    }

    @Override
    public void addRedactor(MessageRedactor redactor) {
        forgetter.addRedactor(Objects.requireNonNull(redactor, "redactor"));
    }

    @Override
    public boolean removeRedactor(MessageRedactor redactor) {
        return forgetter.removeRedactor(Objects.requireNonNull(redactor, "redactor"));
    }

    @Override
    public boolean keepsVectors() {
        return runtime.keepsVectors();
    }

    @Override
    public java.util.Map<String, StoredVector> storedVectors(Caller caller, VectorModel model,
                                                             java.util.Collection<String> items) {
        return runtime.vectors(Objects.requireNonNull(caller, "caller"), Objects.requireNonNull(model, "model"),
                Objects.requireNonNull(items, "items"));
    }

    @Override
    public void storeVectors(Caller caller, VectorModel model, List<StoredVector> vectors) {
        runtime.saveVectors(Objects.requireNonNull(caller, "caller"), Objects.requireNonNull(model, "model"),
                Objects.requireNonNull(vectors, "vectors"));
    }

    @Override
    public void deleteStoredVectors(Caller caller, java.util.Collection<String> items) {
        runtime.deleteVectors(PartitionRuntime.partition(Objects.requireNonNull(caller, "caller")),
                Objects.requireNonNull(items, "items"));
    }
}
