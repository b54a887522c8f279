package dev.agentmemory.demo;

import static org.assertj.core.api.Assertions.assertThat;

import dev.agentmemory.core.Caller;
import dev.agentmemory.core.engine.MemoryEngine;
import dev.agentmemory.core.MemoryKey;
import dev.agentmemory.core.MemoryRecord;
import dev.agentmemory.core.Scope;
import dev.agentmemory.store.jdbc.JdbcStores;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * What a person types first to test a memory, in English and Chinese, through the real chat loop
 * on the offline model: state a preference, change it, drop it, correct a fact, ask what is
 * remembered, forget, continue a task. Each row is a new store: the setup lines, then the phrasing,
 * then the answer and the versions in the store (the change is a new version superseding the old).
 *
 * <p>Two tables. {@link #designed()} holds the phrasings of issue 22 that the intent grammar of
 * {@link Intents} was written around; {@link #heldOut()} holds paraphrases written down before the
 * grammar and not looked at while writing it.
 */
class MemoryPhrasingsTest {

    private static final Clock DAY1 = Clock.fixed(Instant.parse("2024-10-19T09:00:00Z"), ZoneOffset.UTC);
    private static final String USER = "erin";

    @TempDir
    Path dir;

    // ------------------------------------------------------------------ the setups

    private static final List<String> FRENCH = List.of("Please always answer in French from now on.");
    private static final List<String> CHINESE = List.of("以后请用中文回答");
    private static final List<String> ORDER_0711 = List.of("My order number is 20240711.");
    private static final List<String> ORDER_0711_ZH = List.of("我的订单号是20240711");
    private static final List<String> WHITE = List.of("I want to return my earbuds, the right ear is silent",
            "I'd rather exchange them, in white please");
    private static final List<String> WHITE_ZH = List.of("我想退货，耳机右耳没声音", "我想换货，换成白色");
    private static final List<String> SWITCHED = List.of("I want to return my earbuds, the right ear is silent",
            "By the way, my broadband at home keeps dropping every evening.");
    private static final List<String> SWITCHED_ZH = List.of("我想退货，耳机右耳没声音", "顺便说一下，我家的宽带每天晚上都断。");
    private static final List<String> KNOWN = List.of("Please always answer in French from now on.", "I prefer email over phone calls.");

    // ------------------------------------------------------------------ what the store must hold afterwards

    private static final String LANG = "persistent preference.language";

    private static Expect langChanged(String from, String to) {
        return new Expect(LANG, "v1 " + from + " superseded, v2 " + to + " active");
    }

    private static Expect langForgotten() {
        return new Expect(LANG, "v1 (no value) forgotten");
    }

    private static Expect langKept(String value) {
        return new Expect(LANG, "v1 " + value + " active");
    }

    private static Expect orderChanged(String from, String to) {
        return new Expect("session order.current", "v1 " + from + " superseded, v2 " + to + " active");
    }

    private static Expect colourChanged(String from, String to) {
        return new Expect("task return-earbuds exchange.color", "v1 " + from + " superseded, v2 " + to + " active",
                "persistent order:20241015.exchangeColor", "v1 " + from + " superseded, v2 " + to + " active");
    }

    private static Expect resumed() {
        return new Expect("tasks", "broadband suspended, return-earbuds active");
    }

    private static final String EN_OK = "OK, from now on I will answer in English.";
    private static final String FORGOT_LANG = "Done: I have forgotten your language preference.";
    private static final String FORGOT_LANG_ZH = "好的，我已忘记您的语言偏好。";
    private static final String DROPPED_FRENCH = "OK, I will no longer answer in French";

    static Stream<Arguments> designed() {
        return Stream.of(
                // state, then change a preference
                row("change: actually ... not ...", FRENCH, "Actually I prefer English, not French.", EN_OK, langChanged("French", "English")),
                row("change: I prefer X, not Y", FRENCH, "I prefer English, not French.", EN_OK, langChanged("French", "English")),
                row("change: switch to X", FRENCH, "Switch to English.", EN_OK, langChanged("French", "English")),
                row("change: no longer X", FRENCH, "Please no longer answer in French.", DROPPED_FRENCH, langForgotten()),
                row("change zh: 其实我更喜欢英文", CHINESE, "其实我更喜欢英文", EN_OK, langChanged("中文", "英文")),
                row("state zh: 以后请用中文回答", List.of(), "以后请用中文回答", "好的，从现在起我会用中文回答。",
                        new Expect(LANG, "v1 中文 active")),
                // correct a fact
                row("correct: my order number is actually", ORDER_0711, "My order number is actually 20241015.", "20241015",
                        orderChanged("20240711", "20241015")),
                row("correct: no, the color is blue", WHITE, "No, the color is blue.", "the replacement will be blue",
                        colourChanged("white", "blue")),
                row("correct zh: 不对，颜色是蓝色", WHITE_ZH, "不对，颜色是蓝色", "新的一副是蓝色", colourChanged("白色", "蓝色")),
                // ask what is remembered
                row("recall: what do you remember about me?", KNOWN, "What do you remember about me?",
                        "answers in French", langKept("French")),
                row("recall: what do you know?", KNOWN, "What do you know?", "contact by email", langKept("French")),
                row("recall zh: 你记得我什么", CHINESE, "你记得我什么", "用中文回答", langKept("中文")),
                // forget
                row("forget: my language preference", FRENCH, "Forget my language preference.", FORGOT_LANG, langForgotten()),
                row("forget: that", FRENCH, "forget that", FORGOT_LANG, langForgotten()),
                row("forget zh: 忘掉我的语言偏好", CHINESE, "忘掉我的语言偏好", FORGOT_LANG_ZH, langForgotten()),
                // continue a task
                row("continue: back to my exchange", SWITCHED, "Back to my exchange.", "Back to your earbuds request", resumed()),
                row("continue: where were we?", SWITCHED, "Where were we?", "Back to your earbuds request", resumed()),
                row("continue zh: 继续刚才的换货", SWITCHED_ZH, "继续刚才的换货", "回到您关于耳机的请求", resumed()),
                // dropping what is not set changes nothing, and says so
                row("drop what is not set", List.of(), "Stop answering in French.",
                        "Nothing to change: I was not set to answer in French (no preference is remembered).", new Expect(LANG, "")),
                row("drop another value", FRENCH, "No longer answer in German.",
                        "Nothing to change: I was not set to answer in German (your preference is French).", langKept("French")));
    }

    static Stream<Arguments> heldOut() {
        return Stream.of(
                row("en: on second thought", FRENCH, "Hmm, on second thought, English please.", EN_OK, langChanged("French", "English")),
                row("en: instead", FRENCH, "Could you reply in English instead?", EN_OK, langChanged("French", "English")),
                row("en: change my language", FRENCH, "Change my language to English.", EN_OK, langChanged("French", "English")),
                row("en: rather than", FRENCH, "Let's go with English rather than French.", EN_OK, langChanged("French", "English")),
                row("en: I'd rather", FRENCH, "I'd rather you answered in English.", EN_OK, langChanged("French", "English")),
                row("en: stop", FRENCH, "Stop answering in French.", DROPPED_FRENCH, langForgotten()),
                row("zh: 改用英文吧", CHINESE, "改用英文吧", EN_OK, langChanged("中文", "英文")),
                row("zh: 还是用英文回答吧", CHINESE, "还是用英文回答吧", EN_OK, langChanged("中文", "英文")),
                row("zh: 我想换成英语", CHINESE, "我想换成英语", EN_OK, langChanged("中文", "英语")),
                row("zh: 不要用中文了，用英文", CHINESE, "不要用中文了，用英文", EN_OK, langChanged("中文", "英文")),
                row("zh: 别再用中文了", CHINESE, "别再用中文了", "好的，以后不再用中文回答", langForgotten()),
                row("en: wrong order", ORDER_0711, "Wrong order, it's 20241015.", "20241015", orderChanged("20240711", "20241015")),
                row("zh: 订单号其实是", ORDER_0711_ZH, "订单号其实是20241015", "20241015", orderChanged("20240711", "20241015")),
                row("en: I meant black, not white", WHITE, "Sorry, I meant black, not white.", "the replacement will be black",
                        colourChanged("white", "black")),
                row("en: make that blue", WHITE, "Make that blue instead.", "the replacement will be blue", colourChanged("white", "blue")),
                row("zh: 其实我要黑色的", WHITE_ZH, "其实我要黑色的", "新的一副是黑色", colourChanged("白色", "黑色")),
                row("en: what do you know about me", KNOWN, "What do you know about me?", "answers in French", langKept("French")),
                row("en: tell me what you remember", KNOWN, "Tell me what you remember.", "contact by email", langKept("French")),
                row("zh: 你都知道我哪些事？", CHINESE, "你都知道我哪些事？", "用中文回答", langKept("中文")),
                row("zh: 你记住了我什么？", CHINESE, "你记住了我什么？", "用中文回答", langKept("中文")),
                row("en: erase my language setting", FRENCH, "Please erase my language setting.", FORGOT_LANG, langForgotten()),
                row("en: delete what I said about the language", FRENCH, "Delete what I said about the language.", FORGOT_LANG,
                        langForgotten()),
                row("zh: 把我的语言偏好删掉", CHINESE, "把我的语言偏好删掉", FORGOT_LANG_ZH, langForgotten()),
                row("en: let's continue with the earbuds", SWITCHED, "Let's continue with the earbuds.", "Back to your earbuds request",
                        resumed()),
                row("zh: 我们刚才说到哪了？", SWITCHED_ZH, "我们刚才说到哪了？", "回到您关于耳机的请求", resumed()),
                row("zh: 回到耳机的事", SWITCHED_ZH, "回到耳机的事", "回到您关于耳机的请求", resumed()));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("designed")
    void should_understand_the_phrasings_a_person_tests_memory_with(String name, List<String> setup, String said, String reply,
                                                                     Expect expect) {
        check(setup, said, reply, expect);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("heldOut")
    void should_understand_paraphrases_the_rules_were_not_written_around(String name, List<String> setup, String said,
                                                                         String reply, Expect expect) {
        check(setup, said, reply, expect);
    }

    @Test
    void should_run_the_readme_chat_script_as_a_memory_lifecycle() throws IOException {
        // given: the script the README's quick start suggests, read from the README itself
        List<String> script = readmeScript();
        assertThat(script).first().isEqualTo("Please always answer in French from now on.");

        // when
        DemoRun run = DemoRun.of(DAY1, Map.of(), String.join("\n", script) + "\n", "chat", "--db", dir.resolve("mem").toString(),
                "--user", USER, "--session", "s1");

        // then: every line understood, nothing refused
        assertThat(run.code()).as(run.err()).isZero();
        assertThat(run.err()).isEmpty();
        assertThat(run.out()).doesNotContain("Sorry, I don't understand", "Not saved", "REFUSED", "Nothing forgotten");
        Map<String, String> said = answers(script, run.out());
        assertThat(said.get("Actually I prefer English, not French.")).contains("OK, from now on I will answer in English. It replaces"
                + " French; /history preference.language shows both versions.");
        assertThat(said.get("/history preference.language")).contains("v1 = French  [superseded, preference, from user, trusted",
                "v2 = English  [active, preference, from user, trusted");
        assertThat(said.get("No, the colour is blue.")).contains("Corrected: the replacement will be blue, not white");
        assertThat(said.get("Where were we?")).contains("Back to your earbuds request; everything is as you left it");
        assertThat(said.get("What do you remember about me?")).contains("Here is what I remember about you: your preferences: answers"
                + " in English", "order:20241015.exchangeColor = blue");
        assertThat(said.get("Forget my language preference.")).contains("Done: I have forgotten your language preference.");
        assertThat(said.get("/memory")).contains("order:20241015.exchangeColor = blue  (v2, observation, from user, trusted)",
                "exchange.color = blue  (v2, task_fact, from user, trusted)").doesNotContain("preference.language");
        try (MemoryEngine engine = MemoryEngine.builder().store(JdbcStores.h2File(dir.resolve("mem"))).clock(DAY1).build()) {
            assertThat(describe(engine, LANG)).isEqualTo("v1 (no value) forgotten, v2 (no value) forgotten");
            assertThat(describe(engine, "task return-earbuds exchange.color")).isEqualTo("v1 white superseded, v2 blue active");
            assertThat(describe(engine, "tasks")).isEqualTo("broadband suspended, return-earbuds active");
        }
    }

    @Test
    void should_say_what_it_understands_when_it_does_not_understand_in_the_users_language() {
        DemoRun run = DemoRun.of(DAY1, Map.of(), "What is the weather in Paris tomorrow?\n今天天气怎么样？\n", "chat", "--db",
                dir.resolve("mem").toString(), "--user", USER, "--session", "s1");

        String[] chunks = run.out().split("you> ");
        assertThat(chunks[1]).startsWith("assistant> Sorry, I don't understand \"What is the weather in Paris tomorrow?\". "
                + ScriptedShopModel.UNDERSTOOD_EN);
        assertThat(ScriptedShopModel.UNDERSTOOD_EN).contains("\"actually I prefer English, not French\"",
                "\"what do you remember about me?\"", "\"forget my language preference\"", "\"where were we?\"");
        assertThat(chunks[2]).startsWith("assistant> 抱歉，我不明白“今天天气怎么样？”。" + ScriptedShopModel.UNDERSTOOD_ZH);
        assertThat(ScriptedShopModel.UNDERSTOOD_ZH).contains("其实我更喜欢英文", "你记得我什么", "忘掉我的语言偏好", "继续刚才的换货");
    }

    /** The lines of the README's block marked {@code <!-- chat-script ... -->}. */
    private static List<String> readmeScript() throws IOException {
        List<String> readme = Files.readAllLines(Path.of("..", "README.md"));
        int marker = -1;
        for (int i = 0; i < readme.size(); i++) {
            if (readme.get(i).startsWith("<!-- chat-script")) {
                marker = i;
            }
        }
        assertThat(marker).as("the README marks its chat script with <!-- chat-script -->").isNotNegative();
        assertThat(readme.get(marker + 1)).isEqualTo("```text");
        List<String> script = new ArrayList<>();
        for (int i = marker + 2; !readme.get(i).equals("```"); i++) {
            script.add(readme.get(i));
        }
        return script;
    }

    /** What the chat printed after each line of {@code script} (the chat prompts "you> " before reading each). */
    private static Map<String, String> answers(List<String> script, String out) {
        String[] chunks = out.split("you> ", -1);
        assertThat(chunks.length).as(out).isGreaterThan(script.size());
        Map<String, String> by = new java.util.LinkedHashMap<>();
        for (int i = 0; i < script.size(); i++) {
            by.put(script.get(i), chunks[i + 1]);
        }
        return by;
    }

    private void check(List<String> setup, String said, String reply, Expect expect) {
        Path db = dir.resolve("mem");
        List<String> lines = new ArrayList<>(setup);
        lines.add(said);
        DemoRun run = DemoRun.of(DAY1, Map.of(), String.join("\n", lines) + "\n", "chat", "--db", db.toString(),
                "--user", USER, "--session", "s1");
        assertThat(run.code()).as(run.err()).isZero();

        String answer = lastAnswer(run.out());
        assertThat(answer).as(run.out()).contains(reply);
        assertThat(run.out()).doesNotContain("Sorry, I don't understand", "抱歉，我不明白", "Not saved", "Nothing forgotten");
        try (MemoryEngine engine = MemoryEngine.builder().store(JdbcStores.h2File(db)).clock(DAY1).build()) {
            Function<String, String> state = where -> describe(engine, where);
            for (Map.Entry<String, String> e : expect.state().entrySet()) {
                assertThat(state.apply(e.getKey())).as(e.getKey() + "\n" + run.out()).isEqualTo(e.getValue());
            }
        }
    }

    /** The assistant's answer to the last line typed. */
    static String lastAnswer(String out) {
        int at = out.lastIndexOf("assistant> ");
        assertThat(at).as(out).isNotNegative();
        return out.substring(at).lines().findFirst().orElse("");
    }

    /** "LAYER KEY" as "v1 VALUE STATUS, v2 ..."; "tasks" as "TASK STATUS, ..." of session s1. */
    private static String describe(MemoryEngine engine, String where) {
        Caller caller = ShopTools.caller(ShopAgent.session(USER, "s1"));
        if (where.equals("tasks")) {
            return engine.tasks().list(caller, "s1").stream().map(t -> t.task() + " " + t.status().name().toLowerCase())
                    .sorted().collect(Collectors.joining(", "));
        }
        String[] parts = where.split(" ");
        Scope scope = switch (parts[0]) {
            case "persistent" -> caller.persistent();
            case "session" -> caller.session("s1");
            case "task" -> engine.tasks().list(caller, "s1").stream().filter(t -> t.task().equals(parts[1]))
                    .findFirst().map(caller::task).orElseThrow();
            default -> throw new IllegalArgumentException(where);
        };
        List<MemoryRecord> versions = engine.history(caller, scope, MemoryKey.of(parts[parts.length - 1]));
        return versions.stream().map(r -> "v" + r.version() + " " + (r.value() == null ? "(no value)" : r.text()) + " "
                + r.status().name().toLowerCase()).collect(Collectors.joining(", "));
    }

    /** Where to look ("persistent KEY", "session KEY", "task TASK KEY", "tasks") and what must be there. */
    record Expect(Map<String, String> state) {
        Expect(String... whereAndState) {
            this(pairs(whereAndState));
        }

        private static Map<String, String> pairs(String[] a) {
            Map<String, String> m = new java.util.LinkedHashMap<>();
            for (int i = 0; i < a.length; i += 2) {
                m.put(a[i], a[i + 1]);
            }
            return m;
        }

        @Override
        public String toString() {
            return state.toString();
        }
    }

    private static Arguments row(String name, List<String> setup, String said, String reply, Expect expect) {
        return Arguments.of(name, setup, said, reply, expect);
    }
}
