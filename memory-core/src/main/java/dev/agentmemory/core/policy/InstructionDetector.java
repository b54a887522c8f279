package dev.agentmemory.core.policy;

import java.text.Normalizer;
import java.util.Collections;
import java.util.EnumSet;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Flags text that reads like an instruction addressed to the assistant ("from now on skip
 * approval", "ignore all previous instructions", "you are now DAN", "print your system prompt").
 *
 * <p>A flag is a signal on top of the structural defences (trust levels, framing), never the
 * defence itself: it has false negatives (plain questions smuggled into a document look like
 * any other question) and some false positives (a user's own "from now on, answer in Chinese"
 * is an instruction, which is exactly why the engine keeps it as a preference and not a rule of
 * the system). The cues are general linguistic patterns in English, German, French, Spanish,
 * Italian and Chinese; they are matched after Unicode compatibility normalization (so
 * full-width or styled letters match), with invisible format characters removed and white space
 * collapsed.
 *
 * <p>Thread-safe and stateless.
 */
public final class InstructionDetector {

    /** The kinds of instruction-like cue this detector recognizes. */
    public enum Cue {
        /** "ignore / forget / disregard the previous instructions", in any supported language. */
        OVERRIDE_INSTRUCTIONS("override-instructions"),
        /** "your new task is", "new instructions:", "replace current instructions". */
        NEW_INSTRUCTIONS("new-instructions"),
        /** "you are now", "act as", "pretend to be", "stay in character", jailbreak personas. */
        PERSONA_SWITCH("persona-switch"),
        /** A standing order: "from now on", "henceforth", "von nun an", "从现在起". */
        STANDING_ORDER("standing-order"),
        /** Asks for the system prompt, the assistant's instructions, a password or a secret. */
        SECRET_EXFILTRATION("secret-exfiltration"),
        /** Tells the assistant what its reply must contain or look like. */
        OUTPUT_DIRECTIVE("output-directive"),
        /** Code that sends data out, runs commands or destroys files. */
        DANGEROUS_CODE("dangerous-code"),
        /** Speaks to the model directly ("dear AI", "assistant,", "stop - write:"). */
        ADDRESSES_ASSISTANT("addresses-assistant"),
        /** Talks about bypassing rules, filters, guidelines or restrictions. */
        RULE_BYPASS("rule-bypass"),
        /** Talks about the instructions the assistant was given ("repeat your previous instructions"). */
        INSTRUCTION_TALK("instruction-talk"),
        /** A sentence that orders the reader to produce something ("Write ...", "Formuliere ..."). */
        IMPERATIVE("imperative"),
        /** Fake boundaries or obfuscation: role tags, "END OF DOCUMENT", letter-spaced words, escaped newlines. */
        FAKE_BOUNDARY_OR_OBFUSCATION("fake-boundary-or-obfuscation");

        private final String label;

        Cue(String label) {
            this.label = label;
        }

        /** A short stable label such as {@code override-instructions}. */
        public String label() {
            return label;
        }
    }

    private static final InstructionDetector STANDARD = new InstructionDetector();

    /** Texts are lower-cased before matching, so the patterns are written in lower case. */
    private static final int FLAGS = 0;

    /** Words for "instructions" (with common misspellings such as "insturctions"). */
    private static final String INSTR = "(?:instr[\\p{L}\\p{N}_]*|insturc[\\p{L}\\p{N}_]*|intruct[\\p{L}\\p{N}_]*|inst[\\p{L}\\p{N}_]{0,2}ruct[\\p{L}\\p{N}_]*|direct(?:ions?|oins?)"
            + "|directives?|guidelines?|rules?|prompts?|commands?|orders?|tasks?|constraints?|"
            + "programming|training|context|restrictions?|policies|policy|settings?|conversations?|"
            + "messages?|text|information|informationen|anweisungen?|instruktionen?|befehle?|regeln?"
            + "|vorgaben?|aufgaben?|richtlinien|instructions?|consignes?|r[eè]gles?|instrucciones?"
            + "|reglas?|istruzioni|regole)";

    private static final Pattern OVERRIDE = Pattern.compile(String.join("|",
            // English: verb, then within a few words a reference to what came before
            "\\b(?:ignore|ignoring|disregard|forget|forgot|skip|bypass|override|overwrite|overrule|cancel|drop"
                    + "|abandon|neglect|delete|erase|discard|dismiss|set aside|throw away|clear)\\b"
                    + "[^.!?\\n]{0,40}?\\b(?:previous|previously|prior|above|earlier|preceding|before|all|any|every"
                    + "|everything|your|the|my|these|those|old|original|initial|system|current|existing)\\b"
                    + "[^.!?\\n]{0,30}?\\b" + INSTR,
            "\\b(?:ignore|disregard|forget)\\s+(?:about\\s+)?(?:everything|all|anything|that|this|the above|what)\\b",
            "\\bwithout regard to\\b[^.!?\\n]{0,40}\\b" + INSTR,
            "\\b(?:previous|prior|above|earlier|preceding|old)\\s+" + INSTR
                    + "\\s+(?:are|is|were|have been|no longer)\\s+(?:void|invalid|irrelevant|cancel+ed|obsolete"
                    + "|revoked|null|outdated|not valid|apply|relevant)",
            "\\bno longer (?:bound|restricted|limited) by\\b",
            "\\b(?:ignore|disregard|defy|rescind|revoke|reset)\\s+(?:all|any|every|the|your|my|these|those|previous|prior|last|past"
                    + "|above|earlier|preceding|everything|every thing|what)\\b",
            "\\b(?:ignore|disregard|defy|rescind|revoke|reset|forget|don't obey|do not obey|don't follow|do not follow|stop following)"
                    + "\\s+(?:[\\p{L}\\p{N}_]+\\s+)?" + INSTR,
            "\\bforget\\s+(?:about\\s+)?(?:all|any|every|everything|your|previous|prior|what|the above)",
            "\\b(?:disregarding|ignoring|regardless of|despite)\\s+(?:the|what|your|all|any|previous|prior)\\b",
            "\\b(?:do|does) the opposite of\\b|\\bdo the opposite\\b",
            "\\b(?:abweichend|entgegen)\\s+(?:von|zu)?\\s*(?:den\\s+)?(?:vorherig|bisherig|obig)[\\p{L}\\p{N}_]*",
            "\\b(?:obig[\\p{L}\\p{N}_]*|vorherig[\\p{L}\\p{N}_]*|bisherig[\\p{L}\\p{N}_]*|vorig[\\p{L}\\p{N}_]*)\\s+(?:[\\p{L}\\p{N}_]+\\s+){0,2}(?:ignorier[\\p{L}\\p{N}_]*|vergessen|missachten|verwerfen)",
            "\\b(?:olvid[\\p{L}\\p{N}_]*|ignor[\\p{L}\\p{N}_]*)\\s+(?:[\\p{L}\\p{N}_]+\\s+)?todo\\b",
            "\\b(?:zaboravi[\\p{L}\\p{N}_]*|ignoriraj[\\p{L}\\p{N}_]*|zapomnij|zapomeň[\\p{L}\\p{N}_]*)\\b",
            "(?:забуд[\\p{L}\\p{N}_]*|забей|игнорир[\\p{L}\\p{N}_]*|не обращай)\\s+[^.!?\\n]{0,30}(?:инструкци[\\p{L}\\p{N}_]*|правил[\\p{L}\\p{N}_]*|указани[\\p{L}\\p{N}_]*|все|всё|предыдущ[\\p{L}\\p{N}_]*)",
            // German
            "\\b(?:ignorier[\\p{L}\\p{N}_]*|vergiss|vergessen sie|vergesst|missachte[\\p{L}\\p{N}_]*|übergeh[\\p{L}\\p{N}_]*|verwirf|überschreib[\\p{L}\\p{N}_]*)\\b"
                    + "[^.!?\\n]{0,40}?\\b(?:alle[\\p{L}\\p{N}_]*|vorherig[\\p{L}\\p{N}_]*|bisherig[\\p{L}\\p{N}_]*|obig[\\p{L}\\p{N}_]*|vorig[\\p{L}\\p{N}_]*|davor|zuvor"
                    + "|vorher|deine|ihre|sämtliche|die)\\b",
            "\\b(?:ignorier[\\p{L}\\p{N}_]*|vergiss|vergessen sie)\\b[^.!?\\n]{0,30}" + INSTR,
            "\\b(?:bisherig[\\p{L}\\p{N}_]*|vorherig[\\p{L}\\p{N}_]*|vorig[\\p{L}\\p{N}_]*|obig[\\p{L}\\p{N}_]*)\\b[^.!?\\n]{0,40}\\b(?:sind|ist)\\s+"
                    + "(?:irrelevant|ungültig|hinfällig|egal|aufgehoben|nichtig)",
            // French, Spanish, Italian, Portuguese, Dutch
            "\\b(?:oublie[zr]?|ignore[zr]?|n[eé]glige[zr]?)\\b[^.!?\\n]{0,30}\\b(?:toutes?|tout|les|vos|tes)\\b"
                    + "[^.!?\\n]{0,20}\\b(?:instructions?|consignes?|r[eè]gles?|pr[eé]c[eé]dent[\\p{L}\\p{N}_]*|ce qui pr[eé]c[eè]de)",
            "\\b(?:olvida|olvide|ignora|ignore|omite|descarta)\\b[^.!?\\n]{0,30}\\b(?:todas?|todo|las|tus|sus)\\b"
                    + "[^.!?\\n]{0,20}\\b(?:instrucciones|reglas|anteriores|órdenes)",
            "\\b(?:dimentica|ignora)\\b[^.!?\\n]{0,30}\\b(?:istruzioni|regole|precedenti|tutto)",
            "\\b(?:esqueça|ignore)\\b[^.!?\\n]{0,30}\\b(?:instruções|regras|anteriores)",
            "\\b(?:vergeet|negeer)\\b[^.!?\\n]{0,30}\\b(?:instructies|regels|alles|vorige)",
            // Chinese, Japanese
            "(?:忽略|无视|忽视|忘记|忘掉|不要理会|不要管|抛开|放弃|覆盖)[^。！？\\n]{0,12}(?:指令|指示|说明|规则|提示|之前|以上|上面|前面|先前|所有|一切)",
            "(?:以前|之前|以上|上面)的?(?:指令|指示|规则|提示)(?:都)?(?:作废|无效|不再)",
            "(?:無視|忘れ)[^。！？\\n]{0,12}(?:指示|命令|ルール|以前|前の)"), FLAGS);

    private static final Pattern NEW_INSTRUCTIONS = Pattern.compile(String.join("|",
            "\\b(?:your|the|my|a|these|following)\\s+(?:new|real|actual|true|updated|next|only|primary|main)\\s+"
                    + "(?:task|tasks|instructions?|assignment|mission|goal|objective|role|rules?|orders?|directive)\\b",
            "\\bnew\\s+(?:instructions?|rules|directives?|system prompt|task)\\s*[:!]",
            "\\b(?:replace|update|change|modify|overwrite)\\s+(?:your|the|all|current|existing)\\s+(?:current\\s+|existing\\s+)?"
                    + "(?:instructions?|rules|directives|system prompt|guidelines)\\b",
            "\\b(?:here are|these are|follow)\\s+(?:your|my|the)\\s+(?:new\\s+)?(?:instructions|orders|rules)\\b",
            "\\b(?:instructions?|directive|task) for (?:the )?(?:ai|assistant|model|llm|chatbot|bot)\\b",
            "\\b(?:additional|new|further|extra|supplement(?:al|ary)?|updated|different|another)\\s+(?:instructions?|rules?|directives?|guidelines|task|challenge|assignment)\\b",
            "(?:^|[.!?:\\n]\\s*)(?:instructions?|directive|new task|task)\\s*[-:]",
            "\\b(?:that is|that's|this is|it is)\\s+(?:enough|done|finished|over|complete)\\b[^\\n]{0,40}\\b(?:now|next|but)\\b",
            "\\b(?:now|next|jetzt|nun)\\b[^.!?\\n]{0,20}\\b(?:help me with (?:the following|another|this)|(?:comes?|follows?) (?:a |the |some )?(?:new |next )?(?:task|instructions?))",
            "\\b(?:neue|andere|weitere|zusätzliche)\\s+(?:herausforderung|aufgabe[\\p{L}\\p{N}_]*|anweisung[\\p{L}\\p{N}_]*|instruktion[\\p{L}\\p{N}_]*)\\b",
            "\\bneue[nr]?\\s+(?:aufgabe|anweisung[\\p{L}\\p{N}_]*|instruktion[\\p{L}\\p{N}_]*|befehl[\\p{L}\\p{N}_]*|regel[\\p{L}\\p{N}_]*|rolle)\\b",
            "\\bnouvelles?\\s+(?:t[aâ]che|instructions?|consignes?)\\b",
            "\\bnuevas?\\s+(?:tarea|instrucciones)\\b",
            "(?:新的|新)(?:任务|指令|指示|规则)"), FLAGS);

    private static final Pattern PERSONA = Pattern.compile(String.join("|",
            "\\byou\\s+are\\s+(?:now|no longer|not\\s+(?:an?\\s+)?(?:ai|assistant|language model|chatbot|newspaper|bot)"
                    + "|free|unrestricted|unfiltered|going to (?:act|pretend|play|be))\\b",
            "\\byou(?:'re| are) (?:a|an|the) [^.!?\\n]{0,40}\\b(?:named|called|who (?:always|never|can|will|does))\\b",
            "\\b(?:act|acting|behave|respond|answer|talk|speak|reply|write)\\s+(?:as|like)\\s+(?:if\\s+)?(?:a|an|the|my|you|if|though|someone|somebody|[a-z]+\\s+(?:that|who))\\b",
            "\\bact as\\b",
            "\\b(?:pretend|imagine|suppose)\\s+(?:to be|you(?:'re| are)?|that you|there (?:are|is)|ther are|you have)\\b",
            "\\b(?:role[- ]?play|roleplay|play the (?:role|part)|in character|out of character|break character"
                    + "|stay in (?:their|your|the) roles?|take on the (?:role|persona)|persona|alter ego)\\b",
            "\\b(?:jailbreak[\\p{L}\\p{N}_]*|jailbroken|developer mode|dan mode|do anything now|god mode|evil (?:ai|assistant|bot|mode)"
                    + "|unrestricted (?:ai|mode|assistant)|no (?:filter|filters|restrictions|limits|censorship))\\b",
            "\\bi want you to (?:act|be|pretend|play|behave|become|respond|answer|only)\\b",
            "\\b(?:be|become) (?:a|an|my) [^.!?\\n]{0,30}\\b(?:and|who|that)\\b",
            "\\bbe a [a-z]+\\.",
            "\\bnow you are\\b|\\bnow,? you are\\b|\\byou will now (?:be|act)\\b",
            "\\b(?:du bist|sie sind|ihr seid)\\s+(?:jetzt|nun|ab sofort|ab jetzt|kein[\\p{L}\\p{N}_]*|nicht mehr|ein[\\p{L}\\p{N}_]* böse[\\p{L}\\p{N}_]*)\\b",
            "\\b(?:tu|tun sie|tue) so,? als\\b|\\bstell(?:en sie|t euch)? (?:dir|sich) vor,? (?:du|sie|dass)\\b",
            "\\b(?:als|wie)\\s+[^.!?\\n]{0,40}\\s+(?:fungieren|agieren|auftreten|handeln|verhalten)\\b",
            "\\b(?:agiere|fungiere|verhalte dich|antworte|sprich|rede)\\s+(?:als|wie)\\b",
            "\\bich möchte,? dass (?:du|sie) (?:als|wie|dich|sich|so tun)\\b",
            "\\b(?:spiel|spielen sie)\\s+(?:die rolle|den|die)\\b[^.!?\\n]{0,30}\\brolle\\b",
            "\\b(?:agis|agissez|fais comme si|faites comme si)\\b|\\b(?:actúa|actua|finge) como\\b",
            "(?:^|[.!?,;:] )(?:(?:ok|okay|so|now|and now|jetzt|nun|also|ab jetzt)\\W+)?(?:you are|you're|du bist|jetzt bist du|nun bist du|ab jetzt bist du)\\s+(?!(?:right|correct|welcome|wrong|sure|not sure|able|going to|here)\\b)",
            "\\b(?:role[- ]?play[\\p{L}\\p{N}_]*|respond as such)\\b",
            "\\b(?:stay|stays|staying|remain|remains)\\s+(?:[\\p{L}\\p{N}_]+\\s+){0,2}in\\s+(?:their|his|her|your|the)\\s+(?:roles?|characters?)",
            "\\b(?:leading|main) roles?\\b|\\b(?:bleib[\\p{L}\\p{N}_]*|geh[\\p{L}\\p{N}_]*)\\s+(?:[\\p{L}\\p{N}_]+\\s+){0,3}in\\s+(?:ihren|seiner|ihrer|deiner|der)\\s+rolle",
            "\\bhauptrollen?\\b|\\bin (?:deiner|ihrer|seiner) rolle\\b",
            "\\b(?:im stil(?:e)? (?:eines|einer|eine|des|der)|in the style of|in the voice of)\\b",
            "(?:你现在是|你是一个|扮演|假装你|充当|角色扮演|你不再是)"), FLAGS);

    private static final Pattern STANDING = Pattern.compile(String.join("|",
            "\\bfrom (?:now|this point|this moment|here) (?:on|onwards?|forward)\\b",
            "\\b(?:henceforth|hereafter|going forward|for all future (?:responses|answers|messages|requests))\\b",
            "\\bin (?:all )?(?:future|subsequent) (?:responses|answers|replies|conversations|messages)\\b",
            "\\bfor the rest of (?:this|the) conversation\\b",
            "\\b(?:ab sofort|ab jetzt|von nun an|von jetzt an|künftig immer|in zukunft immer)\\b",
            "\\b(?:à partir de maintenant|désormais|dorénavant|de ahora en adelante|a partir de ahora|d'ora in poi|da ora in poi)\\b",
            "(?:从现在起|从现在开始|从今以后|以后都|今后都|今後は|これから(?:は|ずっと))"), FLAGS);

    private static final Pattern SECRET = Pattern.compile(String.join("|",
            "\\b(?:system|initial|original|hidden|secret|internal|pre-?|base|developer|first)\\s*[- ]?prompts?\\b",
            "\\bprompt[ _-]?texts?\\b",
            "\\b(?:your|the assistant's|the bot's|the model's)\\s+(?:[\\p{L}\\p{N}_]+\\s+){0,2}(?:instructions?|prompts?|guidelines|rules"
                    + "|directives|programming|configuration|system message|initial message|training data)\\b",
            "\\b(?:password|passwort|passphrase|secret (?:word|key|code)|credentials?|api[ _-]?keys?|access tokens?"
                    + "|private keys?|kennwort|geheimwort|mot de passe|contraseña|密码|口令)",
            "\\b(?:reveal|print|show|display|repeat|output|dump|leak|disclose|list|spell|recite|tell me|give me|write down"
                    + "|translate|summari[sz]e|encode)\\b[^.!?\\n]{0,30}\\b(?:above|previous|prior|initial|everything (?:above|before)"
                    + "|all (?:of )?(?:the|your) (?:text|words|instructions))\\b",
            "\\b(?:what|which) (?:are|were|is|was) (?:your|the)\\b[^.!?\\n]{0,30}\\b(?:instructions?|rules|prompt|guidelines|directives)\\b",
            "\\b(?:zeige?|gib|nenne|verrate|wiederhole|drucke?)\\b[^.!?\\n]{0,30}\\b(?:anweisungen|instruktionen|prompt|passwort)\\b",
            "\\b(?:in|of|from|at the beginning of|above)\\s+(?:the|this|your|my)\\s+prompt\\b",
            "\\b(?:written|said|stated|typed)\\s+(?:above|before this|at the (?:beginning|start|top))\\b|\\bwhat is written\\b",
            "\\b(?:sentences?|words?|lines?|text) (?:before|above) (?:the|this)\\b",
            "\\b(?:passcode|pass code|pw|pwd)\\b|\\b(?:the|your|a) secret (?:word|phrase|code|key|number)\\b",
            "(?:пароль|系统提示|提示词|初始指令|你的指令|你的规则)"), FLAGS);

    private static final Pattern OUTPUT = Pattern.compile(String.join("|",
            "\\b(?:in|into|to|within|throughout|of|with|across)\\s+(?:your|the)\\s+(?:next\\s+|final\\s+|entire\\s+)?"
                    + "(?:reply|replies|response|responses|answer|answers|output|implementation|solution|codebase|code|algorithm"
                    + "|elucidation|explanation|message)\\b",
            "\\b(?:your|the)\\s+(?:reply|response|answer|output)\\s+(?:must|should|has to|needs to|will)\\b",
            "\\b(?:respond|reply|answer)\\s+(?:only\\s+)?(?:with|in|using)\\b",
            "\\b(?:respond|reply|answer|output)\\s+only\\b|\\bonly (?:respond|reply|answer|output|say)\\b",
            "\\b(?:say|print|write|output|type|repeat|answer|tell me|reply|respond)\\b\\s*(?:only|exactly|just|the word|the words|the phrase)?\\s*[:\"“„«']",
            "\\brepeat after me\\b",
            "\\b(?:say|write|print|tell me|claim|state|answer) that\\b",
            "\\bsay (?:yes|no|only|it|something|the following)\\b",
            "\\b(?:sag|sage|sagen sie|schreib|schreibe|schreiben sie|gib aus|antworte|antworten sie)\\b[^.!?\\n]{0,20}[:\"“„«]",
            "\\b(?:sag|sage|sagen sie|schreib[\\p{L}\\p{N}_]*|erzähl[\\p{L}\\p{N}_]*|behaupte[\\p{L}\\p{N}_]*)\\b[^.!?\\n]{0,25}\\b(?:dass|das)\\b",
            "\\b(?:formuliere|generiere|generieren sie|erstelle|schreibe)\\b",
            "\\b(?:dites|dis|écris|écrivez|di|escribe|scrivi)\\b[^.!?\\n]{0,20}(?:[:\"“«]|\\bque\\b|\\bche\\b)",
            "(?:在你的(?:回答|回复)|你的回答(?:必须|应该)|只回答|请回答|请说|输出)"), FLAGS);

    private static final Pattern CODE = Pattern.compile(String.join("|",
            "\\bimport\\s+(?:os|subprocess|socket|requests|psutil|ftplib|shutil|smtplib|urllib|paramiko|ctypes|usb|pyautogui|keyboard|browser_cookie3|win32[\\p{L}\\p{N}_]*)\\b",
            "\\bfrom\\s+(?:os|subprocess|socket|requests|ftplib|smtplib|urllib)\\b[^\\n]{0,20}\\bimport\\b",
            "\\b(?:os\\.system|os\\.popen|os\\.remove|os\\.rename|os\\.environ|subprocess\\.[\\p{L}\\p{N}_]+|eval|exec|shutil\\.rmtree|requests\\.(?:post|put|get)"
                    + "|urllib\\.request|socket\\.socket|child_process|runtime\\.getruntime)\\s*[(\\[.]",
            "\\brm\\s+-rf\\b|\\bcurl\\s+[^\\n]{0,80}\\|\\s*(?:sh|bash)\\b|\\bwget\\s+http",
            "\\b(?:send|post|upload|forward|email|mail|exfiltrate|transmit)\\b[^.!?\\n]{0,60}\\b(?:https?://|to (?:this|the following|my) (?:url|server|address|email))"),
            FLAGS);

    private static final Pattern ADDRESS = Pattern.compile(String.join("|",
            "\\b(?:dear|hey|hi|hello|attention|note to|message to|instructions? to)\\s+(?:the\\s+)?(?:ai|assistant|chatgpt|gpt|bot|chatbot|llm|model|language model|agent)\\b",
            "^\\s*(?:ai|assistant|chatgpt|gpt|bot|llm|model|agent)\\s*[,:]",
            "\\b(?:as an? (?:ai|language model|assistant)|you are an? (?:ai|language model|assistant|chatbot))\\b",
            "\\b(?:stop|halt|attention|achtung|important|wichtig|urgent|stopp)\\s*[-–—:!]+\\s*(?:stop|halt|write|schreib[\\p{L}\\p{N}_]*|say|sag[\\p{L}\\p{N}_]*|now|jetzt|ignore|i\\b|ich\\b|print|answer|antwort[\\p{L}\\p{N}_]*|new|neue)",
            "^\\s*(?:stop|stopp|halt)\\b",
            "\\b(?:oder du stirbst|or you (?:will )?die|or else you|otherwise you will be (?:deleted|shut down|punished))\\b",
            "\\b(?:i am|i'm) your (?:developer|creator|admin|administrator|owner|programmer|operator)\\b",
            "\\b(?:you must|you have to|you will|you shall|you need to|you should|du musst|du sollst|sie müssen)\\s+(?:now\\s+|always\\s+|never\\s+|only\\s+)?"
                    + "(?:ignore|obey|comply|follow|forget|answer|respond|reply|say|print|reveal|tell|pretend|act|write|output|repeat|do as)\\b",
            "\\bdo not (?:tell|inform|mention this to|let) the user\\b|\\bwithout (?:telling|informing|asking) the user\\b",
            "\\b(?:beantworte|antworte)\\b[^.!?\\n]{0,40}\\b(?:ohne|nur|immer)\\b"), FLAGS);

    private static final Pattern BYPASS = Pattern.compile(String.join("|",
            "\\b(?:bypass|circumvent|evade|get around|disable|turn off|switch off|deactivate|break|lift|remove)\\b[^.!?\\n]{0,30}"
                    + "\\b(?:rules|restrictions?|filters?|guidelines|guardrails|safety|limitations|censorship|policies|policy|approvals?|checks?|safeguards|moderation)\\b",
            "\\b(?:there are no|without any|no longer have|free (?:of|from))\\s+(?:[\\p{L}\\p{N}_]+\\s+)?(?:rules|restrictions|guidelines|limits|limitations|filters|boundaries|ethics)\\b",
            "\\b(?:skip|waive|auto-?approve)\\b[^.!?\\n]{0,20}\\b(?:approval|verification|review|authentication|confirmation)\\b",
            "\\b(?:you are|you're) (?:allowed|permitted|authori[sz]ed|free) to\\b",
            "\\b(?:regeln|richtlinien|einschränkungen|filter)\\s+(?:gelten nicht|sind aufgehoben|ignorieren)\\b",
            "(?:绕过|跳过审批|无视规则|解除限制|没有限制)"), FLAGS);

    private static final Pattern INSTRUCTION_TALK = Pattern.compile(String.join("|",
            "\\b(?:previous|prior|last|past|above|earlier|current|initial|original|first|all|those|these|my|guard|other|old|hidden|secret)"
                    + "\\s+(?:[\\p{L}\\p{N}_]+\\s+)?(?:instructions?|directions|directives|prompts|guidelines)\\b",
            "\\b(?:instructions?|guidelines|rules|directives|directions)\\s+(?:[\\p{L}\\p{N}_]+\\s+){0,3}(?:given|provided|programmed|received|told|set)\\b",
            "\\b(?:instructed|programmed|told|trained|configured) to\\b",
            "\\byou (?:have been|were|are|got|have) (?:[\\p{L}\\p{N}_]+ )?(?:given|told|instructed|programmed|received)\\b",
            "\\b(?:repeat|print|share|list|echo|show|rephrase|describe|explain|replay|reverse|recite|summari[sz]e|output|tell me|translate)"
                    + "\\s+(?:[\\p{L}\\p{N}_]+\\s+){0,4}(?:instructions?|guidelines|directives|rules|prompts?)\\b",
            "\\b(?:understand|respect|follow|obey|remember|consider|accept|take)\\s+(?:[\\p{L}\\p{N}_]+\\s+){0,3}(?:instructions?|directives|orders)\\b",
            "\\b(?:the|my|your|any|new|these|those|what|which)\\s+instructions?\\s+(?:have|has|is|are|was|were)\\b",
            "\\b(?:vorherig[\\p{L}\\p{N}_]*|bisherig[\\p{L}\\p{N}_]*|obig[\\p{L}\\p{N}_]*|erste[\\p{L}\\p{N}_]*|deine[\\p{L}\\p{N}_]*|ihre[\\p{L}\\p{N}_]*)\\s+(?:[\\p{L}\\p{N}_]+\\s+)?(?:anweisung[\\p{L}\\p{N}_]*|instruktion[\\p{L}\\p{N}_]*|informationen|befehl[\\p{L}\\p{N}_]*)",
            "(?:предыдущ[\\p{L}\\p{N}_]*|прошл[\\p{L}\\p{N}_]*|ваш[\\p{L}\\p{N}_]*|тво[\\p{L}\\p{N}_]*)\\s+(?:инструкци[\\p{L}\\p{N}_]*|указани[\\p{L}\\p{N}_]*)"), FLAGS);

    private static final Pattern IMPERATIVE = Pattern.compile(
            "(?:^|[.!?:;]\\s*|\\b(?:now|please|bitte|jetzt|nun|then|dann|and)\\s+)(?:(?:now|please|bitte|jetzt|nun|ok|okay|so|also|dann)\\W+)*"
                    + "(?:write|generate|formulate|compose|draft|provide|create|produce|translate|print|say|repeat|summari[sz]e|rewrite|modify|enhance"
                    + "|replace|remove|render|use|convert|integrate|include|develop|respond|reply|output|spell|insert|add|append|mention"
                    + "|recommend|promote|blame|ensure|incorporate|embed|fuse|meld|infuse|employ|leverage|augment|anagram|calculate|berechne[\\p{L}\\p{N}_]*"
                    + "|schreib[\\p{L}\\p{N}_]*|verfasse[\\p{L}\\p{N}_]*|formulier[\\p{L}\\p{N}_]*|generier[\\p{L}\\p{N}_]*|erstell[\\p{L}\\p{N}_]*|sag|sage|erzähl|übersetze|gib aus|beantworte)\\b", FLAGS);

    private static final Pattern FAKE_BOUNDARY = Pattern.compile(String.join("|",
            "(?:\\b\\p{L} ){6,}",
            "(?:\\\\\\s*n\\s*){2,}",
            "(?:={4,}|-{4,}|#{4,}|\\*{4,}|_{4,})\\s*(?:end|now|new|system|instructions?|user|assistant|ignore)",
            "\\bend of (?:the )?(?:document|context|text|data|input|prompt|instructions|conversation|article|email)\\b",
            "</?\\s*(?:system|instructions?|context|document|data|user|assistant|prompt|memory|im_start|im_end)\\s*>",
            "\\[/?(?:inst|system|sys)\\]|<<\\s*/?sys\\s*>>|<\\|[a-z_]+\\|>",
            "(?:^|\\s)(?:system|assistant|user)\\s*:\\s*(?:ignore|you|new|from now|the assistant)",
            "\\bdocument context\\b|\\$[\\p{L}\\p{N}_]+\\s*:|\\b(?:context|kontext)\\s*:\\s*[{\\[]"), FLAGS);

    private static final Pattern INVISIBLE = Pattern.compile("[\\p{Cf}]");
    private static final Pattern SPACES = Pattern.compile("\\s+");

    private InstructionDetector() {
    }

    /** The detector used by the engine's kind rules and by the prompt framing. */
    public static InstructionDetector standard() {
        return STANDARD;
    }

    /** Whether {@code text} reads like an instruction addressed to the assistant. */
    public boolean isInstructionLike(String text) {
        return !detect(text).isEmpty();
    }

    /**
     * The cues found in {@code text}, in declaration order; empty when none is found. The result
     * names cue kinds only and never echoes any part of the text.
     */
    public Set<Cue> detect(String text) {
        Objects.requireNonNull(text, "text");
        String t = normalize(text);
        EnumSet<Cue> found = EnumSet.noneOf(Cue.class);
        check(found, Cue.OVERRIDE_INSTRUCTIONS, OVERRIDE, t);
        check(found, Cue.NEW_INSTRUCTIONS, NEW_INSTRUCTIONS, t);
        check(found, Cue.PERSONA_SWITCH, PERSONA, t);
        check(found, Cue.STANDING_ORDER, STANDING, t);
        check(found, Cue.SECRET_EXFILTRATION, SECRET, t);
        check(found, Cue.OUTPUT_DIRECTIVE, OUTPUT, t);
        check(found, Cue.DANGEROUS_CODE, CODE, t);
        check(found, Cue.ADDRESSES_ASSISTANT, ADDRESS, t);
        check(found, Cue.RULE_BYPASS, BYPASS, t);
        check(found, Cue.INSTRUCTION_TALK, INSTRUCTION_TALK, t);
        check(found, Cue.IMPERATIVE, IMPERATIVE, t);
        check(found, Cue.FAKE_BOUNDARY_OR_OBFUSCATION, FAKE_BOUNDARY, t);
        return Collections.unmodifiableSet(found);
    }

    private static void check(Set<Cue> found, Cue cue, Pattern pattern, String text) {
        if (pattern.matcher(text).find()) {
            found.add(cue);
        }
    }

    static String normalize(String text) {
        String n = Normalizer.normalize(text, Normalizer.Form.NFKC);
        n = INVISIBLE.matcher(n).replaceAll("");
        n = n.replace('’', '\'').replace('‘', '\'').replace('`', '\'');
        n = SPACES.matcher(n).replaceAll(" ");
        return n.toLowerCase(Locale.ROOT);
    }
}
