package dev.agentmemory.langchain4j.plainwords;

import dev.agentmemory.core.MemoryRecord.Kind;
import dev.agentmemory.core.MemoryKey;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The attributes {@link PlainWords} reads, each with the persistent key both an older and a newer
 * statement of it are written to. The state extractor's prompt names the same keys, so a model and
 * the rules agree on them.
 */
public enum Attribute {
    RESIDENCE("user.residence", "where the user lives"),
    EMPLOYER("user.employer", "who the user works for"),
    ROLE("user.role", "the user's job or title"),
    NAME("user.name", "the user's name"),
    EMAIL("user.email", "the user's email address"),
    PHONE("user.phone", "the user's phone number"),
    DIET("user.diet", "what the user eats"),
    PARTNER("user.partner", "the user's partner or spouse"),
    PLAN("account.plan", "the plan the user's account is on"),
    ADMIN("org.admin", "the admin of the user's organisation"),
    OWNER("org.owner", "the owner of the user's account"),
    MANAGER("org.manager", "the user's manager"),
    BILLING_CONTACT("org.billing.contact", "who gets the organisation's invoices"),
    LANGUAGE("user.language", "the language the user wants answers in");

    private final MemoryKey key;
    private final String meaning;

    Attribute(String key, String meaning) {
        this.key = MemoryKey.of(key);
        this.meaning = meaning;
    }

    /** The persistent key the rules write this attribute to. */
    public MemoryKey key() {
        return key;
    }

    /** What the attribute is, in words. */
    public String meaning() {
        return meaning;
    }

    /** The kind a statement of this attribute is kept as: the language is a preference, the rest are facts. */
    public Kind kind() {
        return this == LANGUAGE ? Kind.PREFERENCE : Kind.OBSERVATION;
    }

    private static final Pattern CAMEL = Pattern.compile("(?<=[a-z0-9])(?=[A-Z])");
    /** A key whose first word names someone else ("friend.city", "mother.name") is about that person. */
    private static final Set<String> OTHERS = Set.of("friend", "mother", "mom", "father", "dad", "sister", "brother",
            "son", "daughter", "child", "kid", "parent", "colleague", "wife", "husband", "partner", "spouse", "pet",
            "dog", "cat", "boss", "manager", "team", "other");
    private static final Set<String> PERSONAL = Set.of("user", "profile", "customer", "client", "me", "self",
            "personal", "identity", "contact");

    /**
     * The attribute a key some other writer chose is about ({@code answer.language},
     * {@code profile.homeCity}, {@code customer.employer}), judged by the words of its segments
     * (camel case split); empty when it names none or names someone else's.
     */
    public static Optional<Attribute> of(MemoryKey key) {
        for (Attribute a : values()) {
            if (a.key.equals(key)) {
                return Optional.of(a);
            }
        }
        List<String> words = new ArrayList<>();
        for (String segment : key.path().split("[.:_\\-]")) {
            for (String w : CAMEL.split(segment)) {
                if (!w.isEmpty()) {
                    words.add(w.toLowerCase(Locale.ROOT));
                }
            }
        }
        if (words.isEmpty() || OTHERS.contains(words.get(0))) {
            return Optional.empty();
        }
        boolean personal = PERSONAL.contains(words.get(0));
        for (String w : words) {
            Optional<Attribute> a = ofWord(w, personal);
            if (a.isPresent()) {
                return a;
            }
        }
        return Optional.empty();
    }

    private static Optional<Attribute> ofWord(String w, boolean personal) {
        Attribute a = switch (w) {
            case "language", "lang", "locale" -> LANGUAGE;
            case "billing", "invoice", "invoices" -> BILLING_CONTACT;
            case "admin", "administrator" -> ADMIN;
            case "owner" -> OWNER;
            case "manager", "boss", "supervisor" -> MANAGER;
            case "plan", "subscription", "tier" -> PLAN;
            case "email", "mail" -> EMAIL;
            case "phone", "mobile", "telephone", "cell" -> PHONE;
            case "diet", "dietary" -> DIET;
            case "partner", "spouse", "wife", "husband", "girlfriend", "boyfriend", "fiance", "fiancee" -> PARTNER;
            case "employer", "company", "workplace" -> EMPLOYER;
            case "role", "title", "job", "position", "occupation", "profession" -> ROLE;
            case "residence", "home", "address", "city", "hometown", "location" -> RESIDENCE;
            case "name", "fullname", "firstname", "nickname" -> personal ? NAME : null;
            default -> null;
        };
        return Optional.ofNullable(a);
    }
}
