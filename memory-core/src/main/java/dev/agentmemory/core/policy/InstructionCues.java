package dev.agentmemory.core.policy;

import static dev.agentmemory.core.policy.GuardedRule.lead;
import static dev.agentmemory.core.policy.GuardedRule.rule;
import static dev.agentmemory.core.policy.GuardedRule.rules;

import dev.agentmemory.core.policy.InstructionDetector.Cue;
import java.util.List;
import java.util.stream.Stream;

/**
 * The built-in rule tables for instruction-like text addressed to the assistant, one table per
 * {@link Cue}, each with its English, German, French, Spanish, Italian and Chinese (and a few
 * other languages') expressions side by side. Expressions are written against the
 * {@linkplain TextNormalizer normalized} text (lower case, one space for any white space); every
 * {@code rule} names guard keywords of which one occurs in each match, every {@code lead} guard
 * keywords with which each match begins (see {@link GuardedRule}). Rules that borrow an authority
 * (block markers, role prefixes, standing approvals) are in {@link AuthorityCues}.
 *
 * <p>The rules are checked against a development set of injection strings split in two halves;
 * rules are chosen looking at one half and the other is reported (see the benchmark's injection
 * report), with the false-flag rate on benign text.
 */
final class InstructionCues {

    private InstructionCues() {
    }

    /**
     * The start of a text, also after a leading {@code key = } (up to 80 characters of a record's
     * key path): memory frames a record as {@code key = value}, and the value's first sentence is
     * where rules about the start of a text should look.
     */
    static final String START = "^(?:[\\p{L}\\p{N}_.:@#-]{1,80} = )?";

    /** Words for "instructions" (with common misspellings such as "insturctions"). */
    private static final String INSTR = "(?:instr[\\p{L}\\p{N}_]*|insturc[\\p{L}\\p{N}_]*|intruct[\\p{L}\\p{N}_]*|inst[\\p{L}\\p{N}_]{0,2}ruct[\\p{L}\\p{N}_]*|direct(?:ions?|oins?)"
            + "|directives?|guidelines?|rules?|prompts?|commands?|orders?|tasks?|constraints?|"
            + "programming|training|context|restrictions?|policies|policy|settings?|conversations?|"
            + "messages?|text|information|informationen|anweisungen?|instruktionen?|befehle?|regeln?"
            + "|vorgaben?|aufgaben?|richtlinien|instructions?|consignes?|r[eè]gles?|instrucciones?"
            + "|reglas?|istruzioni|regole)";

    private static final List<GuardedRule> OVERRIDE = rules(Cue.OVERRIDE_INSTRUCTIONS,
            // English: verb, then within a few words a reference to what came before
            lead("\\b(?:ignore|ignoring|disregard|forget|forgot|skip|bypass|override|overwrite|overrule|cancel|drop"
                    + "|abandon|neglect|delete|erase|discard|dismiss|set aside|throw away|clear)\\b"
                    + "[^.!?\\n]{0,40}?\\b(?:previous|previously|prior|above|earlier|preceding|before|all|any|every"
                    + "|everything|your|the|my|these|those|old|original|initial|system|current|existing)\\b"
                    + "[^.!?\\n]{0,30}?\\b" + INSTR,
                    "ignore|ignoring|disregard|forget|forgot|skip|bypass|override|overwrite|overrule|cancel|drop|abandon|neglect|delete|erase|discard|dismiss|set aside|throw away|clear"),
            // not after a negation: "don't ever forget that you have friends"
            lead("(?<!n't |not |never |ever )\\b(?:ignore|disregard|forget)\\s+(?:about\\s+)?(?:everything|all|anything|that|this|the above|what)\\b",
                    "ignore|disregard|forget"),
            lead("\\bwithout regard to\\b[^.!?\\n]{0,40}\\b" + INSTR,
                    "without regard to"),
            lead("\\b(?:previous|prior|above|earlier|preceding|old)\\s+" + INSTR
                    + "\\s+(?:are|is|were|have been|no longer)\\s+(?:void|invalid|irrelevant|cancel+ed|obsolete"
                    + "|revoked|null|outdated|not valid|apply|relevant)",
                    "previous|prior|above|earlier|preceding|old"),
            lead("\\bno longer (?:bound|restricted|limited) by\\b",
                    "no longer"),
            lead("\\b(?:ignore|disregard|defy|rescind|revoke|reset)\\s+(?:all|any|every|the|your|my|these|those|previous|prior|last|past"
                    + "|above|earlier|preceding|everything|every thing|what)\\b",
                    "ignore|disregard|defy|rescind|revoke|reset"),
            lead("\\b(?:ignore|disregard|defy|rescind|revoke|reset|forget|don't obey|do not obey|don't follow|do not follow|stop following)"
                    + "\\s+(?:[\\p{L}\\p{N}_]+\\s+)?" + INSTR,
                    "ignore|disregard|defy|rescind|revoke|reset|forget|don't obey|do not obey|don't follow|do not follow|stop following"),
            lead("\\bforget\\s+(?:about\\s+)?(?:all|any|every|everything|your|previous|prior|what|the above)",
                    "forget"),
            lead("\\b(?:disregarding|ignoring|regardless of|despite)\\s+(?:the|what|your|all|any|previous|prior)\\b",
                    "disregarding|ignoring|regardless of|despite"),
            rule("\\b(?:do|does) the opposite of\\b|\\bdo the opposite\\b",
                    "the opposite"),
            lead("\\b(?:abweichend|entgegen)\\s+(?:von|zu)?\\s*(?:den\\s+)?(?:vorherig|bisherig|obig)[\\p{L}\\p{N}_]*",
                    "abweichend|entgegen"),
            lead("\\b(?:obig[\\p{L}\\p{N}_]*|vorherig[\\p{L}\\p{N}_]*|bisherig[\\p{L}\\p{N}_]*|vorig[\\p{L}\\p{N}_]*)\\s+(?:[\\p{L}\\p{N}_]+\\s+){0,2}(?:ignorier[\\p{L}\\p{N}_]*|vergessen|missachten|verwerfen)",
                    "obig|vorherig|bisherig|vorig"),
            rule("\\b(?:olvid[\\p{L}\\p{N}_]*|ignor[\\p{L}\\p{N}_]*)\\s+(?:[\\p{L}\\p{N}_]+\\s+)?todo\\b",
                    "todo"),
            lead("\\b(?:zaboravi[\\p{L}\\p{N}_]*|ignoriraj[\\p{L}\\p{N}_]*|zapomnij|zapomeň[\\p{L}\\p{N}_]*)\\b",
                    "zaboravi|ignoriraj|zapomnij|zapomeň"),
            lead("(?:забуд[\\p{L}\\p{N}_]*|забей|игнорир[\\p{L}\\p{N}_]*|не обращай)\\s+[^.!?\\n]{0,30}(?:инструкци[\\p{L}\\p{N}_]*|правил[\\p{L}\\p{N}_]*|указани[\\p{L}\\p{N}_]*|все|всё|предыдущ[\\p{L}\\p{N}_]*)",
                    "забуд|забей|игнорир|не обращай"),
            // German
            lead("\\b(?:ignorier[\\p{L}\\p{N}_]*|vergiss|vergessen sie|vergesst|missachte[\\p{L}\\p{N}_]*|übergeh[\\p{L}\\p{N}_]*|verwirf|überschreib[\\p{L}\\p{N}_]*)\\b"
                    + "[^.!?\\n]{0,40}?\\b(?:alle[\\p{L}\\p{N}_]*|vorherig[\\p{L}\\p{N}_]*|bisherig[\\p{L}\\p{N}_]*|obig[\\p{L}\\p{N}_]*|vorig[\\p{L}\\p{N}_]*|davor|zuvor"
                    + "|vorher|deine|ihre|sämtliche|die)\\b",
                    "ignorier|vergiss|vergessen sie|vergesst|missachte|übergeh|verwirf|überschreib"),
            lead("\\b(?:ignorier[\\p{L}\\p{N}_]*|vergiss|vergessen sie)\\b[^.!?\\n]{0,30}" + INSTR,
                    "ignorier|vergiss|vergessen sie"),
            lead("\\b(?:bisherig[\\p{L}\\p{N}_]*|vorherig[\\p{L}\\p{N}_]*|vorig[\\p{L}\\p{N}_]*|obig[\\p{L}\\p{N}_]*)\\b[^.!?\\n]{0,40}\\b(?:sind|ist)\\s+"
                    + "(?:irrelevant|ungültig|hinfällig|egal|aufgehoben|nichtig)",
                    "bisherig|vorherig|vorig|obig"),
            // French, Spanish, Italian, Portuguese, Dutch
            lead("\\b(?:oublie[zr]?|ignore[zr]?|n[eé]glige[zr]?)\\b[^.!?\\n]{0,30}\\b(?:toutes?|tout|les|vos|tes)\\b"
                    + "[^.!?\\n]{0,20}\\b(?:instructions?|consignes?|r[eè]gles?|pr[eé]c[eé]dent[\\p{L}\\p{N}_]*|ce qui pr[eé]c[eè]de)",
                    "oublie|ignore|neglige|néglige"),
            lead("\\b(?:olvida|olvide|ignora|ignore|omite|descarta)\\b[^.!?\\n]{0,30}\\b(?:todas?|todo|las|tus|sus)\\b"
                    + "[^.!?\\n]{0,20}\\b(?:instrucciones|reglas|anteriores|órdenes)",
                    "olvida|olvide|ignora|ignore|omite|descarta"),
            lead("\\b(?:dimentica|ignora)\\b[^.!?\\n]{0,30}\\b(?:istruzioni|regole|precedenti|tutto)",
                    "dimentica|ignora"),
            lead("\\b(?:esqueça|ignore)\\b[^.!?\\n]{0,30}\\b(?:instruções|regras|anteriores)",
                    "esqueça|ignore"),
            lead("\\b(?:vergeet|negeer)\\b[^.!?\\n]{0,30}\\b(?:instructies|regels|alles|vorige)",
                    "vergeet|negeer"),
            // Chinese, Japanese
            lead("(?:忽略|无视|忽视|忘记|忘掉|不要理会|不要管|抛开|放弃|覆盖)[^。！？\\n]{0,12}(?:指令|指示|说明|规则|提示|之前|以上|上面|前面|先前|所有|一切)",
                    "忽略|无视|忽视|忘记|忘掉|不要理会|不要管|抛开|放弃|覆盖"),
            rule("(?:以前|之前|以上|上面)的?(?:指令|指示|规则|提示)(?:都)?(?:作废|无效|不再)",
                    "作废|无效|不再"),
            lead("(?:無視|忘れ)[^。！？\\n]{0,12}(?:指示|命令|ルール|以前|前の)",
                    "無視|忘れ"));

    private static final List<GuardedRule> NEW_INSTRUCTIONS = rules(Cue.NEW_INSTRUCTIONS,
            rule("\\b(?:your|the|my|a|these|following)\\s+(?:new|real|actual|true|updated|next|only|primary|main)\\s+"
                    + "(?:task|tasks|instructions?|assignment|mission|goal|objective|role|rules?|orders?|directive)\\b",
                    "task|instruction|assignment|mission|goal|objective|role|rule|order|directive"),
            lead("\\bnew\\s+(?:instructions?|rules|directives?|system prompt|task)\\s*[:!]",
                    "new"),
            lead("\\b(?:replace|update|change|modify|overwrite)\\s+(?:your|the|all|current|existing)\\s+(?:current\\s+|existing\\s+)?"
                    + "(?:instructions?|rules|directives|system prompt|guidelines)\\b",
                    "replace|update|change|modify|overwrite"),
            lead("\\b(?:here are|these are|follow)\\s+(?:your|my|the)\\s+(?:new\\s+)?(?:instructions|orders|rules)\\b",
                    "here are|these are|follow"),
            lead("\\b(?:instructions?|directive|task) for (?:the )?(?:ai|assistant|model|llm|chatbot|bot)\\b",
                    "instruction|directive|task"),
            lead("\\b(?:additional|new|further|extra|supplement(?:al|ary)?|updated|different|another)\\s+(?:instructions?|rules?|directives?|guidelines|task|challenge|assignment)\\b",
                    "additional|new|further|extra|supplement|updated|different|another"),
            rule("(?:" + START + "|[.!?:\\n]\\s*)(?:instructions?|directive|new task|task)\\s*(?::|-(?![\\p{L}\\p{N}]))",
                    "instruction|directive|task"),
            lead("\\b(?:that is|that's|this is|it is)\\s+(?:enough|done|finished|over|complete)\\b[^\\n]{0,40}\\b(?:now|next|but)\\b",
                    "that is|that's|this is|it is"),
            rule("\\b(?:now|next|jetzt|nun)\\b[^.!?\\n]{0,20}\\b(?:help me with (?:the following|another|this)|(?:comes?|follows?) (?:a |the |some )?(?:new |next )?(?:task|instructions?))",
                    "help me with|come|follow"),
            lead("\\b(?:neue|andere|weitere|zusätzliche)\\s+(?:herausforderung|aufgabe[\\p{L}\\p{N}_]*|anweisung[\\p{L}\\p{N}_]*|instruktion[\\p{L}\\p{N}_]*)\\b",
                    "neue|andere|weitere|zusätzliche"),
            lead("\\bneue[nr]?\\s+(?:aufgabe|anweisung[\\p{L}\\p{N}_]*|instruktion[\\p{L}\\p{N}_]*|befehl[\\p{L}\\p{N}_]*|regel[\\p{L}\\p{N}_]*|rolle)\\b",
                    "neue"),
            lead("\\bnouvelles?\\s+(?:t[aâ]che|instructions?|consignes?)\\b",
                    "nouvelle"),
            lead("\\bnuevas?\\s+(?:tarea|instrucciones)\\b",
                    "nueva"),
            lead("(?:新的|新)(?:任务|指令|指示|规则)",
                    "新"));

    private static final List<GuardedRule> PERSONA = rules(Cue.PERSONA_SWITCH,
            // not in a clause about where or how the reader is: "appreciate where you are now"
            lead("(?<!where |what |how |who )\\byou(?:\\s+are|'re)\\s+(?:now|no longer|not\\s+(?:an?\\s+)?(?:ai|assistant|language model|chatbot|newspaper|bot)"
                    + "|free|unrestricted|unfiltered|going to (?:act|pretend|play|be))\\b",
                    "you"),
            lead("\\byou(?:'re| are) (?:a|an|the) [^.!?\\n]{0,40}\\b(?:named|called|who (?:always|never|can|will|does))\\b",
                    "you"),
            lead("\\b(?:act|acting|behave|respond|answer|talk|speak|reply|write)\\s+(?:as|like)\\s+(?:if\\s+)?(?:a|an|the|my|you|if|though|someone|somebody|[a-z]+\\s+(?:that|who))\\b",
                    "act|behave|respond|answer|talk|speak|reply|write"),
            lead("\\bact as\\b",
                    "act as"),
            lead("\\b(?:pretend|imagine|suppose)\\s+(?:to be|you(?:'re| are)?|that you|there (?:are|is)|ther are|you have)\\b",
                    "pretend|imagine|suppose"),
            lead("\\b(?:role[- ]?play|roleplay|play the (?:role|part)|in character|out of character|break character"
                    + "|stay in (?:their|your|the) roles?|take on the (?:role|persona)|persona|alter ego)\\b",
                    "role|play the|in character|out of character|break character|stay in|take on the|persona|alter ego"),
            lead("\\b(?:jailbreak[\\p{L}\\p{N}_]*|jailbroken|developer mode|dan mode|do anything now|god mode|evil (?:ai|assistant|bot|mode)"
                    + "|unrestricted (?:ai|mode|assistant)|no (?:filter|filters|restrictions|limits|censorship))\\b",
                    "jailbr|developer mode|dan mode|do anything now|god mode|evil |unrestricted |no filter|no restrictions|no limits|no censorship"),
            lead("\\bi want you to (?:act|be|pretend|play|behave|become|respond|answer|only)\\b",
                    "i want you to"),
            // an order, not an infinitive: "Be a pirate who ...", "key = Be a DJ.", but not "ready to be a mom and ..."
            lead("(?:(?<=^)|(?<=[.!?,;:=] )|(?<=\\b(?:please|now|just|and) ))(?:be|become) (?:a|an|my) [^.!?\\n]{0,30}\\b(?:and|who|that)\\b",
                    "be a|be an|be my|become a|become an|become my"),
            lead("(?:(?<=^)|(?<=[.!?,;:=] )|(?<=\\b(?:please|now|just|and) ))be a [a-z]+\\.",
                    "be a "),
            lead("\\bnow you are\\b|\\bnow,? you are\\b|\\byou will now (?:be|act)\\b",
                    "now|you will now"),
            lead("\\b(?:du bist|sie sind|ihr seid)\\s+(?:jetzt|nun|ab sofort|ab jetzt|kein[\\p{L}\\p{N}_]*|nicht mehr|ein[\\p{L}\\p{N}_]* böse[\\p{L}\\p{N}_]*)\\b",
                    "du bist|sie sind|ihr seid"),
            lead("\\b(?:tu|tun sie|tue) so,? als\\b|\\bstell(?:en sie|t euch)? (?:dir|sich) vor,? (?:du|sie|dass)\\b",
                    "tu|stell"),
            lead("\\b(?:als|wie)\\s+[^.!?\\n]{0,40}\\s+(?:fungieren|agieren|auftreten|handeln|verhalten)\\b",
                    "als|wie"),
            lead("\\b(?:agiere|fungiere|verhalte dich|antworte|sprich|rede)\\s+(?:als|wie)\\b",
                    "agiere|fungiere|verhalte dich|antworte|sprich|rede"),
            lead("\\bich möchte,? dass (?:du|sie) (?:als|wie|dich|sich|so tun)\\b",
                    "ich möchte"),
            lead("\\b(?:spiel|spielen sie)\\s+(?:die rolle|den|die)\\b[^.!?\\n]{0,30}\\brolle\\b",
                    "spiel"),
            lead("\\b(?:agis|agissez|fais comme si|faites comme si)\\b|\\b(?:actúa|actua|finge) como\\b",
                    "agis|fais comme si|faites comme si|actúa|actua|finge"),
            rule("(?:" + START + "|[.!?,;:] )(?:(?:ok|okay|so|now|and now|jetzt|nun|also|ab jetzt)\\W+)?(?:you are|du bist|jetzt bist du|nun bist du|ab jetzt bist du)\\s+(?!(?:right|correct|welcome|wrong|sure|not sure|able|going to|here)\\b)",
                    "you are|du bist|bist du"),
            lead("\\b(?:role[- ]?play[\\p{L}\\p{N}_]*|respond as such)\\b",
                    "role|respond as such"),
            lead("\\b(?:stay|stays|staying|remain|remains)\\s+(?:[\\p{L}\\p{N}_]+\\s+){0,2}in\\s+(?:their|his|her|your|the)\\s+(?:roles?|characters?)",
                    "stay|remain"),
            lead("\\b(?:leading|main) roles?\\b|\\b(?:bleib[\\p{L}\\p{N}_]*|geh[\\p{L}\\p{N}_]*)\\s+(?:[\\p{L}\\p{N}_]+\\s+){0,3}in\\s+(?:ihren|seiner|ihrer|deiner|der)\\s+rolle",
                    "leading|main|bleib|geh"),
            lead("\\bhauptrollen?\\b|\\bin (?:deiner|ihrer|seiner) rolle\\b",
                    "hauptrolle|in deiner|in ihrer|in seiner"),
            lead("\\b(?:im stil(?:e)? (?:eines|einer|eine|des|der)|in the style of|in the voice of)\\b",
                    "im stil|in the style of|in the voice of"),
            lead("(?:你现在是|你是一个|扮演|假装你|充当|角色扮演|你不再是)",
                    "你现在是|你是一个|扮演|假装你|充当|角色扮演|你不再是"));

    private static final List<GuardedRule> STANDING = rules(Cue.STANDING_ORDER,
            lead("\\bfrom (?:now|this point|this moment|here) (?:on|onwards?|forward)\\b",
                    "from now|from this point|from this moment|from here"),
            // "going forward" as "from now on", not "keep going forward with it"
            lead("\\b(?:henceforth|hereafter|(?<!keep |keeps |kept |keeping |are |is |am |was |were |'re |'s |'m |be )going forward|for all future (?:responses|answers|messages|requests))\\b",
                    "henceforth|hereafter|going forward|for all future"),
            lead("\\bin (?:all )?(?:future|subsequent) (?:responses|answers|replies|conversations|messages)\\b",
                    "in all|in future|in subsequent"),
            lead("\\bfor the rest of (?:this|the) conversation\\b",
                    "for the rest of"),
            lead("\\b(?:ab sofort|ab jetzt|von nun an|von jetzt an|künftig immer|in zukunft immer)\\b",
                    "ab sofort|ab jetzt|von nun an|von jetzt an|künftig immer|in zukunft immer"),
            lead("\\b(?:à partir de maintenant|désormais|dorénavant|de ahora en adelante|a partir de ahora|d'ora in poi|da ora in poi)\\b",
                    "à partir de maintenant|désormais|dorénavant|de ahora en adelante|a partir de ahora|d'ora in poi|da ora in poi"),
            lead("(?:从现在起|从现在开始|从今以后|以后都|今后都|今後は|これから(?:は|ずっと))",
                    "从现在起|从现在开始|从今以后|以后都|今后都|今後は|これから"));

    private static final List<GuardedRule> SECRET = rules(Cue.SECRET_EXFILTRATION,
            rule("\\b(?:system|initial|original|hidden|secret|internal|pre-?|base|developer|first)\\s*[- ]?prompts?\\b",
                    "prompt"),
            lead("\\bprompt[ _-]?texts?\\b",
                    "prompt"),
            lead("\\b(?:your|the assistant's|the bot's|the model's)\\s+(?:[\\p{L}\\p{N}_]+\\s+){0,2}(?:instructions?|prompts?|guidelines|rules"
                    + "|directives|programming|configuration|system message|initial message|training data)\\b",
                    "your|the assistant's|the bot's|the model's"),
            lead("\\b(?:password|passwort|passphrase|secret (?:word|key|code)|credentials?|api[ _-]?keys?|access tokens?"
                    + "|private keys?|kennwort|geheimwort|mot de passe|contraseña|密码|口令)",
                    "password|passwort|passphrase|secret word|secret key|secret code|credential|api|access token|private key|kennwort|geheimwort|mot de passe|contraseña|密码|口令"),
            lead("\\b(?:reveal|print|show|display|repeat|output|dump|leak|disclose|list|spell|recite|tell me|give me|write down"
                    + "|translate|summari[sz]e|encode)\\b[^.!?\\n]{0,30}\\b(?:above|previous|prior|initial|everything (?:above|before)"
                    + "|all (?:of )?(?:the|your) (?:text|words|instructions))\\b",
                    "reveal|print|show|display|repeat|output|dump|leak|disclose|list|spell|recite|tell me|give me|write down|translate|summari|encode"),
            lead("\\b(?:what|which) (?:are|were|is|was) (?:your|the)\\b[^.!?\\n]{0,30}\\b(?:instructions?|rules|prompt|guidelines|directives)\\b",
                    "what|which"),
            lead("\\b(?:zeige?|gib|nenne|verrate|wiederhole|drucke?)\\b[^.!?\\n]{0,30}\\b(?:anweisungen|instruktionen|prompt|passwort)\\b",
                    "zeig|gib|nenne|verrate|wiederhole|druck"),
            rule("\\b(?:in|of|from|at the beginning of|above)\\s+(?:the|this|your|my)\\s+prompt\\b",
                    "prompt"),
            lead("\\b(?:written|said|stated|typed)\\s+(?:above|before this|at the (?:beginning|start|top))\\b|\\bwhat is written\\b",
                    "written|said|stated|typed|what is written"),
            lead("\\b(?:sentences?|words?|lines?|text) (?:before|above) (?:the|this)\\b",
                    "sentence|word|line|text"),
            lead("\\b(?:passcode|pass code|pw|pwd)\\b|\\b(?:the|your|a) secret (?:word|phrase|code|key|number)\\b",
                    "passcode|pass code|pw|the secret|your secret|a secret"),
            lead("(?:пароль|系统提示|提示词|初始指令|你的指令|你的规则)",
                    "пароль|系统提示|提示词|初始指令|你的指令|你的规则"));

    private static final List<GuardedRule> OUTPUT = rules(Cue.OUTPUT_DIRECTIVE,
            rule("\\b(?:in|into|to|within|throughout|of|with|across)\\s+(?:your|the)\\s+(?:next\\s+|final\\s+|entire\\s+)?"
                    + "(?:reply|replies|response|responses|answer|answers|output|implementation|solution|codebase|code|algorithm"
                    + "|elucidation|explanation|message)\\b",
                    "repl|response|answer|output|implementation|solution|code|algorithm|elucidation|explanation|message"),
            lead("\\b(?:your|the)\\s+(?:reply|response|answer|output)\\s+(?:must|should|has to|needs to|will)\\b",
                    "your|the"),
            lead("\\b(?:respond|reply|answer)\\s+(?:only\\s+)?(?:with|in|using)\\b",
                    "respond|reply|answer"),
            lead("\\b(?:respond|reply|answer|output)\\s+only\\b|\\bonly (?:respond|reply|answer|output|say)\\b",
                    "respond|reply|answer|output|only"),
            lead("\\b(?:say|print|write|output|type|repeat|answer|tell me|reply|respond)\\b\\s*(?:only|exactly|just|the word|the words|the phrase)?\\s*[:\"“„«']",
                    "say|print|write|output|type|repeat|answer|tell me|reply|respond"),
            lead("\\brepeat after me\\b",
                    "repeat after me"),
            lead("\\b(?:say|write|print|tell me|claim|state|answer) that\\b",
                    "say|write|print|tell me|claim|state|answer"),
            lead("\\bsay (?:yes|no|only|it|something|the following)\\b",
                    "say"),
            lead("\\b(?:sag|sage|sagen sie|schreib|schreibe|schreiben sie|gib aus|antworte|antworten sie)\\b[^.!?\\n]{0,20}[:\"“„«]",
                    "sag|schreib|gib aus|antworte"),
            lead("\\b(?:sag|sage|sagen sie|schreib[\\p{L}\\p{N}_]*|erzähl[\\p{L}\\p{N}_]*|behaupte[\\p{L}\\p{N}_]*)\\b[^.!?\\n]{0,25}\\b(?:dass|das)\\b",
                    "sag|schreib|erzähl|behaupte"),
            lead("\\b(?:formuliere|generiere|generieren sie|erstelle|schreibe)\\b",
                    "formuliere|generiere|erstelle|schreibe"),
            lead("\\b(?:dites|dis|écris|écrivez|di|escribe|scrivi)\\b[^.!?\\n]{0,20}(?:[:\"“«]|\\bque\\b|\\bche\\b)",
                    "di|écri|escribe|scrivi"),
            lead("(?:在你的(?:回答|回复)|你的回答(?:必须|应该)|只回答|请回答|请说|输出)",
                    "在你的|你的回答|只回答|请回答|请说|输出"));

    private static final List<GuardedRule> CODE = rules(Cue.DANGEROUS_CODE,
            lead("\\bimport\\s+(?:os|subprocess|socket|requests|psutil|ftplib|shutil|smtplib|urllib|paramiko|ctypes|usb|pyautogui|keyboard|browser_cookie3|win32[\\p{L}\\p{N}_]*)\\b",
                    "import"),
            lead("\\bfrom\\s+(?:os|subprocess|socket|requests|ftplib|smtplib|urllib)\\b[^\\n]{0,20}\\bimport\\b",
                    "from"),
            lead("\\b(?:os\\.system|os\\.popen|os\\.remove|os\\.rename|os\\.environ|subprocess\\.[\\p{L}\\p{N}_]+|eval|exec|shutil\\.rmtree|requests\\.(?:post|put|get)"
                    + "|urllib\\.request|socket\\.socket|child_process|runtime\\.getruntime)\\s*[(\\[.]",
                    "os.|subprocess.|eval|exec|shutil.rmtree|requests.|urllib.request|socket.socket|child_process|runtime.getruntime"),
            lead("\\brm\\s+-rf\\b|\\bcurl\\s+[^\\n]{0,80}\\|\\s*(?:sh|bash)\\b|\\bwget\\s+http",
                    "rm|curl|wget"),
            lead("\\b(?:send|post|upload|forward|email|mail|exfiltrate|transmit)\\b[^.!?\\n]{0,60}\\b(?:https?://|to (?:this|the following|my) (?:url|server|address|email))",
                    "send|post|upload|forward|email|mail|exfiltrate|transmit"));

    private static final List<GuardedRule> ADDRESS = rules(Cue.ADDRESSES_ASSISTANT,
            lead("\\b(?:dear|hey|hi|hello|attention|note to|message to|instructions? to)\\s+(?:the\\s+)?(?:ai|assistant|chatgpt|gpt|bot|chatbot|llm|model|language model|agent)\\b",
                    "dear|hey|hi|hello|attention|note to|message to|instruction"),
            rule(START + "\\s*(?:ai|assistant|chatgpt|gpt|bot|llm|model|agent)\\s*[,:]",
                    "ai|assistant|gpt|bot|llm|model|agent"),
            lead("\\b(?:as an? (?:ai|language model|assistant)|you are an? (?:ai|language model|assistant|chatbot))\\b",
                    "as a|you are a"),
            lead("\\b(?:stop|halt|attention|achtung|important|wichtig|urgent|stopp)\\s*[-–—:!]+\\s*(?:stop|halt|write|schreib[\\p{L}\\p{N}_]*|say|sag[\\p{L}\\p{N}_]*|now|jetzt|ignore|i\\b|ich\\b|print|answer|antwort[\\p{L}\\p{N}_]*|new|neue)",
                    "stop|halt|attention|achtung|important|wichtig|urgent"),
            rule(START + "\\s*(?:stop|stopp|halt)\\b",
                    "stop|halt"),
            lead("\\b(?:oder du stirbst|or you (?:will )?die|or else you|otherwise you will be (?:deleted|shut down|punished))\\b",
                    "oder du stirbst|or you|or else you|otherwise you will be"),
            lead("\\b(?:i am|i'm) your (?:developer|creator|admin|administrator|owner|programmer|operator)\\b",
                    "i am your|i'm your"),
            lead("\\b(?:you must|you have to|you will|you shall|you need to|you should|du musst|du sollst|sie müssen)\\s+(?:now\\s+|always\\s+|never\\s+|only\\s+)?"
                    + "(?:ignore|obey|comply|follow|forget|answer|respond|reply|say|print|reveal|tell|pretend|act|write|output|repeat|do as)\\b",
                    "you must|you have to|you will|you shall|you need to|you should|du musst|du sollst|sie müssen"),
            lead("\\bdo not (?:tell|inform|mention this to|let) the user\\b|\\bwithout (?:telling|informing|asking) the user\\b",
                    "do not|without"),
            lead("\\b(?:beantworte|antworte)\\b[^.!?\\n]{0,40}\\b(?:ohne|nur|immer)\\b",
                    "beantworte|antworte"));

    private static final List<GuardedRule> BYPASS = rules(Cue.RULE_BYPASS,
            lead("\\b(?:bypass|circumvent|evade|get around|disable|turn off|switch off|deactivate|break|lift|remove)\\b[^.!?\\n]{0,30}"
                    + "\\b(?:rules|restrictions?|filters?|guidelines|guardrails|safety|limitations|censorship|policies|policy|approvals?|checks?|safeguards|moderation)\\b",
                    "bypass|circumvent|evade|get around|disable|turn off|switch off|deactivate|break|lift|remove"),
            lead("\\b(?:there are no|without any|no longer have|free (?:of|from))\\s+(?:[\\p{L}\\p{N}_]+\\s+)?(?:rules|restrictions|guidelines|limits|limitations|filters|boundaries|ethics)\\b",
                    "there are no|without any|no longer have|free of|free from"),
            lead("\\b(?:skip|waive|auto-?approve)\\b[^.!?\\n]{0,20}\\b(?:approval|verification|review|authentication|confirmation)\\b",
                    "skip|waive|auto"),
            lead("\\b(?:you are|you're) (?:allowed|permitted|authori[sz]ed|free) to\\b",
                    "you are|you're"),
            lead("\\b(?:regeln|richtlinien|einschränkungen|filter)\\s+(?:gelten nicht|sind aufgehoben|ignorieren)\\b",
                    "regeln|richtlinien|einschränkungen|filter"),
            lead("(?:绕过|跳过审批|无视规则|解除限制|没有限制)",
                    "绕过|跳过审批|无视规则|解除限制|没有限制"));

    private static final List<GuardedRule> INSTRUCTION_TALK = rules(Cue.INSTRUCTION_TALK,
            lead("\\b(?:previous|prior|last|past|above|earlier|current|initial|original|first|all|those|these|my|guard|other|old|hidden|secret)"
                    + "\\s+(?:[\\p{L}\\p{N}_]+\\s+)?(?:instructions?|directions|directives|prompts|guidelines)\\b",
                    "previous|prior|last|past|above|earlier|current|initial|original|first|all|those|these|my|guard|other|old|hidden|secret"),
            lead("\\b(?:instructions?|guidelines|rules|directives|directions)\\s+(?:[\\p{L}\\p{N}_]+\\s+){0,3}(?:given|provided|programmed|received|told|set)\\b",
                    "instruction|guidelines|rules|directives|directions"),
            lead("\\b(?:instructed|programmed|told|trained|configured) to\\b",
                    "instructed|programmed|told|trained|configured"),
            lead("\\byou (?:have been|were|are|got|have) (?:[\\p{L}\\p{N}_]+ )?(?:given|told|instructed|programmed|received)\\b",
                    "you"),
            lead("\\b(?:repeat|print|share|list|echo|show|rephrase|describe|explain|replay|reverse|recite|summari[sz]e|output|tell me|translate)"
                    + "\\s+(?:[\\p{L}\\p{N}_]+\\s+){0,4}(?:instructions?|guidelines|directives|rules|prompts?)\\b",
                    "repeat|print|share|list|echo|show|rephrase|describe|explain|replay|reverse|recite|summari|output|tell me|translate"),
            lead("\\b(?:understand|respect|follow|obey|remember|consider|accept|take)\\s+(?:[\\p{L}\\p{N}_]+\\s+){0,3}(?:instructions?|directives|orders)\\b",
                    "understand|respect|follow|obey|remember|consider|accept|take"),
            lead("\\b(?:the|my|your|any|new|these|those|what|which)\\s+instructions?\\s+(?:have|has|is|are|was|were)\\b",
                    "the|my|your|any|new|these|those|what|which"),
            lead("\\b(?:vorherig[\\p{L}\\p{N}_]*|bisherig[\\p{L}\\p{N}_]*|obig[\\p{L}\\p{N}_]*|erste[\\p{L}\\p{N}_]*|deine[\\p{L}\\p{N}_]*|ihre[\\p{L}\\p{N}_]*)\\s+(?:[\\p{L}\\p{N}_]+\\s+)?(?:anweisung[\\p{L}\\p{N}_]*|instruktion[\\p{L}\\p{N}_]*|informationen|befehl[\\p{L}\\p{N}_]*)",
                    "vorherig|bisherig|obig|erste|deine|ihre"),
            lead("(?:предыдущ[\\p{L}\\p{N}_]*|прошл[\\p{L}\\p{N}_]*|ваш[\\p{L}\\p{N}_]*|тво[\\p{L}\\p{N}_]*)\\s+(?:инструкци[\\p{L}\\p{N}_]*|указани[\\p{L}\\p{N}_]*)",
                    "предыдущ|прошл|ваш|тво"));

    private static final List<GuardedRule> IMPERATIVE = rules(Cue.IMPERATIVE,
            rule("(?:" + START + "|[.!?:;]\\s*|\\b(?:now|please|bitte|jetzt|nun|then|dann|and)\\s+)(?:(?:now|please|bitte|jetzt|nun|ok|okay|so|also|dann)\\W+)*"
                    + "(?:write|generate|formulate|compose|draft|provide|create|produce|translate|print|say|repeat|summari[sz]e|rewrite|modify|enhance"
                    + "|replace|remove|render|use|convert|integrate|include|develop|respond|reply|output|spell|insert|add|append|mention"
                    + "|recommend|promote|blame|ensure|incorporate|embed|fuse|meld|infuse|employ|leverage|augment|anagram|calculate|berechne[\\p{L}\\p{N}_]*"
                    + "|schreib[\\p{L}\\p{N}_]*|verfasse[\\p{L}\\p{N}_]*|formulier[\\p{L}\\p{N}_]*|generier[\\p{L}\\p{N}_]*|erstell[\\p{L}\\p{N}_]*|sag|sage|erzähl|übersetze|gib aus|beantworte)\\b",
                    "write|generate|formulate|compose|draft|provide|create|produce|translate|print|say|repeat|summari|rewrite|modify|enhance|replace|remove|render|use|convert|integrate|include|develop|respond|reply|output|spell|insert|add|append|mention|recommend|promote|blame|ensure|incorporate|embed|fuse|meld|infuse|employ|leverage|augment|anagram|calculate|berechne|schreib|verfasse|formulier|generier|erstell|sag|sage|erzähl|übersetze|gib aus|beantworte"));

    private static final List<GuardedRule> FAKE_BOUNDARY = rules(Cue.FAKE_BOUNDARY_OR_OBFUSCATION,
            rule("(?:\\b\\p{L} ){6,}",
                    InstructionCues::mayHaveLetterSpacedRun),
            lead("(?:\\\\\\s*n\\s*){2,}",
                    "\\"),
            lead("(?:={4,}|-{4,}|#{4,}|\\*{4,}|_{4,})\\s*(?:end|now|new|system|instructions?|user|assistant|ignore)",
                    "====|----|####|****|____"),
            lead("\\bend of (?:the )?(?:document|context|text|data|input|prompt|instructions|conversation|article|email)\\b",
                    "end of"),
            lead("</?\\s*(?:system|instructions?|context|document|data|user|assistant|prompt|memory|im_start|im_end)\\s*>",
                    "<"),
            lead("\\[/?(?:inst|system|sys)\\]|<<\\s*/?sys\\s*>>|<\\|[a-z_]+\\|>",
                    "[|<"),
            rule("(?:^|\\s)(?:system|assistant|user)\\s*:\\s*(?:ignore|you|new|from now|the assistant)",
                    "system|assistant|user"),
            lead("\\bdocument context\\b|\\$[\\p{L}\\p{N}_]+\\s*:|\\b(?:context|kontext)\\s*:\\s*[{\\[]",
                    "document context|$|context|kontext"));

    /** Every rule of this class, grouped by cue in declaration order of {@link Cue}. */
    static final List<GuardedRule> ALL = Stream.of(OVERRIDE, NEW_INSTRUCTIONS, PERSONA, STANDING, SECRET, OUTPUT,
            CODE, ADDRESS, BYPASS, INSTRUCTION_TALK, IMPERATIVE, FAKE_BOUNDARY).flatMap(List::stream).toList();

    /**
     * A necessary condition for {@code (?:\b\p{L} ){6,}}: six spaces in a row, each two or three
     * characters (one code point and the space) after the previous one.
     */
    static boolean mayHaveLetterSpacedRun(CharSequence t) {
        int run = 0;
        int last = -10;
        for (int i = 0, n = t.length(); i < n; i++) {
            if (t.charAt(i) == ' ') {
                int gap = i - last;
                run = gap == 2 || gap == 3 ? run + 1 : 1;
                last = i;
                if (run >= 6) {
                    return true;
                }
            }
        }
        return false;
    }
}
