package dev.agentmemory.demo;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The phrasings the chat banner invites, in English and Chinese, answered by the offline model in the user's language. */
class ScriptedPhrasingsTest {

    private static final Clock DAY1 = Clock.fixed(Instant.parse("2024-10-19T09:00:00Z"), ZoneOffset.UTC);

    @TempDir
    Path dir;

    private DemoRun chat(String session, String... lines) {
        DemoRun run = DemoRun.of(DAY1, Map.of(), String.join("\n", lines) + "\n", "chat", "--db", dir.resolve("mem").toString(),
                "--session", session);
        assertThat(run.code()).as(run.err()).isZero();
        return run;
    }

    @Test
    void should_handle_the_invited_phrasings_and_recall_the_exchange_in_a_new_session() {
        DemoRun day1 = chat("s1",
                "I want to return my earbuds, the right ear is silent",
                "我更喜欢换成白色的。",
                "Ship the replacement to 12 Baker Street, London.",
                "I prefer email over phone calls.",
                "From now on answer in French.",
                "forget that");

        String out = day1.out();
        // the Chinese exchange is answered in Chinese and recorded, nothing refused
        assertThat(out).contains("assistant> 已记录：订单 20241015 改为换货而不是退款。新的一副是白色，您手上的原件是黑色");
        assertThat(out).contains("write [task return-earbuds] exchange.color = 白色 (task_fact, user, trusted) -> v1");
        assertThat(out).doesNotContain("REFUSED", "Not saved");
        assertThat(out).contains("assistant> Done: the replacement for order 20241015 (the exchange, not the original order) will ship to"
                + " 12 Baker Street, London.");
        assertThat(out).contains("assistant> Noted: you prefer to be contacted by email.",
                "write [persistent] preference.contact = email (preference, user, trusted) -> v1");
        assertThat(out).contains("assistant> D'accord, je répondrai désormais en français.",
                "write [persistent] preference.language = French (preference, user, trusted) -> v1");
        // "forget that": the preference stated last, in plain words
        assertThat(out).contains("assistant> Done: I have forgotten your language preference. It is removed from my memory");
        assertThat(out).doesNotContain("derived item", "chat-cache");

        DemoRun day2 = chat("s2", "What's the status of my exchange?", "/memory");
        assertThat(day2.out()).contains("assistant> Back to your request: the exchange of order 20241015, replacement colour white,"
                + " shipping to 12 Baker Street, London");
        String memory = day2.out().substring(day2.out().lastIndexOf("you> persistent memory"));
        assertThat(memory).contains("preference.contact = email").doesNotContain("preference.language", "French");
    }

    @Test
    void should_answer_in_chinese_when_the_user_writes_chinese_and_no_language_is_set() {
        DemoRun run = chat("s1", "你好", "我想退货，耳机坏了");

        assertThat(run.out()).contains("assistant> 您好！我是本店的客服助手", "assistant> 找到订单 20241015：Bluetooth earbuds（黑色）");
    }
}
