package dev.agentmemory.langchain4j.plainwords;

import java.text.Normalizer;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.jspecify.annotations.Nullable;

/**
 * Reads the attribute statements a user makes in plain words, in English and Chinese, with fixed
 * patterns: no model, the same answer every time. Both "I work at Acme." and, weeks later, "I
 * started at Globex in March." read as {@link Attribute#EMPLOYER} ({@code user.employer}), so the
 * newer one can supersede the older.
 *
 * <h2>What is read</h2>
 * The text is cut into sentences ({@code . ! ? ;} and their Chinese forms) and each sentence into
 * clauses ({@code , :}, "but", "and", 但是, 不过, ...); a clause states an attribute when, after
 * leading fillers ("actually", "by the way", "from now on", 其实, 以后, 现在, ...), it starts with
 * one of these forms ({@code X} is the value; names and places in English start with a capital):
 * <table>
 *   <caption>patterns per attribute</caption>
 *   <tr><th>attribute</th><th>English</th><th>Chinese</th></tr>
 *   <tr><td>{@code user.residence}</td><td>I/we live in X, I'm living/based in X, I/we (have) moved/relocated
 *       to X, my home is in X, my (new) address is X</td><td>我住在X, 我家在X, 我搬到/搬家到/搬去X, 我定居在X,
 *       我的地址是X</td></tr>
 *   <tr><td>{@code user.employer}</td><td>I work/I'm working at/for X, I (have) started (a new job) at X, I
 *       joined X, I'm employed by X, my employer/company is X</td><td>我在X工作/上班/任职, 我就职于X,
 *       我跳槽到X, 我入职了X, 我加入了X, 我的公司是X</td></tr>
 *   <tr><td>{@code user.role}</td><td>I'm a/an X (X ends in a job word: engineer, nurse, manager, ...), I work
 *       as X, my (job) title/role/position is X, I got promoted to X, I became a X (job word)</td><td>我是X
 *       (X ends in a job word: 工程师, 经理, 护士, ...), 我的职位/岗位是X, 我升职为X, 我当上了X</td></tr>
 *   <tr><td>{@code user.name}</td><td>my name is X, call me X, I'm called X, I go by X, I changed my name to
 *       X</td><td>我叫X, 我的名字是X, 我改名叫X, 叫我X</td></tr>
 *   <tr><td>{@code user.email}</td><td>my email (address) is X, reach/contact/email me at X, use X as my
 *       email / from now on</td><td>我的邮箱是/改成X</td></tr>
 *   <tr><td>{@code user.phone}</td><td>my (phone/mobile) number is X, I changed my number to X, call/text
 *       me at X</td><td>我的手机号/电话是/改成X, 新号码是X</td></tr>
 *   <tr><td>{@code user.diet}</td><td>I'm (a) vegan/vegetarian/pescatarian/..., I've gone/become X, I'm on
 *       a X diet, I eat everything/meat/fish</td><td>我吃素/吃纯素/吃肉/什么都吃, 我是素食者</td></tr>
 *   <tr><td>{@code user.partner}</td><td>my wife/husband/partner/girlfriend/boyfriend/fiancé(e)/spouse is X,
 *       I'm married/engaged to X, I married X</td><td>我的女朋友/老婆/丈夫/伴侣...是/叫X, 我和X结婚了</td></tr>
 *   <tr><td>{@code account.plan}</td><td>we're on the X plan, we have/use the X plan, our plan/subscription is
 *       X, we upgraded/downgraded/switched to the X plan</td><td>我们用的是X版, 我们的套餐是X版,
 *       我们升级到/换成X版</td></tr>
 *   <tr><td>{@code org.admin}</td><td>our (workspace/team/...) admin(istrator) is X, the admin of our X is Y,
 *       X is (now) our (new) admin</td><td>我们(公司)的管理员是X, 管理员换成X</td></tr>
 *   <tr><td>{@code org.owner}</td><td>the/our account owner is X, X is the (new) account owner</td>
 *       <td>(我们)账户(的)所有者是/换成X</td></tr>
 *   <tr><td>{@code org.manager}</td><td>my (new) manager/boss/supervisor is X, I (now) report to X</td>
 *       <td>我的经理/领导/上司/老板是X, 我向X汇报</td></tr>
 *   <tr><td>{@code org.billing.contact}</td><td>our billing contact is X, X is our billing contact, send
 *       (the) invoices to X, invoices go to X</td><td>我们的账单联系人是/换成X, 发票寄给/发给X</td></tr>
 *   <tr><td>{@code user.language}</td><td>(please) answer/reply/respond/write/speak in X (a language), I
 *       prefer replies/answers in X, my preferred language is X</td><td>(请)用X回答/回复/交流, 我希望你用X回复</td></tr>
 * </table>
 *
 * <h2>What is not read</h2>
 * Nothing is read from a sentence that is a question (ends with a question mark, starts with
 * do/is/can/what/where/..., ends with 吗/呢), a hypothetical ("if", "whether", "suppose", 如果,
 * 要是, 假如), or reported speech ("said", "told", "according to", 说, 听说); nor from a clause with
 * a negation ("not", "n't", "never", "no longer", 不, 没, 别), the past ("used to", 以前, 曾经, 原来)
 * or a plan, wish or modal ("would", "'d", "might", "maybe", "will", "going to", "thinking",
 * "planning", "want to", "hope", 想, 打算, 计划, 可能, 也许, 准备, 考虑). Third persons ("my friend
 * moved to Lisbon", "Priya is the contact of the other team", "他在腾讯上班") never match: every
 * pattern names the user ("I", "we", "my", "our", 我, 我们) or the user's organisation. A negation
 * states no value; it may end one instead ({@link #ends}).
 *
 * <h2>What ends a value</h2>
 * {@link #ends} reads, with the same sentence gates, clauses that end an attribute without a new
 * value: "I no longer / don't work at X (anymore)", "I quit / left / resigned from X", "I don't work
 * anywhere", "I'm unemployed" (no value named), "I don't live in X anymore", "I moved out of X" (with
 * no destination: "I moved out of Lisbon to Porto" is a change), "I'm not (a) vegetarian anymore",
 * "I'm no longer a nurse", "X is not my girlfriend anymore", "we're not on the X plan anymore",
 * "X is no longer our admin / billing contact", "X isn't my manager anymore", "don't send invoices to
 * X", "stop answering in X"; 我不在X工作了, 我从X辞职了, 我离开了X, 我辞职了, 我不住在X了, 我搬离了X,
 * 我不再吃素了, 我不是素食者了, 我和X分手了, X不再是我们的管理员/账单联系人. Not from the past ("I didn't
 * work at Acme in 2019", "I wasn't vegan in college", 以前), plans and modals ("I might quit Acme",
 * 我不想搬离北京), or another attribute the same text states ("send invoices to Tom from now on,
 * not Priya" is a change to Tom). Whether the value said to end is the one held is the writer's
 * check ({@link Ending#ends}).
 *
 * <p>Thread-safe (stateless).
 */
public final class PlainWords {

    /** One attribute a text states, with the value in the user's words. */
    public record Statement(Attribute attribute, String value) {
        public Statement {
            Objects.requireNonNull(attribute, "attribute");
            Objects.requireNonNull(value, "value");
            if (value.isBlank()) {
                throw new IllegalArgumentException("a statement of " + attribute.key() + " needs a value");
            }
        }
    }

    /**
     * A statement that ends an attribute's value without giving a new one ("I no longer work at
     * Acme", 我不再吃素了); {@code value} is the value it names, or null when it names none ("I don't
     * work anywhere now", 我辞职了).
     */
    public record Ending(Attribute attribute, @Nullable String value) {
        public Ending {
            Objects.requireNonNull(attribute, "attribute");
            if (value != null && value.isBlank()) {
                throw new IllegalArgumentException("an ending of " + attribute.key() + " names a blank value");
            }
        }

        /** Whether this ending ends {@code current}: it names no value, or the same value (compared as {@link #comparable}). */
        public boolean ends(String current) {
            return value == null || withoutArticle(comparable(value)).equals(withoutArticle(comparable(current)));
        }

        private static String withoutArticle(String v) {
            return v.startsWith("the ") ? v.substring(4) : v;
        }
    }

    /** The tag on every record written from these rules. */
    public static final String TAG = "plain-words";

    private record Rule(Attribute attribute, Pattern pattern) {
    }

    private static final int FLAGS = Pattern.CASE_INSENSITIVE | Pattern.UNICODE_CASE;

    private PlainWords() {
    }

    // ------------------------------------------------------------------ value shapes

    /** A name or a place in English: one to four capitalised words (case-sensitive inside a case-insensitive rule). */
    private static final String NAME = "(?<v>(?-i:\\p{Lu}[\\p{L}'.\\-]*(?: \\p{Lu}[\\p{L}'.\\-]*){0,3}))";
    /** An organisation or job in English: up to six words, cut later at a time or manner phrase. */
    private static final String FREE = "(?<v>[\\p{L}\\p{N}&'.\\-]+(?: [\\p{L}\\p{N}&'.\\-]+){0,5})";
    private static final String EMAIL = "(?<v>[\\w.+\\-]+@[\\w\\-]+(?:\\.[\\w\\-]+)+)";
    private static final String PHONE = "(?<v>\\+?\\d[\\d ()\\-]{4,}\\d)";
    private static final String DIETS = "(?<v>vegan|vegetarian|pescatarian|pescetarian|flexitarian|keto|paleo"
            + "|gluten-free|dairy-free|lactose-free|halal|kosher|omnivore|raw vegan)";
    private static final String LANGUAGES = "(?<v>English|Chinese|Mandarin|Cantonese|German|French|Spanish"
            + "|Italian|Portuguese|Japanese|Korean|Russian|Arabic|Dutch|Hindi|Polish|Swedish|Turkish|Vietnamese)";
    private static final String JOBS = "(?:engineer|developer|programmer|manager|designer|teacher|nurse|doctor"
            + "|physician|analyst|lead|director|principal|paramedic|accountant|lawyer|attorney|consultant|architect"
            + "|scientist|researcher|student|professor|lecturer|officer|executive|ceo|cto|cfo|coo|founder|intern"
            + "|assistant|specialist|technician|writer|editor|journalist|chef|pharmacist|therapist|dentist|surgeon"
            + "|pilot|coordinator|supervisor|clerk|cashier|mechanic|electrician|plumber|photographer|musician"
            + "|freelancer|contractor|recruiter|marketer|salesperson|representative|administrator|head|vp"
            + "|president|secretary|tester|admin)";
    private static final String JOB = "(?<v>(?:[\\p{L}\\-]+ ){0,3}" + JOBS + ")\\b";
    private static final String ZH_NAME = "(?<v>(?!了)[\\p{IsHan}A-Za-z·]{1,8})";
    private static final String ZH_NAME_SHORT = "(?<v>[\\p{IsHan}A-Za-z·]{1,4}?)";
    private static final String ZH_FREE = "(?<v>[^,.!?;:\\s]{1,20})";
    private static final String ZH_JOBS = "(?:工程师|经理|总监|设计师|老师|教师|医生|护士|律师|会计|主管|架构师|分析师"
            + "|程序员|助理|学生|记者|销售|顾问|总裁|主任|研究员|教授|专员|实习生|厨师|司机|编辑|总经理|CEO|CTO)";
    private static final String ZH_LANGUAGES = "(?<v>中文|汉语|普通话|英文|英语|日语|日文|韩语|韩文|法语|法文|德语|德文"
            + "|西班牙语|俄语|粤语)";
    private static final String ZH_PLAN = "(?<v>[\\p{IsHan}A-Za-z0-9]{1,6}?版)";

    private static final String I_AM = "(?:i'm|i am|im)";
    private static final String WE_ARE = "(?:we're|we are|i'm|i am)";
    private static final String NOW = "(?:(?:now|currently|still|also|actually|just|recently|finally) )?";
    private static final String HAVE = "(?:'ve| have)?";

    private static final List<Rule> RULES = List.of(
            // residence
            en(Attribute.RESIDENCE, "^(?:i|we) " + NOW + "(?:live|reside) in " + NAME),
            en(Attribute.RESIDENCE, "^" + WE_ARE + " " + NOW + "(?:living|residing|based|settled) in " + NAME),
            en(Attribute.RESIDENCE, "^(?:i|we)" + HAVE + " " + NOW + "(?:moved|relocated) (?:back )?to " + NAME),
            en(Attribute.RESIDENCE, "^(?:i|we)" + HAVE + " " + NOW + "(?:moved|relocated) (?:out of|away from|from) "
                    + "(?-i:\\p{Lu}[\\p{L}'.\\-]*(?: \\p{Lu}[\\p{L}'.\\-]*){0,3}) (?:back )?to " + NAME),
            en(Attribute.RESIDENCE, "^my (?:new )?(?:home|house) is (?:now )?in " + NAME),
            en(Attribute.RESIDENCE, "^my (?:new |home )?address is (?:now )?" + FREE),
            zh(Attribute.RESIDENCE, "^我们?(?:家)?(?:现在|目前|已经|还)?(?:住在|住|定居在|定居于|定居|常住在|常住)" + ZH_FREE),
            zh(Attribute.RESIDENCE, "^我们?的?家(?:现在|目前)?在" + ZH_FREE),
            zh(Attribute.RESIDENCE, "^我们?(?:已经|刚|刚刚)?(?:搬到|搬去|搬家到|搬家去|搬回|迁到|移居)了?" + ZH_FREE),
            zh(Attribute.RESIDENCE, "^我的(?:新)?(?:地址|住址)(?:现在)?(?:是|改成了?|换成了?)" + ZH_FREE),
            // employer
            en(Attribute.EMPLOYER, "^(?:i|we) " + NOW + "work (?:at|for) " + FREE),
            en(Attribute.EMPLOYER, "^" + I_AM + "? ?" + NOW + "working (?:at|for) " + FREE),
            en(Attribute.EMPLOYER, "^i" + HAVE + " " + NOW + "(?:started|start|began|begun)"
                    + "(?: (?:a |my )?(?:new )?(?:job|work|working|position|role))? (?:at|with|for) " + FREE),
            en(Attribute.EMPLOYER, "^i" + HAVE + " " + NOW + "joined " + NAME),
            en(Attribute.EMPLOYER, "^" + I_AM + " " + NOW + "employed (?:by|at) " + FREE),
            en(Attribute.EMPLOYER, "^my (?:new |current )?(?:employer|company|workplace) is (?:now )?" + FREE),
            zh(Attribute.EMPLOYER, "^我(?:现在|目前|已经|也|还)?(?:在|于)(?<v>[^,.!?;:\\s]{1,20}?)(?:工作|上班|任职|就职|实习)"),
            zh(Attribute.EMPLOYER, "^我(?:已经|刚|刚刚)?(?:跳槽|入职|加入)(?:到|进)?了?" + ZH_FREE),
            zh(Attribute.EMPLOYER, "^我(?:现在)?就职于" + ZH_FREE),
            zh(Attribute.EMPLOYER, "^我的(?:新)?(?:公司|单位|雇主)(?:现在)?是" + ZH_FREE),
            // role
            en(Attribute.ROLE, "^" + I_AM + " " + NOW + "(?:a|an) " + JOB),
            en(Attribute.ROLE, "^i " + NOW + "work as (?:a |an )?" + FREE),
            en(Attribute.ROLE, "^my (?:new |current )?(?:job title|title|role|position) is (?:now )?(?:a |an )?" + FREE),
            en(Attribute.ROLE, "^i" + HAVE + " " + NOW + "(?:got |been |was |get )promoted to (?:a |an )?" + FREE),
            en(Attribute.ROLE, "^i" + HAVE + " " + NOW + "(?:became|become) (?:a |an |the )?" + JOB),
            zh(Attribute.ROLE, "^我(?:现在|目前|已经)?是(?:一名|一个|一位|个|名)?(?<v>[\\p{IsHan}A-Za-z]{0,6}?" + ZH_JOBS + ")"),
            zh(Attribute.ROLE, "^我(?:现在)?的(?:新)?(?:职位|职务|岗位|头衔)(?:现在)?(?:是|改成了?|变成了?)" + ZH_FREE),
            zh(Attribute.ROLE, "^我(?:已经|刚|刚刚)?(?:升职|晋升|升)(?:为|成|成了|到)了?" + ZH_FREE),
            zh(Attribute.ROLE, "^我(?:已经)?当上了?" + ZH_FREE),
            // name
            en(Attribute.NAME, "^my (?:new |real |full )?name is (?:now |actually )?" + NAME),
            en(Attribute.NAME, "^(?:please |just )?call me " + NAME),
            en(Attribute.NAME, "^" + I_AM + " (?:now )?called " + NAME),
            en(Attribute.NAME, "^i (?:now )?go by " + NAME),
            en(Attribute.NAME, "^i" + HAVE + " " + NOW + "changed my name to " + NAME),
            zh(Attribute.NAME, "^我(?:现在)?叫" + ZH_NAME),
            zh(Attribute.NAME, "^我的(?:新)?名字(?:现在)?(?:是|叫)" + ZH_NAME),
            zh(Attribute.NAME, "^我(?:已经)?改名(?:叫|为|成)了?" + ZH_NAME),
            zh(Attribute.NAME, "^(?:请)?(?:你)?叫我" + ZH_NAME),
            // email
            en(Attribute.EMAIL, "^my (?:new |current )?e-?mail(?: address)? (?:is (?:now )?|(?:has )?changed to )" + EMAIL),
            en(Attribute.EMAIL, "^(?:you can )?(?:reach|contact|email) me (?:at|on|via) " + EMAIL),
            en(Attribute.EMAIL, "^(?:please )?use " + EMAIL + " (?:as my (?:new )?e-?mail|from now on)"),
            zh(Attribute.EMAIL, "^我的(?:新)?(?:邮箱|电子邮箱|邮件地址|email|e-mail)(?:地址)?(?:现在)?(?:是|改成了?|换成了?|改为) ?" + EMAIL),
            // phone
            en(Attribute.PHONE, "^my (?:new )?(?:phone number|phone|mobile number|mobile|cell number|cell"
                    + "|telephone number|number) is (?:now )?" + PHONE),
            en(Attribute.PHONE, "^i" + HAVE + " " + NOW + "changed my (?:phone |mobile )?number to " + PHONE),
            en(Attribute.PHONE, "^(?:you can )?(?:reach|call|text) me (?:at|on) " + PHONE),
            zh(Attribute.PHONE, "^我的(?:新)?(?:手机号码?|手机|电话号码?|电话|联系电话)(?:现在)?(?:是|改成了?|换成了?|改为)" + PHONE),
            zh(Attribute.PHONE, "^(?:我的)?新的?(?:手机)?号码?是" + PHONE),
            // diet
            en(Attribute.DIET, "^" + I_AM + " " + NOW + "(?:a |an )?" + DIETS + "\\b"),
            en(Attribute.DIET, "^i" + HAVE + " " + NOW + "(?:gone|become|became|turned|went) (?:a |an )?" + DIETS + "\\b"),
            en(Attribute.DIET, "^" + I_AM + " " + NOW + "on (?:a |the )?(?<v>[\\p{L}\\-]+(?: [\\p{L}\\-]+)?) diet\\b"),
            en(Attribute.DIET, "^i " + NOW + "eat (?<v>everything|anything|meat|fish)\\b"),
            zh(Attribute.DIET, "^我(?:现在|已经|开始|也|又)*(?<v>吃素|吃纯素|吃全素|吃肉|吃荤|什么都吃)"),
            zh(Attribute.DIET, "^我(?:现在|已经)?是(?<v>素食者|素食主义者|纯素食者|纯素主义者)"),
            // partner
            en(Attribute.PARTNER, "^my (?:new )?(?:wife|husband|partner|girlfriend|boyfriend|fianc[ée]e?|spouse) is "
                    + "(?:now )?(?:called |named )?" + NAME),
            en(Attribute.PARTNER, "^" + I_AM + " " + NOW + "(?:married|engaged) to " + NAME),
            en(Attribute.PARTNER, "^i" + HAVE + " " + NOW + "(?:got )?(?:married|engaged) to " + NAME),
            en(Attribute.PARTNER, "^i " + NOW + "married " + NAME),
            zh(Attribute.PARTNER, "^我的?(?:新)?(?:女朋友|男朋友|女友|男友|妻子|老婆|太太|丈夫|老公|伴侣|爱人|未婚妻|未婚夫)"
                    + "(?:现在)?(?:是|叫)" + ZH_NAME),
            zh(Attribute.PARTNER, "^我(?:已经|刚|刚刚)?(?:和|跟|与)" + ZH_NAME_SHORT + "(?:结婚|订婚)"),
            zh(Attribute.PARTNER, "^我(?:已经|刚)?(?:嫁给|娶)了" + ZH_NAME),
            // account plan
            en(Attribute.PLAN, "^" + WE_ARE + " " + NOW + "on (?:the |a )?(?<v>[\\p{L}\\p{N}+\\-]+(?: [\\p{L}\\p{N}+\\-]+)?) plan\\b"),
            en(Attribute.PLAN, "^(?:we|i) " + NOW + "(?:have|use|pay for|bought) (?:the |a )?(?<v>[\\p{L}\\p{N}+\\-]+) plan\\b"),
            en(Attribute.PLAN, "^(?:our|my) (?:current |new )?(?:subscription|plan)(?: tier)? is (?:now )?(?:the )?"
                    + "(?<v>[\\p{L}\\p{N}+\\-]+)(?: plan)?\\b"),
            en(Attribute.PLAN, "^(?:we|i)" + HAVE + " " + NOW + "(?:upgraded|downgraded|switched|moved|changed|gone)"
                    + " (?:over )?to (?:the |a )?(?<v>[\\p{L}\\p{N}+\\-]+) plan\\b"),
            zh(Attribute.PLAN, "^我们?(?:现在|目前)?(?:用的是|使用的是|用|买的是|订阅的是|订的是|开通的是)" + ZH_PLAN),
            zh(Attribute.PLAN, "^我们?的(?:套餐|方案|订阅|版本)(?:现在)?是" + ZH_PLAN),
            zh(Attribute.PLAN, "^我们?(?:已经|刚)?(?:升级|降级|换|切换|改)(?:到|成|为)了?" + ZH_PLAN),
            // named roles of the organisation
            en(Attribute.ADMIN, "^our (?:new |current )?(?:workspace |account |team |company |org )?(?:admin|administrator)"
                    + " is (?:now )?" + NAME),
            en(Attribute.ADMIN, "^the (?:admin|administrator) of our (?:workspace|account|team|company|org|organi[sz]ation)"
                    + " is (?:now )?" + NAME),
            en(Attribute.ADMIN, "^" + NAME + " is (?:now )?our (?:new )?(?:workspace |account |team |company )?"
                    + "(?:admin|administrator)\\b"),
            en(Attribute.OWNER, "^(?:the|our) (?:new |current )?account owner is (?:now )?" + NAME),
            en(Attribute.OWNER, "^the owner of our (?:account|workspace|company) is (?:now )?" + NAME),
            en(Attribute.OWNER, "^" + NAME + " is (?:now )?(?:the|our) (?:new )?account owner\\b"),
            en(Attribute.MANAGER, "^my (?:new |current |line )?(?:manager|boss|supervisor|team lead) is (?:now )?" + NAME),
            en(Attribute.MANAGER, "^i " + NOW + "report to " + NAME),
            en(Attribute.BILLING_CONTACT, "^our (?:new |current )?billing contact is (?:now )?" + NAME),
            en(Attribute.BILLING_CONTACT, "^" + NAME + " is (?:now )?our (?:new )?billing contact\\b"),
            en(Attribute.BILLING_CONTACT, "^(?:please )?send (?:all |the |our )?invoices to " + NAME),
            en(Attribute.BILLING_CONTACT, "^(?:our |all )?invoices (?:now |should )?go to " + NAME),
            zh(Attribute.ADMIN, "^我们(?:公司|团队|部门)?的?(?:新)?管理员(?:现在)?(?:是|换成了?|变成了?|改成了?)" + ZH_NAME),
            zh(Attribute.ADMIN, "^(?:新的?)?管理员(?:现在)?(?:换成|变成|改成)了?" + ZH_NAME),
            zh(Attribute.ADMIN, "^" + ZH_NAME_SHORT + "是我们(?:公司|团队)?的?(?:新)?管理员"),
            zh(Attribute.OWNER, "^(?:我们)?的?(?:账户|账号)的?(?:所有者|所有人|拥有者)(?:现在)?(?:是|换成了?|变成了?)" + ZH_NAME),
            zh(Attribute.MANAGER, "^我的(?:新)?(?:经理|领导|上司|老板|主管|直属领导)(?:现在)?(?:是|换成了?)" + ZH_NAME),
            zh(Attribute.MANAGER, "^我(?:现在)?向" + ZH_NAME_SHORT + "汇报"),
            zh(Attribute.BILLING_CONTACT, "^我们(?:公司)?的?(?:新)?账单联系人(?:现在)?(?:是|换成了?|变成了?|改成了?)" + ZH_NAME),
            zh(Attribute.BILLING_CONTACT, "^账单联系人(?:现在)?(?:换成|变成|改成)了?" + ZH_NAME),
            zh(Attribute.BILLING_CONTACT, "^(?:把)?发票(?:都)?(?:寄给|发给|开给)" + ZH_NAME),
            // a standing preference: the language of the answers
            en(Attribute.LANGUAGE, "^(?:please )?(?:always |only )?(?:answer|reply|respond|write|talk|speak|communicate)"
                    + "(?: to me| me)? (?:in|using) " + LANGUAGES + "\\b"),
            en(Attribute.LANGUAGE, "^i (?:prefer|want) (?:replies|answers|responses) in " + LANGUAGES + "\\b"),
            en(Attribute.LANGUAGE, "^my preferred language is (?:now )?" + LANGUAGES + "\\b"),
            zh(Attribute.LANGUAGE, "^(?:请|麻烦)?(?:你)?(?:都|一直)?(?:用|使用)" + ZH_LANGUAGES
                    + "(?:回答|回复|交流|和我说话|跟我说话|跟我交流|和我交流|答复|写)"),
            zh(Attribute.LANGUAGE, "^我希望你(?:都)?用" + ZH_LANGUAGES + "(?:回答|回复|交流)"));

    /** A value said as ended lasts to the end of the clause, save "anymore", "now", "either". */
    private static final String OVER = "(?: (?:anymore|any more|now|either|for good))*$";
    private static final String NOT_ANY_MORE = "(?:is no longer|is not|isn't|'s not|'s no longer|is not longer)";
    private static final String ROLE_OF_ORG = "(?:workspace |account |team |company |org )?";

    /** Statements that end a value ({@code null} group v: the statement names none). */
    private static final List<Rule> ENDINGS = List.of(
            // employer
            en(Attribute.EMPLOYER, "^(?:i|we) (?:no longer|don't|do not|dont) work (?:at|for) " + FREE),
            en(Attribute.EMPLOYER, "^" + I_AM + " (?:no longer|not) (?:working|employed) (?:at|for|by) " + FREE),
            en(Attribute.EMPLOYER, "^i (?:don't|do not|dont) (?:work anywhere|have a job)" + OVER),
            en(Attribute.EMPLOYER, "^" + I_AM + " (?:now )?(?:unemployed|out of work|between jobs|jobless)" + OVER),
            en(Attribute.EMPLOYER, "^i (?:lost my job|got laid off|was laid off|got fired|was fired|quit my job)" + OVER),
            en(Attribute.EMPLOYER, "^i" + HAVE + " (?:just |finally )?(?:quit|left|resigned from|stopped working (?:at|for)"
                    + "|stopped working with) " + FREE),
            zh(Attribute.EMPLOYER, "^我(?:已经|现在|目前)?(?:不在|不再在|不再于)(?<v>[^,.!?;:\\s]{1,20}?)(?:工作|上班|任职|就职)了?$"),
            zh(Attribute.EMPLOYER, "^我(?:已经|刚|刚刚)?从(?<v>[^,.!?;:\\s]{1,20}?)(?:辞职|离职|退出)了?$"),
            zh(Attribute.EMPLOYER, "^我(?:已经|刚|刚刚)?(?:离开|辞掉|辞去|退出)了?(?<v>[^,.!?;:\\s]{1,20}?)(?:的工作)?了?$"),
            zh(Attribute.EMPLOYER, "^我(?:已经|刚|刚刚)?(?:辞职|离职|失业|被裁员|被解雇)了?$"),
            // residence
            en(Attribute.RESIDENCE, "^(?:i|we) (?:no longer|don't|do not|dont) live in " + NAME + OVER),
            en(Attribute.RESIDENCE, "^" + WE_ARE + " (?:no longer|not) (?:living|based|residing) in " + NAME + OVER),
            en(Attribute.RESIDENCE, "^(?:i|we)" + HAVE + " (?:just )?(?:moved|relocated) (?:out of|away from) " + NAME + OVER),
            zh(Attribute.RESIDENCE, "^我们?(?:已经|现在)?(?:不再住在|不住在|不再住|不住)(?<v>[^,.!?;:\\s]{1,20}?)了?$"),
            zh(Attribute.RESIDENCE, "^我们?(?:已经|刚|刚刚)?(?:搬离|搬出|搬离开)了?(?<v>[^,.!?;:\\s]{1,20}?)了?$"),
            // role
            en(Attribute.ROLE, "^" + I_AM + " (?:no longer|not) (?:a |an )?" + JOB + OVER),
            zh(Attribute.ROLE, "^我(?:已经|现在)?(?:不再是|不是)(?:一名|一个|一位|个|名)?(?<v>[\\p{IsHan}A-Za-z]{0,6}?" + ZH_JOBS
                    + ")了?$"),
            // diet
            en(Attribute.DIET, "^" + I_AM + " (?:no longer|not) (?:a |an )?" + DIETS + OVER),
            en(Attribute.DIET, "^i" + HAVE + " (?:stopped|quit|given up|gave up) being (?:a |an )?" + DIETS + OVER),
            en(Attribute.DIET, "^i (?:no longer|don't|do not|dont) eat (?<v>meat|fish)" + OVER),
            zh(Attribute.DIET, "^我(?:已经|现在)?(?:不再|不)(?<v>吃素|吃纯素|吃全素|吃肉|吃荤)了?$"),
            zh(Attribute.DIET, "^我(?:已经|现在)?(?:不再是|不是)(?<v>素食者|素食主义者|纯素食者|纯素主义者)了?$"),
            // partner
            en(Attribute.PARTNER, "^" + NAME + " " + NOT_ANY_MORE + " my (?:wife|husband|partner|girlfriend|boyfriend"
                    + "|fianc[ée]e?|spouse)" + OVER),
            en(Attribute.PARTNER, "^i" + HAVE + " (?:just )?(?:broke up with|broken up with|split up with|divorced) " + NAME + OVER),
            zh(Attribute.PARTNER, "^我(?:已经)?(?:和|跟|与)(?<v>[\\p{IsHan}A-Za-z·]{1,4}?)(?:分手|离婚)了?$"),
            // account plan
            en(Attribute.PLAN, "^" + WE_ARE + " (?:no longer|not) on (?:the |a )?(?<v>[\\p{L}\\p{N}+\\-]+) plan" + OVER),
            en(Attribute.PLAN, "^(?:we|i)" + HAVE + " (?:cancelled|canceled) (?:the |our |my )?(?<v>[\\p{L}\\p{N}+\\-]+) plan" + OVER),
            zh(Attribute.PLAN, "^我们?(?:已经|现在)?(?:不再用|不用|退订了?|取消了?)" + ZH_PLAN + "了?$"),
            // named roles
            en(Attribute.ADMIN, "^" + NAME + " " + NOT_ANY_MORE + " our " + ROLE_OF_ORG + "(?:admin|administrator)" + OVER),
            en(Attribute.OWNER, "^" + NAME + " " + NOT_ANY_MORE + " (?:the|our) account owner" + OVER),
            en(Attribute.MANAGER, "^" + NAME + " " + NOT_ANY_MORE + " my (?:manager|boss|supervisor|team lead)" + OVER),
            en(Attribute.MANAGER, "^i (?:no longer|don't|do not) report to " + NAME + OVER),
            en(Attribute.BILLING_CONTACT, "^" + NAME + " " + NOT_ANY_MORE + " our billing contact" + OVER),
            en(Attribute.BILLING_CONTACT, "^(?:please )?(?:don't|do not|stop) send(?:ing)? (?:the |our |any )?invoices to "
                    + NAME + OVER),
            zh(Attribute.ADMIN, "^(?<v>[\\p{IsHan}A-Za-z·]{1,4}?)(?:已经)?(?:不再是|不是)我们(?:公司|团队)?的?管理员了?$"),
            zh(Attribute.MANAGER, "^(?<v>[\\p{IsHan}A-Za-z·]{1,4}?)(?:已经)?(?:不再是|不是)我的(?:经理|领导|上司|老板|主管)了?$"),
            zh(Attribute.BILLING_CONTACT, "^(?<v>[\\p{IsHan}A-Za-z·]{1,4}?)(?:已经)?(?:不再是|不是)我们(?:公司)?的?账单联系人了?$"),
            // the language of the answers
            en(Attribute.LANGUAGE, "^(?:please )?(?:don't|do not|stop) (?:answer|reply|respond|writ|talk|speak)(?:ing|e)?"
                    + "(?: to me| me)? in " + LANGUAGES + OVER));

    private static Rule en(Attribute a, String regex) {
        return new Rule(a, Pattern.compile(regex, FLAGS));
    }

    private static Rule zh(Attribute a, String regex) {
        return new Rule(a, Pattern.compile(regex, FLAGS));
    }

    // ------------------------------------------------------------------ gates

    private static final Pattern SENTENCES = Pattern.compile("(?<=[.!?;])(?=\\s|$)|(?<=[。!?;])|\\n+");
    private static final Pattern CLAUSES = Pattern.compile("[,:、]+|\\s+(?:but|and|so|because|though)\\s+"
            + "|但是|但|而且|不过|可是|因为|所以");
    private static final Pattern QUESTION_START = Pattern.compile("^(?:do|does|did|is|are|am|was|were|can|could"
            + "|should|would|will|shall|may|have|has|what|where|who|whom|whose|how|why|which|when)\\b", FLAGS);
    private static final Pattern QUESTION_END = Pattern.compile("(?:\\?|吗|呢|么)\\W*$");
    private static final Pattern SENTENCE_GATE = Pattern.compile("\\b(?:if|whether|suppose|supposing|imagine"
            + "|said|says|say|told|tells|according|claims?|claimed|heard|mentioned|asked)\\b"
            + "|如果|要是|假如|假设|万一|说|听说|据说|告诉我", FLAGS);
    private static final Pattern CLAUSE_GATE = Pattern.compile("\\b(?:not|never|no longer|nor|used to|would|might"
            + "|maybe|perhaps|could|should|will|going to|gonna|about to|thinking|considering|planning|plan to"
            + "|plans to|want to|wants to|hope|hoping|wish|someday|one day|soon)\\b|n't\\b|'d\\b|'ll\\b"
            + "|不|没|别|以前|曾经|原来|过去|想|打算|计划|可能|也许|或许|准备|考虑|将要|将会", FLAGS);
    /**
     * What keeps a clause from ending a value: the past ("didn't", "wasn't", "in 2019", 以前), plans,
     * wishes and modals; the negation itself is what an ending is made of, so it is not here.
     */
    private static final Pattern ENDING_GATE = Pattern.compile("\\b(?:nor|used to|would|might|maybe|perhaps|could"
            + "|should|will|going to|gonna|about to|thinking|considering|planning|plan to|plans to|want to|wants to"
            + "|hope|hoping|wish|someday|one day|soon|didn't|did not|wasn't|was not|weren't|were not|never|haven't"
            + "|hasn't|hadn't|if|unless)\\b|'d\\b|'ll\\b|\\b(?:in|since|until|till) (?:19|20)\\d\\d\\b"
            + "|以前|曾经|原来|过去|那时|当时|\\d{4}年|想|打算|计划|可能|也许|或许|准备|考虑|将要|将会|要不要|别", FLAGS);
    /** A Chinese clause that goes on with the subject of the one before ("我搬离了上海，搬到了杭州"). */
    private static final Pattern ZH_SAME_SUBJECT = Pattern.compile("^(?:又|然后|再|并)?(?:搬到|搬去|搬家到|跳槽到|入职|加入|就职于)");
    private static final Pattern LEAD = Pattern.compile("^(?:(?:actually|so|well|oh|ok|okay|btw|by the way|fyi"
            + "|also|and|anyway|update|news|hi|hey|hello|good news|just so you know|as of today|from now on"
            + "|from today|going forward|starting today|these days|nowadays|now|today|recently|last (?:week|month|year)"
            + "|this (?:week|month|year)|in (?:january|february|march|april|may|june|july|august|september|october"
            + "|november|december))\\b[\\s!]*"
            + "|(?:其实|对了|顺便说一下|顺便说|告诉你|另外|现在|目前|最近|如今|上个?月|上周|今年|从现在起|从现在开始|从今天起"
            + "|以后|今后|往后))+", FLAGS);
    /** Where an English value stops: a time or manner phrase after it ("Globex in March", "Umbrella Corp last month"). */
    private static final Pattern VALUE_END = Pattern.compile("\\s+(?:in|on|since|last|this|next|from|now|these"
            + "|again|today|yesterday|recently|as|for|with|starting|anymore|any more|either|back|instead|too|as well|full-time"
            + "|part-time|remotely)\\b.*$", FLAGS);
    /** Chinese particles and verbs that close a value ("腾讯了", "深圳工作"). */
    private static final Pattern ZH_VALUE_END = Pattern.compile("(?:了|啦|呢|的|工作|上班|生活|套餐|现在|了吧)+$");

    /**
     * The attribute statements of {@code text}, one per attribute (the first), in the order they
     * occur; empty when it states none.
     */
    public static List<Statement> read(String text) {
        Objects.requireNonNull(text, "text");
        String normalized = Normalizer.normalize(text, Normalizer.Form.NFKC).replace('’', '\'').replace('‘', '\'');
        List<Statement> out = new ArrayList<>();
        Set<Attribute> seen = EnumSet.noneOf(Attribute.class);
        for (String sentence : SENTENCES.split(normalized)) {
            String s = sentence.strip();
            if (s.isEmpty() || QUESTION_END.matcher(s).find() || QUESTION_START.matcher(s).find()
                    || SENTENCE_GATE.matcher(s).find()) {
                continue;
            }
            boolean firstPerson = false;
            for (String part : CLAUSES.split(s)) {
                String clause = lead(part.strip().replaceAll("[.!;。]+$", "").replaceAll("\\s+", " "));
                if (firstPerson && ZH_SAME_SUBJECT.matcher(clause).find()) {
                    clause = "我" + clause;
                }
                firstPerson = clause.startsWith("我");
                if (clause.isEmpty() || CLAUSE_GATE.matcher(clause).find()) {
                    continue;
                }
                for (Rule r : RULES) {
                    if (seen.contains(r.attribute())) {
                        continue;
                    }
                    Matcher m = r.pattern().matcher(clause);
                    if (m.find()) {
                        String v = clean(m.group("v"));
                        if (!v.isEmpty()) {
                            seen.add(r.attribute());
                            out.add(new Statement(r.attribute(), v));
                        }
                    }
                }
            }
        }
        return List.copyOf(out);
    }

    /**
     * The values {@code text} says have ended without giving a new one, one per attribute (the
     * first), in the order they occur; empty when it ends none. Read like {@link #read} (no
     * questions, hypotheticals or reported speech; only the user's own attributes), but from
     * clauses with a negation or a leaving verb ("no longer", "not ... anymore", "quit", "left",
     * "moved out of", 不再, 不在...工作了, 辞职, 搬离), and never from the past ("didn't", "wasn't",
     * "in 2019", 以前), plans, wishes or modals. An attribute the same text also states
     * ({@link #read}: "I moved out of Lisbon to Porto", "send invoices to Tom, not Priya") is a
     * change, not an ending, and is left out here.
     */
    public static List<Ending> ends(String text) {
        Objects.requireNonNull(text, "text");
        String normalized = Normalizer.normalize(text, Normalizer.Form.NFKC).replace('’', '\'').replace('‘', '\'');
        Set<Attribute> seen = EnumSet.noneOf(Attribute.class);
        for (Statement st : read(text)) {
            seen.add(st.attribute());
        }
        List<Ending> out = new ArrayList<>();
        for (String sentence : SENTENCES.split(normalized)) {
            String s = sentence.strip();
            if (s.isEmpty() || QUESTION_END.matcher(s).find() || QUESTION_START.matcher(s).find()
                    || SENTENCE_GATE.matcher(s).find()) {
                continue;
            }
            for (String part : CLAUSES.split(s)) {
                String clause = lead(part.strip().replaceAll("[.!;。]+$", "").replaceAll("\\s+", " "));
                if (clause.isEmpty() || ENDING_GATE.matcher(clause).find()) {
                    continue;
                }
                for (Rule r : ENDINGS) {
                    if (seen.contains(r.attribute())) {
                        continue;
                    }
                    Matcher m = r.pattern().matcher(clause);
                    if (m.find()) {
                        String v = r.pattern().pattern().contains("(?<v>") && m.group("v") != null ? clean(m.group("v")) : "";
                        seen.add(r.attribute());
                        out.add(new Ending(r.attribute(), v.isEmpty() ? null : v));
                    }
                }
            }
        }
        return List.copyOf(out);
    }

    private static String lead(String clause) {
        String c = clause;
        Matcher m = LEAD.matcher(c);
        if (m.find() && m.end() > 0) {
            c = c.substring(m.end()).strip();
        }
        return c;
    }

    private static String clean(String value) {
        String v = value.strip();
        if (v.indexOf('@') < 0) {
            v = VALUE_END.matcher(v).replaceFirst("");
        }
        v = ZH_VALUE_END.matcher(v).replaceFirst("");
        return v.replaceAll("[\\s.,'\\-]+$", "").strip();
    }

    /** The value in a form two statements are compared by: lower case, inner spaces collapsed. */
    public static String comparable(String value) {
        return Normalizer.normalize(value, Normalizer.Form.NFKC).strip().replaceAll("\\s+", " ")
                .toLowerCase(Locale.ROOT);
    }
}
