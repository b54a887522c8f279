package dev.agentmemory.inspector;

import dev.agentmemory.core.Caller;
import dev.agentmemory.core.MemoryRecord.Kind;
import dev.agentmemory.core.Proposal;
import dev.agentmemory.core.MemoryRecord.Source;
import dev.agentmemory.langchain4j.AgentMemory;
import dev.agentmemory.testing.TestClock;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A user with 10,000 persistent records (and a few hundred superseded versions): every list the
 * inspector shows is paged, and this measures what each page costs through HTTP, printing the
 * median of five requests (no assertion on time: the numbers are for the README; the assertions
 * are on what the pages hold). Written to {@code target/inspector-timings.txt} as well.
 */
class InspectorPageTimingsTest {

    private static final int RECORDS = 10_000;

    @Test
    void should_page_a_user_with_ten_thousand_records() throws Exception {
        TestClock clock = TestClock.start();
        try (AgentMemory memory = AgentMemory.builder().engineSettings(e -> e.clock(clock)).build();
             MemoryInspector inspector = MemoryInspector.start(memory, InspectorOptions.builder("acme").build())) {
            Caller bulk = new Caller("acme", "bulk", memory.agent());
            List<Proposal> batch = new ArrayList<>();
            for (int i = 0; i < RECORDS; i++) {
                batch.add(Proposal.set(bulk.persistent(), "fact.k" + String.format("%05d", i), "value " + i)
                        .kind(Kind.OBSERVATION).source(Source.USER).build());
                if (batch.size() == 500) {
                    memory.engine().propose(bulk, batch);
                    batch.clear();
                    clock.advance(Duration.ofMinutes(1));
                }
            }
            for (int i = 0; i < 300; i++) {
                batch.add(Proposal.set(bulk.persistent(), "fact.k" + String.format("%05d", i), "changed " + i)
                        .kind(Kind.OBSERVATION).source(Source.USER).build());
            }
            memory.engine().propose(bulk, batch);
            clock.advance(Duration.ofMinutes(1));

            HttpClient http = HttpClient.newHttpClient();
            String cookie = "agentmemory_inspector_" + inspector.address().getPort() + "=" + inspector.token();
            String at = TestClock.DEFAULT_START.plus(Duration.ofMinutes(3)).toString();
            Map<String, String> pages = new LinkedHashMap<>();
            pages.put("persistent, first page", "memory?user=bulk&section=persistent");
            pages.put("persistent, page at 5,000", "memory?user=bulk&section=persistent&offset=5000");
            pages.put("persistent, filtered (k0999)", "memory?user=bulk&section=persistent&q=k0999");
            pages.put("state, conflicts, due", "memory?user=bulk&section=due");
            pages.put("history of a key (2 versions)", "history?user=bulk&scope=persistent&key=fact.k00001");
            pages.put("event log, first page", "log?user=bulk");
            pages.put("event log, by kind", "log?user=bulk&kind=record-written&offset=100");
            pages.put("as of a time", "asof?user=bulk&at=" + at);
            pages.put("as of, with difference", "asof?user=bulk&at=" + at + "&compare=" + clock.instant());
            pages.put("audit", "audit?user=bulk");

            StringBuilder report = new StringBuilder("inspector pages, user with " + RECORDS
                    + " records (median of 5 requests, ms)\n");
            Map<String, String> bodies = new LinkedHashMap<>();
            for (Map.Entry<String, String> p : pages.entrySet()) {
                long[] ms = new long[5];
                String body = "";
                for (int i = 0; i < ms.length; i++) {
                    long t0 = System.nanoTime();
                    HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(inspector.address() + "api/" + p.getValue()))
                            .header("Cookie", cookie).build(), HttpResponse.BodyHandlers.ofString());
                    ms[i] = (System.nanoTime() - t0) / 1_000_000;
                    assertThat(r.statusCode()).as(p.getValue() + ": " + r.body()).isEqualTo(200);
                    body = r.body();
                }
                Arrays.sort(ms);
                bodies.put(p.getKey(), body);
                report.append(String.format("  %-32s %6d%n", p.getKey(), ms[2]));
            }
            System.out.print(report);
            Files.writeString(Path.of("target", "inspector-timings.txt"), report);

            assertThat(bodies.get("persistent, first page")).startsWith("{\"total\":" + RECORDS + ",\"offset\":0,\"limit\":50,");
            assertThat(bodies.get("persistent, page at 5,000")).contains("\"key\":\"fact.k05000\"");
            assertThat(bodies.get("persistent, filtered (k0999)")).startsWith("{\"total\":10,");
            assertThat(bodies.get("history of a key (2 versions)")).contains("\"value\":\"value 1\"", "\"value\":\"changed 1\"");
            assertThat(bodies.get("as of a time")).startsWith("{\"at\":\"" + at + "\"").contains("\"total\":2000,");
            assertThat(bodies.get("as of, with difference")).contains("\"change\":\"added\"");
            assertThat(bodies.get("audit")).contains("\"consistent\":true");
        }
    }
}
