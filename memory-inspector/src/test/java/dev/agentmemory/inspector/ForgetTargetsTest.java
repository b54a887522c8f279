package dev.agentmemory.inspector;

import dev.agentmemory.core.MemoryKey;
import dev.agentmemory.core.MemoryRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Each thing the forget page can forget, through the page's own request (cookie, CSRF token, JSON),
 * and what the engine and the next turn see afterwards: a record (its key), a conversation, the
 * whole user (hard), and the one-line refusals of a malformed request.
 */
class ForgetTargetsTest {

    private Fixture fixture;
    private final HttpClient http = HttpClient.newHttpClient();

    @BeforeEach
    void start() {
        fixture = new Fixture(true);
    }

    @AfterEach
    void stop() {
        fixture.close();
    }

    private HttpResponse<String> forget(String json) throws Exception {
        String cookie = "agentmemory_inspector_" + fixture.inspector.address().getPort() + "=" + fixture.inspector.token();
        String session = http.send(HttpRequest.newBuilder(fixture.inspector.address().resolve("/api/session"))
                .header("Cookie", cookie).build(), HttpResponse.BodyHandlers.ofString()).body();
        String csrf = session.replaceAll(".*\"csrf\":\"([^\"]+)\".*", "$1");
        return http.send(HttpRequest.newBuilder(fixture.inspector.address().resolve("/api/forget"))
                .header("Cookie", cookie).header("Content-Type", "application/json").header("X-CSRF-Token", csrf)
                .POST(HttpRequest.BodyPublishers.ofString(json)).build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void should_forget_a_records_key_by_the_records_id() throws Exception {
        MemoryRecord drink = fixture.engine.current(fixture.alice, fixture.alice.persistent(), MemoryKey.of("profile.drink"))
                .orElseThrow();

        HttpResponse<String> r = forget("{\"user\":\"alice\",\"target\":\"record\",\"record\":\"" + drink.id() + "\",\"mode\":\"soft\"}");

        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        assertThat(r.body()).contains("\"what\":\"key profile.drink in persistent\"", "\"records\":1");
        assertThat(fixture.engine.current(fixture.alice, fixture.alice.persistent(), MemoryKey.of("profile.drink"))).isEmpty();
        assertThat(Fixture.lastUserText(fixture.turn("which drink? profile drink"))).doesNotContain("oat flat white");
    }

    @Test
    void should_forget_a_conversation_with_its_state_and_messages() throws Exception {
        HttpResponse<String> r = forget("{\"user\":\"alice\",\"target\":\"conversation\",\"session\":\"s1\",\"mode\":\"soft\"}");

        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        assertThat(r.body()).contains("\"what\":\"conversation s1 (its state, tasks and messages)\"", "\"messages\":2");
        assertThat(fixture.engine.view(fixture.alice, fixture.alice.session("s1")).keys()).isEmpty();
        assertThat(fixture.engine.messages().window(fixture.alice, "s1")).allMatch(m -> m.forgotten());
        assertThat(fixture.engine.current(fixture.alice, fixture.alice.persistent(), MemoryKey.of("profile.city")))
                .as("persistent memory stays").isPresent();
    }

    @Test
    void should_forget_the_whole_user_hard() throws Exception {
        HttpResponse<String> r = forget("{\"user\":\"alice\",\"target\":\"user\",\"mode\":\"hard\"}");

        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        assertThat(r.body()).contains("\"what\":\"the whole user\"", "\"mode\":\"hard\"", "\"by\":\"inspector:local\"");
        assertThat(fixture.engine.view(fixture.alice, fixture.alice.persistent()).keys()).isEmpty();
        assertThat(String.join("\n", fixture.engine.admin().readableLog(fixture.alice))).doesNotContain("Paris", "Lyon");
        assertThat(Fixture.lastUserText(fixture.turn("where do I live? profile city"))).doesNotContain("Paris");
    }

    @Test
    void should_refuse_a_malformed_forget_in_one_line_and_forget_nothing() throws Exception {
        assertThat(forget("{\"user\":\"alice\",\"target\":\"key\",\"scope\":\"persistent\",\"key\":\"profile.city\",\"mode\":\"gently\"}").body())
                .isEqualTo("{\"error\":\"mode must be soft or hard: \\\"gently\\\"\"}");
        assertThat(forget("{\"user\":\"alice\",\"target\":\"key\",\"scope\":\"elsewhere/x\",\"key\":\"profile.city\",\"mode\":\"soft\"}").body())
                .isEqualTo("{\"error\":\"scope must be persistent, session/<id> or task/<session>/<task>: \\\"elsewhere/x\\\"\"}");
        assertThat(forget("{\"user\":\"alice\",\"target\":\"everything\",\"mode\":\"soft\"}").body())
                .isEqualTo("{\"error\":\"target must be key, record, conversation or user: \\\"everything\\\"\"}");
        assertThat(forget("{\"user\":\"alice\",\"target\":\"record\",\"record\":\"no-such-id\",\"mode\":\"soft\"}").statusCode())
                .isEqualTo(404);
        assertThat(forget("not json").body()).startsWith("{\"error\":\"the body is not JSON: ");
        assertThat(fixture.engine.current(fixture.alice, fixture.alice.persistent(), MemoryKey.of("profile.city")))
                .map(MemoryRecord::text).contains("Paris");
    }
}
