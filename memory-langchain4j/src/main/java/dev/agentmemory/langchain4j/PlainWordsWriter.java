package dev.agentmemory.langchain4j;

import dev.agentmemory.core.Caller;
import dev.agentmemory.core.ScopeView.KeyState;
import dev.agentmemory.core.engine.MemoryEngine;
import dev.agentmemory.core.MemoryKey;
import dev.agentmemory.core.MemoryRecord;
import dev.agentmemory.core.MemoryValue;
import dev.agentmemory.core.Proposal;
import dev.agentmemory.core.MemoryRecord.Source;
import dev.agentmemory.core.event.StoredMessage;
import dev.agentmemory.langchain4j.plainwords.Attribute;
import dev.agentmemory.langchain4j.plainwords.PlainWords;
import org.jspecify.annotations.Nullable;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Writes what a user's message states in plain words ({@link PlainWords}: "I work at Acme",
 * "我搬到上海了") as persistent records, so that a later statement of the same attribute supersedes
 * the earlier one through the engine's keyed versions: the log holds the change (source
 * {@code USER}, the message as {@code message:<session>#<index>}, the tag {@value #TAG}), and the
 * older message, whose record was replaced, is framed {@code superseded} with {@code superseded-by}.
 *
 * <p>Only messages of type {@code USER} are read: tool results, documents and model answers never
 * become a user's fact. A user message that carries pasted retrieval content
 * (LangChain4j's default injector) is not read either.
 *
 * <p>A turn's user message is read when the turn ends (the model's answer without tool calls is
 * stored), or when the next user message arrives without one: a model that records the statement
 * itself with a tool during the turn ({@code remember}, any key) keeps its key, and the rules
 * then write to that key. A statement is written to the key already in use for its attribute
 * ({@link Attribute#of}: {@code answer.language} for the language, {@code profile.homeCity} for the
 * residence, ...) and to the attribute's own key ({@code user.language}, {@code user.residence})
 * when none is; nothing is written when the key already holds the same value. A user message
 * stored but never followed (the process stopped mid-turn) is not read.
 *
 * <p>A message that ends a value without giving a new one ({@link PlainWords#ends}: "I no longer
 * work at Acme", 我搬离了上海) invalidates the key's standing version, an event in the log from the
 * same message, when the value it names is the one the key holds or it names none ("I don't work
 * anywhere now"); the ended record is then not current in any read path, while {@code history} and
 * {@code asOf} keep it for the time it held. A value said to end that the key does not hold ends
 * nothing.
 */
final class PlainWordsWriter {

    /** The tag on every record the rules write. */
    static final String TAG = PlainWords.TAG;
    /** How LangChain4j's DefaultContentInjector introduces pasted content: such a message is not only the user's. */
    private static final String PASTED_CONTENT = "Answer using the following information:";
    private static final String USER_TYPE = "USER";

    private final MemoryEngine engine;
    private final String agent;
    private final Map<SessionRef, List<StoredMessage>> pending = new ConcurrentHashMap<>();

    PlainWordsWriter(MemoryEngine engine, String agent) {
        this.engine = engine;
        this.agent = agent;
    }

    /**
     * Notes the messages an update of {@code session} appended; {@code turnEnded} when the update
     * ends with the model's final answer. Writes what the finished turns' user messages state.
     */
    void stored(SessionRef session, List<StoredMessage> appended, boolean turnEnded) {
        List<StoredMessage> ready = new ArrayList<>();
        pending.compute(session, (k, waiting) -> {
            List<StoredMessage> out = waiting == null ? new ArrayList<>() : waiting;
            for (StoredMessage m : appended) {
                if (USER_TYPE.equals(m.type()) && m.text() != null && !m.text().isBlank()) {
                    ready.addAll(out); // the turn before never ended: read it now
                    out = new ArrayList<>();
                    out.add(m);
                }
            }
            if (turnEnded) {
                ready.addAll(out);
                return null;
            }
            return out.isEmpty() ? null : out;
        });
        for (StoredMessage m : ready) {
            write(session, m);
        }
    }

    /** Forgets what is waiting for a user's sessions (after a forget). */
    void invalidate(String tenant, String user) {
        pending.keySet().removeIf(ref -> ref.tenant().equals(tenant) && ref.user().equals(user));
    }

    private void write(SessionRef session, StoredMessage m) {
        String text = m.text();
        if (text == null || text.contains(PASTED_CONTENT)) {
            return;
        }
        List<PlainWords.Statement> statements = PlainWords.read(text);
        List<PlainWords.Ending> endings = PlainWords.ends(text);
        if (statements.isEmpty() && endings.isEmpty()) {
            return;
        }
        Caller caller = session.caller(agent);
        List<KeyState> persistent = engine.view(caller, caller.persistent()).keys();
        List<Proposal> proposals = new ArrayList<>();
        String source = "message:" + session.session() + "#" + m.index();
        for (PlainWords.Statement s : statements) {
            MemoryKey key = keyInUse(persistent, s.attribute()).orElse(s.attribute().key());
            if (holds(persistent, key, s.value()) || statedBy(persistent, key, source)) {
                continue; // already held, or the model recorded this very message: its reading stands
            }
            proposals.add(Proposal.set(caller.persistent(), key, MemoryValue.of(s.value()))
                    .kind(s.attribute().kind())
                    .source(Source.USER, "message:" + session.session() + "#" + m.index())
                    .tag(TAG)
                    .reason("stated in plain words: " + s.attribute().meaning())
                    .build());
        }
        for (PlainWords.Ending e : endings) {
            MemoryKey key = keyInUse(persistent, e.attribute()).orElse(e.attribute().key());
            MemoryRecord standing = persistent.stream().filter(k -> k.key().equals(key)).map(PlainWordsWriter::standing)
                    .filter(r -> r != null && r.value() != null).findFirst().orElse(null);
            MemoryValue value = standing == null ? null : standing.value();
            if (value == null || !e.ends(value.text())) {
                continue; // nothing held, or another value than the one said to have ended
            }
            proposals.add(Proposal.invalidate(caller.persistent(), key)
                    .kind(e.attribute().kind())
                    .source(Source.USER, "message:" + session.session() + "#" + m.index())
                    .tag(TAG)
                    .reason("ended in plain words: " + e.attribute().meaning())
                    .build());
        }
        if (!proposals.isEmpty()) {
            engine.propose(caller, proposals);
        }
    }

    /**
     * Whether {@code key}'s standing value was recorded from the message {@code source} itself (the
     * model's {@code remember} during the turn, with the user's quote): the rules read the same
     * words less well ("my name is Ana Maria2" gives the name "Ana Maria"), so they do not replace it.
     */
    private static boolean statedBy(List<KeyState> persistent, MemoryKey key, String source) {
        for (KeyState k : persistent) {
            MemoryRecord r = standing(k);
            if (k.key().equals(key) && r != null && source.equals(r.sourceRef())) {
                return true;
            }
        }
        return false;
    }

    /** Whether {@code key} already holds {@code value} (compared without case and spacing). */
    private static boolean holds(List<KeyState> persistent, MemoryKey key, String value) {
        for (KeyState k : persistent) {
            MemoryRecord r = standing(k);
            MemoryValue v = r == null ? null : r.value();
            if (k.key().equals(key) && v != null && PlainWords.comparable(v.text()).equals(PlainWords.comparable(value))) {
                return true;
            }
        }
        return false;
    }

    /**
     * The value a key stands at now: its current one, or the one that applies but passed its
     * re-verify deadline (still the key's value: restating it must not open a second key whose
     * fresh copy would be framed current while the first needs re-verification).
     */
    private static @Nullable MemoryRecord standing(KeyState k) {
        return k.current() != null ? k.current() : k.needsReverification();
    }

    /** The persistent key with a standing value about {@code attribute} another writer chose, the newest first. */
    private static Optional<MemoryKey> keyInUse(List<KeyState> persistent, Attribute attribute) {
        MemoryRecord best = null;
        for (KeyState k : persistent) {
            MemoryRecord r = standing(k);
            if (r == null || r.value() == null || k.key().equals(attribute.key())
                    || Attribute.of(k.key()).filter(a -> a == attribute).isEmpty()) {
                continue;
            }
            if (best == null || r.recordedAt().isAfter(best.recordedAt())) {
                best = r;
            }
        }
        if (best == null) {
            return Optional.empty();
        }
        boolean ownCurrent = persistent.stream().anyMatch(k -> k.key().equals(attribute.key()) && standing(k) != null);
        return ownCurrent ? Optional.empty() : Optional.of(best.key());
    }
}
