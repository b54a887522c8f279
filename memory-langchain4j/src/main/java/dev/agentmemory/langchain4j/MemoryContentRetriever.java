package dev.agentmemory.langchain4j;

import dev.agentmemory.langchain4j.internal.MemorySpans;
import dev.agentmemory.langchain4j.internal.EnumText;
import dev.agentmemory.core.MemoryException;
import dev.agentmemory.core.Caller;
import dev.agentmemory.core.ScopeView.KeyState;
import dev.agentmemory.core.engine.MemoryEngine;
import dev.agentmemory.core.MemoryRecord;
import dev.agentmemory.core.ScopeView;
import dev.agentmemory.core.TaskInfo;
import dev.agentmemory.langchain4j.PersistentIndex.Ranked;
import dev.agentmemory.langchain4j.tools.Summarizer;
import dev.langchain4j.data.document.Metadata;
import dev.langchain4j.data.segment.TextSegment;
import dev.langchain4j.invocation.InvocationParameters;
import dev.langchain4j.rag.content.Content;
import dev.langchain4j.rag.content.ContentMetadata;
import dev.langchain4j.rag.content.retriever.ContentRetriever;
import dev.langchain4j.rag.query.Query;
import org.jspecify.annotations.Nullable;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * Layered recall for one query, never outside the query's tenant and user:
 * <ol>
 *   <li>session state and the active task's state (authoritative, current values, conflicts and
 *       values past their re-verify deadline, each marked as such);</li>
 *   <li>persistent memory: the user's current records (preferences first, then by overlap with
 *       the query, newest first);</li>
 *   <li>episodic clues: past messages and facts found by the hybrid index, when an embedding
 *       model was given.</li>
 * </ol>
 * Every content carries the {@link MemoryContent} metadata: its layer and scope always, task
 * state its task and the task's status, and a status judged by {@link Lineage} (a summary built
 * from a since-replaced value is {@code superseded}, not {@code current}). Summaries (records
 * tagged {@value Summarizer#SUMMARY_TAG}) come in layer {@code summary} with their text only.
 */
final class MemoryContentRetriever implements ContentRetriever {

    private final MemoryEngine engine;
    private final String agent;
    /** The memory's one resolver, for queries that come here directly rather than through the augmentor. */
    private final SessionResolver ids;
    private final Settings settings;
    private final @Nullable EpisodicRecall episodic;
    private final PersistentIndex persistentIndex;
    private final Lineage lineage;
    private final MemorySpans spans;

    static final String SESSION_STATE = "session-state";
    static final String TASK_STATE = "task-state";
    static final String PERSISTENT = "persistent";
    static final String SUMMARY = "summary";

    MemoryContentRetriever(MemoryEngine engine, String agent, SessionResolver ids, Settings settings,
                           @Nullable EpisodicRecall episodic, MemorySpans spans) {
        this.engine = engine;
        this.spans = spans;
        this.agent = agent;
        this.ids = ids;
        this.settings = settings;
        this.episodic = episodic;
        this.persistentIndex = new PersistentIndex(engine);
        this.lineage = new Lineage(engine);
        persistentIndex.attach();
    }

    /** Unregisters what this retriever registered with the engine. */
    void close() {
        persistentIndex.detach();
    }

    /** Who and which session a query is for. */
    record Target(Caller caller, @Nullable SessionRef session) {
    }

    /**
     * The contents for {@code query}, read from one state of the user's memory: on a database
     * shared by several instances, caught up once at the start rather than at each of the many
     * reads a retrieval makes.
     */
    @Override
    public List<Content> retrieve(Query query) {
        Objects.requireNonNull(query, "query");
        try (MemorySpans.Span span = spans.start("search_memory")) {
            try {
                Target target = target(query);
                RecallSpans.who(span, agent, target.session());
                RecallSpans.query(spans, span, query.text());
                List<Content> found = retrieve(query, target, span, false);
                RecallSpans.found(span, found);
                return found;
            } catch (RuntimeException | Error e) {
                span.failed(e);
                throw e;
            }
        }
    }

    /**
     * The contents for {@code query} and the caller and session already resolved from it; the time
     * each layer took goes on {@code span}. {@code checked} when this thread's call just before
     * checked the store for the user (a turn's read of its chat memory), so the retrieval
     * continues from that check instead of making one.
     */
    List<Content> retrieve(Query query, Target target, MemorySpans.Span span, boolean checked) {
        // a persistent index that a big user's first query asks for is built once the retrieval is
        // done, beside the model's call, not beside the retrieval's own reads
        return persistentIndex.deferringBuilds(() -> checked
                ? engine.admin().continuing(target.caller(), () -> read(query, target, span))
                : engine.admin().consistently(target.caller(), () -> read(query, target, span)));
    }

    private List<Content> read(Query query, Target target, MemorySpans.Span span) {
        Caller caller = target.caller();
        Lineage.Tasks tasks = lineage.tasks(caller);
        Set<String> queryTerms = PersistentIndex.terms(query.text());
        List<Content> state = new ArrayList<>();
        List<Content> summaries = new ArrayList<>();
        List<Content> openTasks = new ArrayList<>();
        Set<String> shown = new HashSet<>();
        SessionRef ref = target.session();
        if (ref != null) {
            String session = ref.session();
            RecallSpans.timed(span, "state", () -> {
                // Only the active task's state: a suspended task's state is not served while another
                // task is active, nor as current when none is (the engine's view is per task scope).
                Optional<TaskInfo> task = engine.tasks().active(caller, session);
                if (task.isPresent()) {
                    ScopeView view = engine.view(caller, caller.task(task.get()));
                    addAll(state, view.keys(), TASK_STATE, "state of the active task " + task.get().task(), shown,
                            caller, session);
                }
                addAll(state, engine.view(caller, caller.session(session)).keys(), SESSION_STATE,
                        "state of this session", shown, caller, session);
                openTasks.addAll(OpenTasks.contents(engine, caller, session, tasks.all()));
            });
        }
        List<Content> persistent = RecallSpans.timed(span, "persistent", () -> persistent(caller, query.text(), shown));
        List<Content> episodicHits = List.of();
        EpisodicRecall recall = episodic;
        if (recall != null && settings.episodicResults > 0 && !query.text().isBlank()) {
            episodicHits = RecallSpans.timed(span, "episodic", () -> recall.recall(caller, ref, query.text(),
                    settings.episodicResults, settings.minScore, shown));
        }
        // The block is filled in this order, so that a full budget cuts the least important
        // first: current state (most relevant first), the user's open tasks, persistent facts
        // (ranked by relevance), episodic hits (by score), and summaries last, newest first.
        List<Content> out = new ArrayList<>();
        List<Content> facts = new ArrayList<>();
        splitSummaries(state, facts, summaries);
        facts.sort(Comparator.comparingDouble((Content c) -> -overlap(queryTerms, c)));
        out.addAll(facts.subList(0, Math.min(facts.size(), settings.stateResults)));
        out.addAll(openTasks);
        List<Content> rest = new ArrayList<>();
        splitSummaries(persistent, rest, summaries);
        splitSummaries(episodicHits, rest, summaries);
        out.addAll(rest);
        summaries.sort(Comparator.comparing((Content c) -> MemoryContentInjector.instant(str(c, MemoryContent.RECORDED_AT))).reversed());
        out.addAll(summaries.subList(0, Math.min(summaries.size(), settings.stateResults)));
        return out;
    }

    private static void splitSummaries(List<Content> from, List<Content> others, List<Content> summaries) {
        for (Content c : from) {
            (SUMMARY.equals(str(c, MemoryContent.LAYER)) ? summaries : others).add(c);
        }
    }

    private static String str(Content c, String key) {
        String s = c.textSegment().metadata().getString(key);
        return s == null ? "" : s;
    }

    /** The share of the query's terms that a content's text holds (0 when the query has none). */
    private static double overlap(Set<String> queryTerms, Content c) {
        if (queryTerms.isEmpty()) {
            return 0;
        }
        Set<String> terms = PersistentIndex.terms(c.textSegment().text());
        long shared = queryTerms.stream().filter(terms::contains).count();
        return (double) shared / queryTerms.size();
    }

    private List<Content> persistent(Caller caller, String queryText, Set<String> shown) {
        if (settings.persistentResults == 0) {
            return List.of();
        }
        // The best persistentResults plus room for keys already shown in an earlier layer.
        List<Ranked> ranked = persistentIndex.top(caller, PersistentIndex.terms(queryText),
                settings.persistentResults + shown.size());
        List<Content> out = new ArrayList<>();
        for (Ranked r : ranked) {
            if (out.size() >= settings.persistentResults) {
                break;
            }
            String why = r.preference() ? "a standing preference of the user"
                    : r.score() > 0 ? String.format(Locale.ROOT, "persistent memory sharing %.0f%% of the query's terms",
                    r.score() * 100) : "persistent memory, most recent first";
            List<Content> one = new ArrayList<>();
            addAll(one, List.of(r.key()), PERSISTENT, why, shown, caller, null);
            for (Content c : one) {
                out.add(withScore(c, r.score()));
            }
        }
        return out;
    }

    private void addAll(List<Content> out, List<KeyState> keys, String layer, String why, Set<String> shown,
                        Caller caller, @Nullable String session) {
        for (KeyState k : keys) {
            if (k.current() != null && shown.add(k.current().id())) {
                add(out, k.current(), layer, why, caller, session);
            }
            if (k.needsReverification() != null && shown.add(k.needsReverification().id())) {
                add(out, k.needsReverification(), layer,
                        why + "; past its re-verify deadline " + k.needsReverification().expiresAt()
                                + ", check before relying on it", caller, session);
            }
            for (MemoryRecord c : k.conflicts()) {
                if (shown.add(c.id())) {
                    add(out, c, layer, why + "; disagrees with the current value"
                            + (c.conflictsWith() != null ? " (" + c.conflictsWith() + ")" : ""), caller, session);
                }
            }
            for (MemoryRecord u : k.upcoming()) {
                if (shown.add(u.id())) {
                    add(out, u, layer, why, caller, session);
                }
            }
            for (MemoryRecord e : k.noLongerValid()) {
                if (shown.add(e.id())) {
                    add(out, e, layer, why, caller, session);
                }
            }
        }
    }

    private void add(List<Content> out, MemoryRecord r, String layer, String why, Caller caller,
                     @Nullable String session) {
        if (r.key().path().equals(Summarizer.EXCLUDED_KEY)) {
            return; // the summarizer's bookkeeping (message indices), not something the user said
        }
        if (r.tags().contains(Summarizer.SUMMARY_TAG)) {
            Lineage.Label label = lineage.summary(caller, r);
            out.add(content(r, SUMMARY, label, "a summary of earlier messages of session " + r.scope().session()
                    + Lineage.why(label), 1.0));
            return;
        }
        lineage.record(caller, r, session).ifPresent(label -> out.add(content(r, layer, label,
                why + Lineage.why(label), 1.0)));
    }

    static Content content(MemoryRecord r, String layer, Lineage.Label label, String why, double score) {
        Metadata md = new Metadata();
        md.put(MemoryContent.LAYER, layer);
        md.put(MemoryContent.ID, r.id());
        md.put(MemoryContent.KEY, r.key().path());
        md.put(MemoryContent.VERSION, r.version());
        md.put(MemoryContent.SCOPE, r.scope().toString());
        md.put(MemoryContent.KIND, EnumText.label(r.kind()));
        md.put(MemoryContent.SOURCE, EnumText.label(r.source()) + (r.sourceRef() != null ? ":" + r.sourceRef() : ""));
        md.put(MemoryContent.TRUST, EnumText.label(r.trust()));
        md.put(MemoryContent.STATUS, label.status());
        label.attributes().forEach(md::put);
        md.put(MemoryContent.OBSERVED_AT, r.observedAt().toString());
        md.put(MemoryContent.RECORDED_AT, r.recordedAt().toString());
        if (r.validFrom() != null) {
            md.put(MemoryContent.VALID_FROM, r.validFrom().toString());
        }
        if (r.validTo() != null) {
            md.put(MemoryContent.VALID_TO, r.validTo().toString());
        }
        if (r.expiresAt() != null) {
            md.put(MemoryContent.EXPIRES_AT, r.expiresAt().toString());
        }
        if (r.tags().contains(Summarizer.SUMMARY_TAG)) {
            md.put(MemoryContent.SPAN, span(r));
        }
        md.put(MemoryContent.SCORE, score);
        md.put(MemoryContent.WHY, why);
        String text = r.tags().contains(Summarizer.SUMMARY_TAG) ? Summarizer.summaryText(r) : r.key().path() + " = " + r.text();
        return Content.from(TextSegment.from(text, md), Map.of(ContentMetadata.SCORE, score));
    }

    /** A summary's time span: the messages it covers and when it was made. */
    static String span(MemoryRecord summary) {
        List<Long> covered = Summarizer.coveredMessages(summary);
        String range = covered.isEmpty() ? "no messages" : covered.size() == 1 ? "message " + covered.get(0)
                : "messages " + covered.get(0) + "-" + covered.get(covered.size() - 1);
        return range + " of session " + summary.scope().session() + ", summarized " + summary.observedAt();
    }

    static Content withScore(Content c, double score) {
        Metadata md = c.textSegment().metadata().copy();
        md.put(MemoryContent.SCORE, score);
        return Content.from(TextSegment.from(c.textSegment().text(), md), Map.of(ContentMetadata.SCORE, score));
    }

    /**
     * The caller and session of a query: from the chat memory id through the session resolver
     * (the same mapping the chat memory store uses), or, without a memory id, tenant and user from
     * the invocation parameters {@code tenant} and {@code user}. When both name a tenant and user
     * they must agree.
     */
    Target target(Query query) {
        dev.langchain4j.rag.query.Metadata md = query.metadata();
        Object memoryId = md == null ? null : md.chatMemoryId();
        InvocationParameters params = md == null ? null : md.invocationParameters();
        String tenant = param(params, "tenant");
        String user = param(params, "user");
        if (memoryId != null) {
            SessionRef ref = SessionResolver.resolve(ids, memoryId);
            if ((tenant != null && !tenant.equals(ref.tenant())) || (user != null && !user.equals(ref.user()))) {
                throw new MemoryException.AccessDenied("invocation parameters name " + tenant + "/" + user
                        + " but the memory id belongs to " + ref.tenant() + "/" + ref.user());
            }
            return new Target(ref.caller(agent), ref);
        }
        if (tenant == null || user == null) {
            throw new IllegalArgumentException("a memory query needs a chat memory id or invocation parameters"
                    + " \"tenant\" and \"user\"");
        }
        return new Target(new Caller(tenant, user, agent), null);
    }

    private static @Nullable String param(@Nullable InvocationParameters params, String name) {
        if (params == null || !params.containsKey(name)) {
            return null;
        }
        Object v = params.get(name);
        return v == null ? null : v.toString();
    }
}
