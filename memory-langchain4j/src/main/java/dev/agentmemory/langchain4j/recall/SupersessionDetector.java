package dev.agentmemory.langchain4j.recall;

import java.util.Set;
import java.util.function.ToDoubleFunction;

/**
 * Decides whether two statements of one partition are about the same thing, so that the newer
 * replaces the older ("the newer one wins"). No keys are given: the decision is made from the
 * text alone, by requiring both
 * <ul>
 *   <li>a high cosine similarity of the embeddings (the statements mean nearly the same), and</li>
 *   <li>a high weighted overlap of their content terms (stemmed, stop words removed): the weight
 *       of the shared terms over the weight of the lighter statement. At write time the weights
 *       come from the two statements alone ({@link #pairWeights}: a name says little, since many
 *       of a user's statements share their subject; the predicate says a lot), so the decision
 *       is a function of the pair and the same whatever else the index holds or held.</li>
 * </ul>
 * Either signal alone hides unrelated facts: two facts about one person share the name (high
 * raw overlap), and different facts in similar words can embed closely (high cosine).
 *
 * <p>At read time (off by default) a looser pair of thresholds applies, with terms weighted by
 * their inverse document frequency inside the partition at the time of the read, to results that both answer the query:
 * the query names the subject, so two similar results that share the query's terms are taken to
 * be two versions of one fact ({@link #sameSubjectForQuery}).
 */
final class SupersessionDetector {

    private final double minCosine;
    private final double minOverlap;

    SupersessionDetector(double minCosine, double minOverlap) {
        if (!(minCosine > 0 && minCosine <= 1)) {
            throw new IllegalArgumentException("supersession minCosine must be in (0, 1]: " + minCosine);
        }
        if (!(minOverlap > 0 && minOverlap <= 1)) {
            throw new IllegalArgumentException("supersession minOverlap must be in (0, 1]: " + minOverlap);
        }
        this.minCosine = minCosine;
        this.minOverlap = minOverlap;
    }

    /**
     * Weight of a name's terms at write time (a capitalised word other than "I"): the subject of
     * many of a user's statements, so sharing it says little about whether two statements are
     * versions of one fact; other content terms weigh 1.
     */
    static final double NAME_WEIGHT = 0.1;

    private static final java.util.regex.Pattern NAME = java.util.regex.Pattern.compile("\\b\\p{Lu}[\\p{L}\\p{M}'’-]*");

    /**
     * The write-time term weights of a pair, a function of the two statements alone: terms of
     * their names weigh {@link #NAME_WEIGHT}, other terms 1.
     */
    static ToDoubleFunction<String> pairWeights(String textA, String textB, java.util.function.Function<String, Set<String>> terms) {
        StringBuilder names = new StringBuilder();
        for (String text : new String[] {textA, textB}) {
            java.util.regex.Matcher m = NAME.matcher(text);
            while (m.find()) {
                if (!m.group().equals("I")) {
                    names.append(m.group()).append(' ');
                }
            }
        }
        Set<String> nameTerms = names.length() == 0 ? Set.of() : terms.apply(names.toString());
        return t -> nameTerms.contains(t) ? NAME_WEIGHT : 1.0;
    }

    double minCosine() {
        return minCosine;
    }

    /** The lowest cosine at which any write-time rule can pair two statements. */
    double scanCosine() {
        return Math.min(minCosine, FRAME_MIN_COSINE);
    }

    /** Least number of shared terms, names aside, of two near-paraphrases at write time. */
    static final int MIN_SHARED_TERMS = 2;

    /** Lowest cosine of two statements with the same subjects that {@link #sameFrame} pairs. */
    static final double FRAME_MIN_COSINE = 0.5;
    /** How many of a predicate's first relation terms are compared. */
    static final int RELATION_TERMS = 2;
    /** Least share of the lighter predicate's terms that a negation and the statement it ends must share. */
    static final double NEGATION_MIN_OVERLAP = 0.3;

    private static final java.util.regex.Pattern NOT_A_STATEMENT = java.util.regex.Pattern.compile(
            "[?？]\\s*$|^\\s*(?i:if|suppose|what if|imagine|would|should|could)\\b|^\\s*(?:如果|假如|要是|假设)");

    /**
     * Whether a text states something that can replace or be replaced: not a question, not a
     * hypothetical ("If I moved to Paris", 如果...).
     */
    static boolean states(String text) {
        return !NOT_A_STATEMENT.matcher(text).find();
    }

    /**
     * True when two statements open with the same named subjects and either say something about
     * them in the same relation (the first relation terms of their predicates agree: all of the
     * shorter lead, as "first met" in both, or "co-founded" in both) or one negates what the other
     * says (exactly one is negated and their predicates share enough content terms). Needs a
     * moderate cosine too.
     */
    boolean sameFrame(double cosine, StatementFrame a, StatementFrame b,
                      java.util.function.Function<String, Set<String>> terms) {
        if (cosine < FRAME_MIN_COSINE || !a.sameSubjects(b)) {
            return false;
        }
        Set<String> pa = terms.apply(a.predicate());
        Set<String> pb = terms.apply(b.predicate());
        if (a.negated() != b.negated()) {
            return overlap(pa, pb, t -> 1.0) >= NEGATION_MIN_OVERLAP;
        }
        Set<String> leadA = lead(pa);
        Set<String> leadB = lead(pb);
        long shared = leadB.stream().filter(leadA::contains).count();
        return shared > 0 && shared >= Math.min(leadA.size(), leadB.size());
    }

    /** Lowest cosine of two results about the same named subjects that read-time resolution by frame compares. */
    static final double READ_FRAME_MIN_COSINE = 0.45;
    /** Least term overlap (partition idf) at which a newer result about the same subjects supersedes an older one for a read. */
    static final double READ_FRAME_MIN_OVERLAP = 0.25;
    /** Least share of the query's distinctive terms (of those either has) both results must have to supersede. */
    static final double READ_FRAME_MIN_QUERY_COVERAGE = 0.3;
    /** Least term overlap at which a newer result about the same subjects demotes an older one for a read. */
    static final double READ_FRAME_DEMOTE_MIN_OVERLAP = 0.15;

    /**
     * Stems that say nothing about which relation a predicate states: auxiliaries, modals,
     * pronouns and adverbs of time or degree (the analyzer's stop words are already gone).
     */
    static final Set<String> NOT_A_RELATION = Set.of("ha", "have", "had", "wa", "were", "been", "be", "am", "could",
            "mai", "may", "might", "would", "should", "can", "will", "shall", "must", "do", "doe", "did", "also", "often",
            "alwai", "usual", "current", "now", "onli", "just", "still", "recent", "both", "all", "known", "her", "hi",
            "his", "him", "he", "she", "our", "my", "your", "its", "them", "we", "i", "you", "actual", "instead",
            "exclus", "previous", "later", "sinc", "never", "longer", "ani", "some", "veri", "well", "mani");

    /** The predicate's first {@link #RELATION_TERMS} content terms that name a relation. */
    private static Set<String> lead(Set<String> predicate) {
        return predicate.stream().filter(t -> !NOT_A_RELATION.contains(t)).limit(RELATION_TERMS)
                .collect(java.util.stream.Collectors.toSet());
    }

    /** True when the two statements are near-duplicates about the same subject. */
    boolean sameSubject(double cosine, Set<String> termsA, Set<String> termsB, ToDoubleFunction<String> idf) {
        return cosine >= minCosine && overlap(termsA, termsB, idf) >= minOverlap;
    }

    /**
     * True when two statements are near-duplicates and both carry the query's subject: the terms
     * of the query they share weigh at least {@code minQueryCoverage} of the query terms either has.
     */
    boolean sameSubjectForQuery(double cosine, Set<String> termsA, Set<String> termsB, Set<String> queryTerms,
                                double minQueryCoverage, ToDoubleFunction<String> idf) {
        return sameSubject(cosine, termsA, termsB, idf) && queryCoverage(termsA, termsB, queryTerms, idf)
                >= minQueryCoverage;
    }

    /** Weight of the shared terms over the weight of the lighter set; 0 when either is empty. */
    static double overlap(Set<String> a, Set<String> b, ToDoubleFunction<String> idf) {
        double wa = 0;
        double wb = 0;
        double shared = 0;
        for (String t : a) {
            double w = idf.applyAsDouble(t);
            wa += w;
            if (b.contains(t)) {
                shared += w;
            }
        }
        for (String t : b) {
            wb += idf.applyAsDouble(t);
        }
        double lighter = Math.min(wa, wb);
        return lighter <= 0 ? 0 : shared / lighter;
    }

    /** BM25 idf of a term found in half of the partition: terms at least this common name no subject. */
    static final double DISTINCTIVE_IDF = Math.log(2);

    /**
     * Weight of the distinctive query terms both contain over the weight of the distinctive query
     * terms either contains (a term in half the partition or more, like the user's own name, is
     * not distinctive); 0 when neither contains a distinctive query term.
     */
    static double queryCoverage(Set<String> a, Set<String> b, Set<String> query, ToDoubleFunction<String> idf) {
        double both = 0;
        double either = 0;
        for (String t : query) {
            boolean inA = a.contains(t);
            boolean inB = b.contains(t);
            if (inA || inB) {
                double w = idf.applyAsDouble(t);
                if (w <= DISTINCTIVE_IDF) {
                    continue;
                }
                either += w;
                if (inA && inB) {
                    both += w;
                }
            }
        }
        return either <= 0 ? 0 : both / either;
    }
}
