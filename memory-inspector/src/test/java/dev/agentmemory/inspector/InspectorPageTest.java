package dev.agentmemory.inspector;

import dev.agentmemory.langchain4j.MemoryContent;
import dev.agentmemory.langchain4j.Recall;
import dev.langchain4j.model.chat.request.ChatRequest;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.openqa.selenium.By;
import org.openqa.selenium.Keys;
import org.openqa.selenium.NoAlertPresentException;
import org.openqa.selenium.WebElement;

import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The inspector's pages in a real headless Chromium, over an AgentMemory an AiService is using:
 * the layers, a key's drawn history, the as-of slider across a supersession, a turn's block as the
 * model received it, a stored script that stays text, and a forget that the next recall obeys.
 * One browser for the class; the forget runs last because it changes the memory.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class InspectorPageTest {

    private static Fixture fixture;
    private static Browser browser;
    private static String base;

    @BeforeAll
    static void start() {
        browser = Browser.open();
        fixture = new Fixture(true);
        base = fixture.inspector.address().toString();
        // the printed address signs the browser in; the token leaves the address bar
        browser.driver.get(fixture.inspector.uri().toString());
        browser.find("#users a.user-link");
        assertThat(browser.driver.getCurrentUrl()).doesNotContain("token");
    }

    @AfterAll
    static void stop() {
        if (browser != null) {
            browser.close();
        }
        if (fixture != null) {
            fixture.close();
        }
    }

    private static WebElement row(String tableCss, String key) {
        return browser.waitFor(tableCss + " tbody tr", tr -> key.equals(tr.getAttribute("data-key")));
    }

    private static String cell(WebElement row, int column) {
        return row.findElements(By.tagName("td")).get(column).getText();
    }

    @Test
    @Order(1)
    void should_show_a_users_memory_by_layer() {
        browser.go(base, "#/users");
        browser.waitFor("a.user-link", a -> a.getText().equals("alice")).click();
        WebElement task = browser.waitFor("#tasks tbody tr", tr -> tr.getText().contains("refund-1"));
        assertThat(task.getText()).contains("refund", "current", "s1");
        WebElement color = row("#records[data-section=state]", "order.color");
        assertThat(cell(color, 1)).isEqualTo("aubergine");
        assertThat(cell(color, 3)).isEqualTo("current");
        WebElement amount = row("#records[data-section=state]", "refund.amount");
        assertThat(amount.getText()).contains("42 EUR", "task/s1/refund-1", "active (held by s1)");
        browser.screenshot("memory-state");

        browser.find("#tab-persistent").click();
        WebElement city = row("#records[data-section=persistent]", "profile.city");
        assertThat(cell(city, 1)).isEqualTo("Paris");
        assertThat(cell(city, 2)).isEqualTo("2");
        assertThat(cell(city, 3)).isEqualTo("current");
        assertThat(city.getText()).contains("preference", "user", "trusted");
        browser.screenshot("memory");

        browser.find("#tab-conflicts").click();
        WebElement contested = browser.waitFor("#records[data-section=conflicts] tbody tr",
                tr -> tr.getText().contains("French"));
        assertThat(cell(contested, 0)).isEqualTo("profile.language");
        assertThat(cell(contested, 3)).isEqualTo("conflict");
        assertThat(contested.getText()).contains("inference", "model");
    }

    @Test
    @Order(2)
    void should_follow_a_keys_history_on_a_drawn_timeline() {
        browser.go(base, "#/memory?user=alice&section=persistent");
        row("#records[data-section=persistent]", "profile.city").findElement(By.cssSelector("a.key-link")).click();
        browser.waitFor("#history-key", e -> e.getText().equals("profile.city"));
        List<WebElement> bars = browser.driver.findElements(By.cssSelector("#timeline g.version"));
        assertThat(bars).extracting(g -> g.getAttribute("data-version") + " " + g.getAttribute("data-status"))
                .containsExactly("1 superseded", "2 current");
        assertThat(browser.find("#timeline").getTagName()).isEqualTo("svg");
        List<WebElement> versions = browser.all("#versions tbody tr");
        assertThat(versions).hasSize(2);
        assertThat(versions.get(0).getText()).contains("Lyon", "superseded", "v2 at 2024-10-18 10:00:00Z");
        assertThat(versions.get(1).getText()).contains("Paris", "current");
        assertThat(browser.all("#history-events li")).extracting(WebElement::getText)
                .anySatisfy(t -> assertThat(t).contains("wrote acme/alice/persistent profile.city v2", "superseding 1"));
        browser.screenshot("history");
    }

    @Test
    @Order(3)
    void should_change_the_value_when_the_as_of_moves_across_the_supersession() {
        browser.go(base, "#/asof?user=alice&at=" + Fixture.T0.plus(Duration.ofDays(1)));
        assertThat(cell(row("#asof-items", "profile.city"), 2)).isEqualTo("Lyon");

        WebElement slider = browser.find("#asof-slider");
        slider.sendKeys(Keys.END);
        browser.waitFor("#asof-items tbody tr", tr -> "profile.city".equals(tr.getAttribute("data-key"))
                && tr.getText().contains("Paris"));
        browser.find("#asof-slider").sendKeys(Keys.HOME);
        browser.waitFor("#asof-items tbody tr", tr -> "profile.city".equals(tr.getAttribute("data-key"))
                && tr.getText().contains("Lyon"));

        browser.go(base, "#/asof?user=alice&at=" + Fixture.T0.plus(Duration.ofDays(1)) + "&compare=" + Fixture.MOVED.plusSeconds(60));
        row("#diff", "profile.city");
        assertThat(browser.all("#diff tbody tr")).extracting(WebElement::getText)
                .containsExactly("changed persistent profile.city Lyon (v1) Paris (v2)");
        browser.screenshot("asof");
    }

    @Test
    @Order(4)
    void should_show_a_turns_block_as_the_model_received_it() {
        ChatRequest first = fixture.model.requests().get(0);
        String sent = Fixture.lastUserText(first);
        Recall recall = fixture.memory.recentRecalls(Fixture.S1).get(0);
        assertThat(recall.sent()).isEqualTo(sent);

        browser.go(base, "#/turns?user=alice&session=s1");
        WebElement turn = browser.find("section.turn[data-turn='1']");
        assertThat(turn.findElement(By.cssSelector("pre.sent")).getDomProperty("textContent")).isEqualTo(sent);
        assertThat(turn.findElement(By.cssSelector(".block-size")).getText())
                .contains("Block: " + recall.block().length() + " characters, about " + recall.blockTokens() + " tokens");
        List<WebElement> items = turn.findElements(By.cssSelector("table.used tbody tr"));
        assertThat(items).hasSize(recall.used().size());
        assertThat(items).extracting(WebElement::getText)
                .anySatisfy(t -> assertThat(t).contains("persistent", "current", "profile.city@v2", "Paris"));
        assertThat(browser.all("#window .msg")).extracting(WebElement::getText)
                .anySatisfy(t -> assertThat(t).contains("USER", "Where do I live"));
        browser.screenshot("turns");
    }

    @Test
    @Order(5)
    void should_render_a_stored_script_as_inert_text() {
        browser.go(base, "#/memory?user=alice&section=persistent&q=note");
        WebElement markup = row("#records[data-section=persistent]", "note.markup");
        assertThat(cell(markup, 1)).isEqualTo(Fixture.MARKUP);
        assertThat(browser.driver.findElements(By.cssSelector("main img, main b, main script"))).isEmpty();
        assertThat(browser.driver.executeScript("return window.__pwned === undefined")).isEqualTo(true);
        assertThatThrownBy(() -> browser.driver.switchTo().alert()).isInstanceOf(NoAlertPresentException.class);

        browser.go(base, "#/history?user=alice&scope=persistent&key=note.markup");
        browser.waitFor("#versions tbody tr", tr -> tr.getText().contains("<script>"));
        assertThat(browser.driver.executeScript("return window.__pwned === undefined")).isEqualTo(true);
        assertThatThrownBy(() -> browser.driver.switchTo().alert()).isInstanceOf(NoAlertPresentException.class);
    }

    @Test
    @Order(6)
    void should_filter_the_event_log_and_show_the_audit() {
        browser.go(base, "#/log?user=alice&kind=record-written");
        List<WebElement> rows = browser.all("#log tbody tr");
        assertThat(rows).isNotEmpty().allSatisfy(tr -> assertThat(tr.getText()).contains("record-written"));
        assertThat(rows).extracting(WebElement::getText)
                .anySatisfy(t -> assertThat(t).contains("profile.city v2 = \"Paris\""));
        browser.screenshot("log");
        browser.go(base, "#/audit?user=alice");
        assertThat(browser.find("#audit-verdict").getText()).startsWith("Consistent");
    }

    @Test
    @Order(100)
    void should_forget_a_key_after_confirmation_and_leave_it_out_of_the_next_recall() {
        assertThat(Fixture.lastUserText(fixture.model.requests().get(0))).contains("oat flat white");

        browser.go(base, "#/memory?user=alice&section=persistent");
        row("#records[data-section=persistent]", "profile.drink").findElement(By.cssSelector("a.forget-link")).click();
        browser.waitFor("#forget-key", e -> "profile.drink".equals(e.getAttribute("value")));
        browser.find("#forget-ask").click();
        assertThat(browser.find("#confirm-text").getText())
                .isEqualTo("Forget key profile.drink in persistent (every version), soft: tombstones stay in the log.");
        browser.find("#confirm-forget").click();
        WebElement receipt = browser.find("#receipt");
        assertThat(receipt.getText()).contains("key profile.drink in persistent", "soft", "inspector:local");
        browser.screenshot("forget");

        ChatRequest next = fixture.turn("Which drink do I like? profile drink");
        assertThat(Fixture.lastUserText(next)).doesNotContain("oat flat white");
        assertThat(fixture.memory.lastRecall(Fixture.S1).orElseThrow().used())
                .noneMatch(c -> "profile.drink".equals(c.textSegment().metadata().getString(MemoryContent.KEY)));
        browser.go(base, "#/memory?user=alice&section=persistent&q=drink");
        browser.find("#empty");
    }
}
