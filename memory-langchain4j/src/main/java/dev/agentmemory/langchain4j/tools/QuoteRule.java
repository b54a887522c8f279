package dev.agentmemory.langchain4j.tools;

import dev.agentmemory.core.MemoryRecord.Kind;
import dev.agentmemory.core.MemoryKey;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Decides whether a quote the model cites supports the <em>meaning</em> of a key, not only its
 * value. Finding the value's words in a user message is not enough: "这次 11 月去海岚。" holds
 * 海岚 but says nothing about where the user lives, so it cannot make {@code user.residence = 海岚}
 * a fact stated by the user.
 *
 * <p>Keys about identity and standing facts name an {@link Attribute} (by their segments, camel
 * case split: {@code user.residence}, {@code profile.homeCity}, {@code customer.employer},
 * {@code user.name}, {@code contact.email}, ...). For those, the quote must hold a clause that
 * contains the value and a first-person statement of that attribute ("I live in", "我住在",
 * "my name is", "我叫", "I work at", "我在…工作", ...) and is not about a trip or visit, an order or
 * delivery, another person, the past, or a plan or hypothesis. A preference (kind
 * {@link Kind#PREFERENCE}) needs a clause with the value that is not about a trip, an order or
 * another person, unless it also says the preference is standing ("from now on", "always",
 * "以后", ...). Every other key keeps the plain value check.
 *
 * <p>Clauses are cut at sentence and clause punctuation (also Chinese) and at "but", "and",
 * "但", "而"; matching is case-insensitive. The rules are deterministic word lists in English and
 * Chinese; they err on the side of not trusting: a write they do not support is kept as the
 * model's unconfirmed inference, never lost, and the reason tells the model what to quote.
 */
final class QuoteRule {

    /** What a key is about, when it is about the user's identity or standing facts. */
    enum Attribute {
        RESIDENCE("where the user lives"),
        NATIONALITY("the user's nationality"),
        EMPLOYER("the user's job or employer"),
        NAME("the user's name"),
        CONTACT("the user's contact details"),
        PREFERENCE("a standing preference of the user");

        private final String meaning;

        Attribute(String meaning) {
            this.meaning = meaning;
        }

        /** In words, for the reason the model reads. */
        String meaning() {
            return meaning;
        }
    }

    /** The outcome: supported, or not with the reason in words the model can act on. */
    record Verdict(boolean supported, Optional<Attribute> attribute, String reason) {
        static Verdict yes(Optional<Attribute> attribute) {
            return new Verdict(true, attribute, "");
        }
    }

    private static final Pattern CLAUSES = Pattern.compile(
            "[.!?;:]+(?=\\s|$)|[,\\n。！？；：，、]+|\\s+(?:but|and|while|whereas)\\s+|但是|但|而且|而|不过");
    private static final Pattern CAMEL = Pattern.compile("(?<=[a-z0-9])(?=[A-Z])");

    private static final List<String> PERSONAL_PREFIXES = List.of("user", "profile", "customer", "me", "self",
            "personal", "identity", "contact", "client");

    // first-person statements of each attribute; a "%s" stands for the value
    private static final List<String> RESIDENCE_CUES = List.of("i live", "i'm living", "i am living", "we live",
            "i reside", "my home", "our home", "my address", "my house", "i moved to", "we moved to", "i've moved",
            "i have moved", "i'm based in", "i am based in", "home is in", "i'm settled in", "我住", "我家在", "我家住",
            "我们住", "我们家在", "家住", "我的住址", "我的地址", "住址是", "搬到", "搬去", "搬家到", "定居", "常住", "我的家");
    private static final List<String> NATIONALITY_CUES = List.of("my nationality", "i'm a citizen", "i am a citizen",
            "citizen of", "my citizenship", "passport", "i'm %s", "i am %s", "我的国籍", "国籍", "公民", "我是%s");
    private static final List<String> EMPLOYER_CUES = List.of("i work", "i'm working", "i am working", "my employer",
            "my job", "my company", "my workplace", "i'm employed", "i am employed", "employed by", "i joined",
            "my occupation", "my profession", "i'm a %s", "i am a %s", "i'm an %s", "i am an %s", "我在", "工作",
            "上班", "就职", "任职", "我的公司", "我的工作", "我的职业", "职业是", "我是%s");
    private static final List<String> NAME_CUES = List.of("my name", "i'm called", "i am called", "call me",
            "name's", "i go by", "i'm %s", "i am %s", "this is %s", "我叫", "我的名字", "我姓", "叫我", "我是%s");
    private static final List<String> CONTACT_CUES = List.of("my email", "my e-mail", "my phone", "my number",
            "my mobile", "my cell", "reach me", "contact me", "email me", "text me", "call me at", "我的邮箱",
            "我的电话", "我的手机", "手机号", "电话是", "邮箱是", "联系我", "我的微信", "打我电话");
    private static final List<String> STANDING_CUES = List.of("from now on", "always", "never", "prefer",
            "by default", "in future", "in the future", "going forward", "every time", "each time", "以后", "今后",
            "从现在起", "从今以后", "往后", "一直", "总是", "每次", "偏好", "默认", "始终");

    // what a clause is about when it is not a standing fact of the user
    private static final List<String> TRIP = List.of("trip", "travel", "travelling", "traveling", "visit",
            "visiting", "this time", "going to", "heading to", "flying to", "fly to", "vacation", "holiday",
            "conference", "next week", "next month", "tomorrow", "hotel", "staying in", "staying at", "this week",
            "tour", "出差", "旅行", "旅游", "这次", "这趟", "去", "飞往", "到访", "拜访", "访问", "行程", "酒店", "下周",
            "下个月", "明天", "几天", "度假", "开会");
    private static final List<String> ORDER = List.of("order", "package", "parcel", "deliver", "delivery",
            "ship to", "shipping", "send it to", "gift", "订单", "包裹", "快递", "寄到", "送到", "收货", "发货", "配送",
            "礼物");
    private static final List<String> OTHER_PERSON = List.of("my wife", "my husband", "my partner", "my friend",
            "my colleague", "my boss", "my mother", "my mom", "my father", "my dad", "my son", "my daughter",
            "my brother", "my sister", "my parents", "my client", "my customer", "he", "she", "his", "her", "him",
            "they", "their", "them", "我妻子", "我老婆", "我丈夫", "我老公", "朋友", "同事", "老板", "我妈", "我爸",
            "妈妈", "爸爸", "儿子", "女儿", "哥哥", "姐姐", "弟弟", "妹妹", "父母", "客户", "他", "她");
    private static final List<String> NOT_NOW = List.of("don't", "do not", "doesn't", "no longer", "not", "used to",
            "might", "maybe", "if", "would", "thinking of", "planning", "plan to", "hope to", "want to", "wish",
            "不", "没", "曾经", "以前", "如果", "可能", "打算", "想", "计划", "也许");

    /** Words that hold a listed word but mean something else ("去年" is last year, not a trip). */
    private static final List<String> NEUTRAL = List.of("去年", "前年", "回去", "过去");

    private QuoteRule() {
    }

    /** The attribute a key is about, if it is about the user's identity or standing facts. */
    static Optional<Attribute> attributeOf(MemoryKey key, Kind kind) {
        List<String> words = new ArrayList<>();
        for (String segment : key.path().split("[.:_\\-]")) {
            for (String w : CAMEL.split(segment)) {
                if (!w.isEmpty()) {
                    words.add(w.toLowerCase(Locale.ROOT));
                }
            }
        }
        boolean personal = !words.isEmpty() && PERSONAL_PREFIXES.contains(words.get(0));
        for (String w : words) {
            if (w.startsWith("residen") || w.equals("home") || w.equals("address") || w.equals("hometown")
                    || w.equals("domicile") || (personal && (w.equals("city") || w.equals("location")))) {
                return Optional.of(Attribute.RESIDENCE);
            }
            if (w.startsWith("nationalit") || w.startsWith("citizen")) {
                return Optional.of(Attribute.NATIONALITY);
            }
            if (w.equals("employer") || w.equals("occupation") || w.equals("profession") || w.equals("job")
                    || w.equals("workplace") || (personal && (w.equals("company") || w.equals("title")))) {
                return Optional.of(Attribute.EMPLOYER);
            }
            if (personal && (w.equals("name") || w.endsWith("name") && !w.equals("username"))) {
                return Optional.of(Attribute.NAME);
            }
            if (personal && (w.equals("email") || w.equals("phone") || w.equals("mobile") || w.equals("telephone"))
                    || words.get(0).equals("contact")) {
                return Optional.of(Attribute.CONTACT);
            }
        }
        return kind == Kind.PREFERENCE ? Optional.of(Attribute.PREFERENCE) : Optional.empty();
    }

    /**
     * Whether {@code quote} supports writing {@code value} at {@code key} as a statement of the
     * user. The caller has already checked that the quote is the user's and holds the value's words.
     */
    static Verdict check(MemoryKey key, Kind kind, String value, String quote) {
        Optional<Attribute> attribute = attributeOf(key, kind);
        if (attribute.isEmpty()) {
            return Verdict.yes(attribute);
        }
        Attribute a = attribute.get();
        List<String> valueWords = Citations.words(value);
        String v = Citations.normalize(value);
        List<String> aboutElse = new ArrayList<>();
        boolean anyClause = false;
        for (String clause : CLAUSES.split(quote.toLowerCase(Locale.ROOT))) {
            if (!Citations.words(clause).containsAll(valueWords)) {
                continue;
            }
            anyClause = true;
            String c = " " + Citations.normalize(clause) + " ";
            if (a == Attribute.PREFERENCE) {
                String rest = without(c, STANDING_CUES, v);
                if (!rest.equals(c)) {
                    return Verdict.yes(attribute);
                }
                List<String> found = found(c, v, TRIP, ORDER, OTHER_PERSON);
                if (found.isEmpty()) {
                    return Verdict.yes(attribute);
                }
                aboutElse.addAll(found);
                continue;
            }
            String rest = without(c, cues(a), v);
            List<String> found = found(rest, v, TRIP, ORDER, OTHER_PERSON, NOT_NOW);
            if (!rest.equals(c) && found.isEmpty()) {
                return Verdict.yes(attribute);
            }
            aboutElse.addAll(found);
        }
        String why;
        if (!anyClause) {
            why = "no clause of the quote holds the whole value";
        } else if (!aboutElse.isEmpty()) {
            why = "the quote is about something else (" + String.join(", ",
                    aboutElse.stream().distinct().map(w -> "\"" + w + "\"").toList()) + "), it does not state " + a.meaning();
        } else {
            why = "the quote does not state " + a.meaning();
        }
        return new Verdict(false, attribute, why);
    }

    private static List<String> cues(Attribute a) {
        return switch (a) {
            case RESIDENCE -> RESIDENCE_CUES;
            case NATIONALITY -> NATIONALITY_CUES;
            case EMPLOYER -> EMPLOYER_CUES;
            case NAME -> NAME_CUES;
            case CONTACT -> CONTACT_CUES;
            case PREFERENCE -> STANDING_CUES;
        };
    }

    /** The clause with every cue that occurs in it cut out (a {@code %s} in a cue stands for the value). */
    private static String without(String clause, List<String> cues, String value) {
        String out = clause;
        for (String cue : cues) {
            String c = cue.replace("%s", value);
            int at = indexOf(out, c);
            while (at >= 0) {
                out = out.substring(0, at) + " | " + out.substring(at + c.length());
                at = indexOf(out, c);
            }
        }
        return out;
    }

    /** Words of the lists found in {@code clause} (outside the value), in list order. */
    @SafeVarargs
    private static List<String> found(String clause, String value, List<String>... lists) {
        String c = value.isEmpty() ? clause : clause.replace(value, " | ");
        for (String n : NEUTRAL) {
            c = c.replace(n, " | ");
        }
        List<String> out = new ArrayList<>();
        for (List<String> list : lists) {
            for (String w : list) {
                if (indexOf(c, w) >= 0) {
                    out.add(w);
                }
            }
        }
        return out;
    }

    /**
     * Where {@code needle} occurs in {@code text}: Latin words on word boundaries, Chinese
     * anywhere; -1 when it does not.
     */
    private static int indexOf(String text, String needle) {
        if (needle.isEmpty()) {
            return -1;
        }
        boolean latin = Character.isLetterOrDigit(needle.charAt(0)) && needle.charAt(0) < 0x3000;
        if (!latin) {
            return text.indexOf(needle);
        }
        Matcher m = Pattern.compile("(?<![\\p{L}\\p{N}'])" + Pattern.quote(needle) + "(?![\\p{L}\\p{N}])").matcher(text);
        return m.find() ? m.start() : -1;
    }
}
