package dev.agentmemory.demo;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The offline model's small grammar for what a person says to test a memory, in English and
 * Chinese. An utterance is read as <em>cues</em> (words that say what the person does) and
 * <em>mentions</em> (values of a slot: a language, a contact channel, a colour, an order number,
 * a topic), each mention marked <em>negated</em> when its clause says it is the old or unwanted
 * value. Deterministic: the same words always give the same intent.
 *
 * <p>The rules, in the order they are tried:
 * <ol>
 *   <li><b>forget</b>: a forget cue ("forget", "erase", "delete", "remove", "忘", "删", ...; not "don't forget"): forget the
 *       slot named (language, contact) or, for "that"/"it", the preference stated last.</li>
 *   <li><b>recall</b>: a question about what the assistant remembers or knows ("what do you
 *       remember/know (about me)", "tell me what you remember", "你记得我什么", "你都知道我哪些事").</li>
 *   <li><b>continue</b>: a continue cue ("back to", "where were we", "continue", "resume", "继续",
 *       "回到", "说到哪"), with the topic mentioned if any: resume that open task (else the latest).</li>
 *   <li><b>preference</b>: a language (or contact channel) mention with a preference cue ("answer",
 *       "reply", "use", "prefer", "switch", "change", "rather", "instead", "用", "喜欢", "改", "换", "还是", ...)
 *       or alone in a short clause ("English please"). The new value is the first mention not negated;
 *       when every mention is negated ("no longer French", "别再用中文了") the preference is dropped.</li>
 *   <li><b>correction</b> of a fact: a colour or an order number that is not negated, with a
 *       correction cue ("actually", "no,", "not", "wrong", "I meant", "make that", "instead", "其实",
 *       "不对", "不是", "错了", ...) or the slot's name ("colour", "颜色", "order", "订单").</li>
 * </ol>
 * A mention is negated when, between the previous mention (or the start of its clause) and the
 * value, the words say so: anywhere "not", "n't", "no longer", "no more", "stop", "never", "不", "别",
 * "没"; right before the value "over", "from", "instead of", "rather than". Clauses end at
 * sentence and clause punctuation (also Chinese). Anything else is left to the shop's own rules
 * (returns, exchanges, addresses, policies), then to a fallback that lists what is understood.
 */
final class Intents {

    /** What the person does. */
    enum Act { FORGET, RECALL, CONTINUE, PREFERENCE, CORRECTION, NONE }

    /** The kinds of values a mention names. */
    enum Slot { LANGUAGE, CHANNEL, COLOUR, ORDER, TOPIC }

    /**
     * One value in the words: its slot, its canonical name (e.g. English, white, earbuds), the
     * words the person used for it, and whether the clause marks it as old or unwanted.
     */
    record Mention(Slot slot, String value, String said, boolean negated) {
    }

    /** An utterance read by the grammar: the act and the mentions, in order. */
    record Intent(Act act, List<Mention> mentions) {
        Intent {
            mentions = List.copyOf(mentions);
        }

        /** The first mention of {@code slot} that is not negated: the new value. */
        Optional<Mention> wanted(Slot slot) {
            return mentions.stream().filter(m -> m.slot() == slot && !m.negated()).findFirst();
        }

        /** The first negated mention of {@code slot}: the old or unwanted value. */
        Optional<Mention> unwanted(Slot slot) {
            return mentions.stream().filter(m -> m.slot() == slot && m.negated()).findFirst();
        }

        boolean mentions(Slot slot) {
            return mentions.stream().anyMatch(m -> m.slot() == slot);
        }
    }

    private record Word(Slot slot, String value, List<String> forms) {
    }

    private static final List<Word> VOCABULARY = List.of(
            word(Slot.LANGUAGE, "English", "english", "英文", "英语"),
            word(Slot.LANGUAGE, "Chinese", "chinese", "mandarin", "中文", "汉语", "普通话"),
            word(Slot.LANGUAGE, "French", "french", "法语", "法文"),
            word(Slot.LANGUAGE, "German", "german", "德语", "德文"),
            word(Slot.LANGUAGE, "Spanish", "spanish", "西班牙语"),
            word(Slot.LANGUAGE, "Japanese", "japanese", "日语", "日文"),
            word(Slot.CHANNEL, "email", "email", "e-mail", "邮件", "邮箱"),
            word(Slot.CHANNEL, "phone", "phone", "电话"),
            word(Slot.CHANNEL, "SMS", "sms", "text message", "短信"),
            word(Slot.COLOUR, "white", "white", "白色"),
            word(Slot.COLOUR, "black", "black", "黑色"),
            word(Slot.COLOUR, "silver", "silver", "银色"),
            word(Slot.COLOUR, "blue", "blue", "蓝色"),
            word(Slot.COLOUR, "red", "red", "红色"),
            word(Slot.TOPIC, "earbuds", "earbud", "earphone", "headphone", "耳机"),
            word(Slot.TOPIC, "charger", "charger", "充电器"),
            word(Slot.TOPIC, "watch", "watch", "手表"),
            word(Slot.TOPIC, "broadband", "broadband", "internet", "wifi", "wi-fi", "router", "宽带", "路由器"),
            word(Slot.TOPIC, "exchange", "exchange", "swap", "换货"),
            word(Slot.TOPIC, "return", "return", "refund", "退货", "退款"));

    private static final Pattern ORDER_NUMBER = Pattern.compile("(?<![\\d-])\\d{4,8}(?![\\d-])");
    private static final Pattern CLAUSE_END = Pattern.compile("[.!?;,\\n。！？；，、：:]");

    private static final Cues FORGET = Cues.of("forget", "erase", "delete", "remove", "wipe", "忘", "删", "清除", "别记");
    private static final Cues NOT_FORGET = Cues.of("don't forget", "do not forget", "别忘", "不要忘");
    private static final Pattern RECALL_EN = Pattern.compile(
            "\\bwhat(?:'s| is| do| did| have| else)?\\b[^.?!]*?\\byou\\b[^.?!]*?\\b(?:remember|know|recall|stored|saved|kept|noted|memori[sz]ed)\\b"
                    + "(?!\\s+about\\s+(?!me\\b|us\\b|my\\b))");
    private static final Pattern RECALL_ZH = Pattern.compile("你.{0,6}(?:记得|记住|知道|记了|存了).{0,8}(?:什么|哪些|啥)");
    private static final Cues CONTINUE = Cues.of("back to", "where were we", "where was i", "where did we", "continue",
            "resume", "carry on", "go on with", "get back", "继续", "回到", "说到哪", "接着", "讲到哪");
    private static final Cues PREFERENCE = Cues.of("answer", "reply", "respond", "speak", "talk", "write", "use", "prefer",
            "switch", "change", "language", "rather", "instead", "go with", "from now on", "always", "contact", "reach me",
            "用", "回答", "回复", "说", "讲", "喜欢", "偏好", "改", "换", "语言", "还是", "以后", "联系");
    private static final Cues CORRECTION = Cues.of("actually", "no", "not", "wrong", "sorry", "meant", "instead", "rather",
            "second thought", "correction", "make that", "make it", "change", "switch", "after all", "其实", "不对", "不是",
            "错了", "我是说", "改", "还是", "换成", "应该是", "更正");
    private static final Cues SLOT_NAMES = Cues.of("colour", "color", "颜色", "order", "订单");
    private static final Pattern NEGATED_ANYWHERE = Pattern.compile(
            "\\bnot\\b|n't\\b|\\bno longer\\b|\\bno more\\b|\\bstop\\b|\\bstopped\\b|\\bnever\\b|不|别|没");
    private static final Pattern NEGATED_BEFORE = Pattern.compile("(?:\\bover|\\bfrom|\\binstead of|\\brather than|\\bthan)\\s*$");

    private Intents() {
    }

    private static Word word(Slot slot, String value, String... forms) {
        return new Word(slot, value, List.of(forms));
    }

    /** Reads {@code said} with the grammar. */
    static Intent parse(String said) {
        String low = said.toLowerCase(Locale.ROOT);
        List<Mention> mentions = mentions(low);
        return new Intent(act(low, mentions), mentions);
    }

    private static Act act(String low, List<Mention> mentions) {
        if (FORGET.in(low) && !NOT_FORGET.in(low)) {
            return Act.FORGET;
        }
        if (RECALL_EN.matcher(low).find() || RECALL_ZH.matcher(low).find()) {
            return Act.RECALL;
        }
        if (CONTINUE.in(low)) {
            return Act.CONTINUE;
        }
        for (Mention m : mentions) {
            if ((m.slot() == Slot.LANGUAGE || m.slot() == Slot.CHANNEL)
                    && (PREFERENCE.in(low) || shortClause(low, m))) {
                return Act.PREFERENCE;
            }
        }
        boolean correcting = CORRECTION.in(low);
        for (Mention m : mentions) {
            if (m.negated()) {
                continue;
            }
            if ((m.slot() == Slot.COLOUR || m.slot() == Slot.ORDER) && (correcting || SLOT_NAMES.in(low))) {
                return Act.CORRECTION;
            }
        }
        return Act.NONE;
    }

    /** Whether the clause holding {@code m} is the value and at most two other words ("English please"). */
    private static boolean shortClause(String low, Mention m) {
        for (String clause : CLAUSE_END.split(low)) {
            if (clause.contains(m.said())) {
                String rest = clause.replace(m.said(), " ").strip();
                return rest.isEmpty() || rest.split("\\s+").length <= 2 && !rest.codePoints().anyMatch(Intents::han);
            }
        }
        return false;
    }

    /** Every mention in {@code low}, in the order written, each with its negation. */
    static List<Mention> mentions(String low) {
        record At(int start, int end, Slot slot, String value) {
        }
        List<At> found = new ArrayList<>();
        for (Word w : VOCABULARY) {
            for (String form : w.forms()) {
                int from = 0;
                for (int at = low.indexOf(form); at >= 0; at = low.indexOf(form, from)) {
                    from = at + form.length();
                    boolean ascii = form.chars().allMatch(c -> c < 128);
                    if (ascii && at > 0 && Character.isLetter(low.charAt(at - 1))) {
                        continue;
                    }
                    int s = at;
                    if (found.stream().noneMatch(f -> s < f.end() && f.start() < s + form.length())) {
                        found.add(new At(at, at + form.length(), w.slot(), w.value()));
                    }
                }
            }
        }
        Matcher n = ORDER_NUMBER.matcher(low);
        while (n.find()) {
            found.add(new At(n.start(), n.end(), Slot.ORDER, n.group()));
        }
        found.sort(java.util.Comparator.comparingInt(At::start));
        List<Mention> out = new ArrayList<>();
        int previousEnd = 0;
        for (At a : found) {
            int clauseStart = previousEnd;
            Matcher end = CLAUSE_END.matcher(low);
            while (end.find() && end.start() < a.start()) {
                clauseStart = Math.max(clauseStart, end.end());
            }
            String before = low.substring(clauseStart, a.start());
            boolean negated = NEGATED_ANYWHERE.matcher(before).find() || NEGATED_BEFORE.matcher(before).find();
            out.add(new Mention(a.slot(), a.value(), low.substring(a.start(), a.end()), negated));
            previousEnd = a.end();
        }
        return out;
    }

    /** The canonical value of a remembered {@code text} of {@code slot} (e.g. 英文 is English), or the text itself. */
    static String canonical(Slot slot, String text) {
        return mentions(text.toLowerCase(Locale.ROOT)).stream().filter(m -> m.slot() == slot).map(Mention::value)
                .findFirst().orElse(text);
    }

    /**
     * A list of cue words. A Latin-script cue matches a whole word, or the start of one when it has
     * four letters or more ("answer" in "answering"); a Chinese cue matches anywhere.
     */
    private record Cues(Pattern latin, List<String> han) {
        static Cues of(String... cues) {
            List<String> latin = new ArrayList<>();
            List<String> han = new ArrayList<>();
            for (String c : cues) {
                if (c.chars().allMatch(ch -> ch < 128)) {
                    latin.add(Pattern.quote(c) + (c.length() >= 4 ? "" : "(?![a-z])"));
                } else {
                    han.add(c);
                }
            }
            return new Cues(Pattern.compile("(?<![a-z])(?:" + String.join("|", latin) + ")"), List.copyOf(han));
        }

        boolean in(String low) {
            return latin.matcher(low).find() || han.stream().anyMatch(low::contains);
        }
    }

    private static boolean han(int cp) {
        return Character.UnicodeScript.of(cp) == Character.UnicodeScript.HAN;
    }
}
