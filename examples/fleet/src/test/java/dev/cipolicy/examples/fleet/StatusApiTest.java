package dev.cipolicy.examples.fleet;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.cipolicy.fleet.server.FleetServer;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The JSON API's contract, over HTTP against a started fleet: fields, types, paging, and the controls' 403. */
class StatusApiTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
  private static Fleet fleet;

  @BeforeAll
  static void start() {
    fleet = Fleet.inMemory(TestFleets.fast(true));
  }

  @AfterAll
  static void stop() {
    fleet.close();
  }

  private static HttpResponse<String> get(String path) throws IOException, InterruptedException {
    return HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + fleet.port() + path)).GET().build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private static JsonNode getJson(String path) throws IOException, InterruptedException {
    HttpResponse<String> r = get(path);
    assertThat(r.statusCode()).as(path).isEqualTo(200);
    assertThat(r.headers().firstValue("Content-Type").orElse("")).startsWith("application/json");
    return JSON.readTree(r.body());
  }

  private static HttpResponse<String> post(String path, String token) throws IOException, InterruptedException {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + fleet.port() + path))
        .POST(HttpRequest.BodyPublishers.noBody());
    if (token != null) {
      b.header("Authorization", "Bearer " + token);
    }
    return HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void theIndexListsEveryEndpointOfVersionOne() throws Exception {
    JsonNode index = getJson("/api/v1");
    assertThat(index.get("version").asText()).isEqualTo("v1");
    assertThat(index.get("endpoints").has("GET /api/v1/overview")).isTrue();
    assertThat(index.get("endpoints").size()).isEqualTo(FleetServer.ENDPOINTS.size());
  }

  @Test
  void theOverviewHasTheDocumentedFieldsAndTypes() throws Exception {
    TestFleets.await("a request in progress with a running job", Duration.ofSeconds(20), () -> {
      try {
        JsonNode o = getJson("/api/v1/overview");
        return o.get("inProgress").size() > 0 && o.get("inProgress").get(0).get("jobsRunning").asInt() > 0;
      } catch (Exception e) {
        return false;
      }
    });
    JsonNode o = getJson("/api/v1/overview");
    assertThat(o.get("version").asText()).isEqualTo("v1");
    assertThat(o.get("at").isTextual()).isTrue();
    assertThat(o.get("controls").asBoolean()).as("controls: this reader is an operator (it sent no credentials)")
        .isFalse();
    assertThat(o.get("leaseSeconds").asDouble()).isEqualTo(3.0);

    JsonNode p = o.get("inProgress").get(0);
    assertThat(p.get("request").get("id").isIntegralNumber()).isTrue();
    assertThat(p.get("request").get("state").asText()).isEqualTo("in_progress");
    assertThat(p.get("request").get("cadence").asText()).isIn("regular", "nightly");
    assertThat(p.get("jobsTotal").asInt()).isGreaterThan(0);
    assertThat(p.get("jobsDone").asInt()).isBetween(0, p.get("jobsTotal").asInt());
    assertThat(p.get("durationSeconds").isNumber()).isTrue();
    assertThat(p.get("errors").isArray()).isTrue();
    assertThat(p.has("etaSeconds")).isTrue();

    assertThat(o.get("queue").size()).isGreaterThan(0);
    JsonNode q = o.get("queue").get(0);
    assertThat(q.get("position").asInt()).isEqualTo(1);
    assertThat(q.get("section").asText()).isEqualTo("in_progress");
    assertThat(q.has("waitReason")).isTrue();

    Set<String> names = new HashSet<>();
    for (JsonNode c : o.get("collectors")) {
      names.add(c.get("name").asText());
      assertThat(c.get("state").asText()).isIn("online", "offline", "inactive");
      assertThat(c.get("heartbeatAgeSeconds").isNumber()).isTrue();
      assertThat(c.get("jobs").isArray()).isTrue();
    }
    assertThat(names).containsExactlyInAnyOrder("h200-0", "b200-0", "h100-0", "h100-1", "mi350-0", "cpu-0", "cpu-1");

    assertThat(o.get("hosts")).hasSize(5);
    for (JsonNode h : o.get("hosts")) {
      assertThat(h.get("size").asInt()).isEqualTo(8);
      assertThat(h.get("devices")).hasSize(8);
      int free = 0;
      for (JsonNode d : h.get("devices")) {
        assertThat(d.get("state").asText()).isIn("busy", "reserved", "free");
        if (!d.get("state").asText().equals("busy")) {
          free++;
        }
        assertThat(d.get("jobId").isNull()).isEqualTo(d.get("state").asText().equals("free"));
      }
      assertThat(h.get("free").asInt()).isEqualTo(free);
    }

    assertThat(o.get("shares")).isNotEmpty();
    for (JsonNode s : o.get("shares")) {
      assertThat(s.get("unit").asText()).isIn("gpus", "runners");
      assertThat(s.get("used").asInt()).isGreaterThanOrEqualTo(0);
      assertThat(s.get("limit").asInt()).isPositive();
    }
    assertThat(o.get("shares")).anySatisfy(s -> {
      assertThat(s.get("cadence").asText()).isEqualTo("nightly");
      assertThat(s.get("pool").asText()).isEqualTo("h200");
      assertThat(s.get("limit").asInt()).isEqualTo(12);
    });
  }

  @Test
  void waitingJobsSayWhyTheyWait() throws Exception {
    TestFleets.await("a waiting job", Duration.ofSeconds(20), () -> {
      try {
        return getJson("/api/v1/waiting-jobs").size() > 0;
      } catch (Exception e) {
        return false;
      }
    });
    JsonNode w = getJson("/api/v1/waiting-jobs");
    JsonNode first = w.get(0);
    assertThat(first.get("reason").get("kind").asText()).matches("[a-z-]+");
    assertThat(first.get("reason").get("sentence").asText()).isNotBlank();
    assertThat(first.get("pool").isTextual()).isTrue();
    assertThat(first.get("gpus").isIntegralNumber()).isTrue();
    // The request each waiting job belongs to: the one its requestId names, with its label, kind and cadence.
    for (JsonNode job : w) {
      JsonNode request = job.get("request");
      assertThat(request.get("id").asLong()).isEqualTo(job.get("requestId").asLong());
      assertThat(request.get("label").asText()).isNotBlank();
      assertThat(request.get("kind").asText()).matches("master|try|release|ci-run");
      assertThat(request.get("cadence").asText()).matches("regular|nightly");
    }
  }

  @Test
  void everyWaitingJobHasAnExpectedStartOrSaysWhyNot() throws Exception {
    TestFleets.await("a waiting job", Duration.ofSeconds(20), () -> {
      try {
        return getJson("/api/v1/waiting-jobs?state=waiting").size() > 0;
      } catch (Exception e) {
        return false;
      }
    });
    for (JsonNode job : getJson("/api/v1/waiting-jobs")) {
      assertThat(job.get("state").asText()).isIn("waiting", "not-started");
      boolean known = !job.get("expectedStartAt").isNull();
      assertThat(job.get("expectedStartUnknown").isNull()).as("exactly one of expectedStartAt and expectedStartUnknown")
          .isEqualTo(known);
      if (known) {
        assertThat(java.time.Instant.parse(job.get("expectedStartAt").asText())).isNotNull();
      }
      assertThat(job.get("jobId").isNull()).isEqualTo(job.get("state").asText().equals("not-started"));
    }
  }

  @Test
  void theWaitingWorkFiltersKeepOnlyWhatMatches() throws Exception {
    TestFleets.await("a waiting job", Duration.ofSeconds(20), () -> {
      try {
        return getJson("/api/v1/waiting-jobs").size() > 0;
      } catch (Exception e) {
        return false;
      }
    });
    String pool = getJson("/api/v1/waiting-jobs").get(0).get("pool").asText();
    for (JsonNode job : getJson("/api/v1/waiting-jobs?pool=" + pool)) {
      assertThat(job.get("pool").asText()).isEqualTo(pool);
    }
    assertThat(getJson("/api/v1/waiting-jobs?pool=no-such-pool")).isEmpty();
    assertThat(getJson("/api/v1/queue?pool=no-such-pool")).isEmpty();
    for (String state : java.util.List.of("waiting", "not-started")) {
      for (JsonNode job : getJson("/api/v1/waiting-jobs?state=" + state)) {
        assertThat(job.get("state").asText()).isEqualTo(state);
      }
    }
    for (JsonNode entry : getJson("/api/v1/queue?state=not-started")) {
      assertThat(entry.get("section").asText()).isNotEqualTo("in_progress");
    }
    for (JsonNode job : getJson("/api/v1/waiting-jobs?cadence=nightly")) {
      assertThat(job.get("request").get("cadence").asText()).isEqualTo("nightly");
    }
    // A search by commit: every row is of a request whose commit starts with it.
    JsonNode tagged = null;
    for (JsonNode job : getJson("/api/v1/waiting-jobs")) {
      if (job.get("request").get("tag").isTextual() && job.get("request").get("tag").asText().length() >= 6) {
        tagged = job;
      }
    }
    if (tagged != null) {
      String prefix = tagged.get("request").get("tag").asText().substring(0, 6);
      for (JsonNode job : getJson("/api/v1/waiting-jobs?q=" + prefix)) {
        assertThat(job.get("request").get("tag").asText()).startsWith(prefix);
      }
    }
    // The overview takes the same filters for its queue and waiting jobs, and lists the values to choose from.
    JsonNode o = getJson("/api/v1/overview?state=not-started");
    for (JsonNode job : o.get("waitingJobs")) {
      assertThat(job.get("state").asText()).isEqualTo("not-started");
    }
    assertThat(o.get("pools").toString()).contains("\"h200\"", "\"cpu\"");
    assertThat(o.get("cadences").toString()).contains("\"regular\"", "\"nightly\"");
    // A bad filter is a 400 with one line.
    HttpResponse<String> bad = get("/api/v1/waiting-jobs?state=running");
    assertThat(bad.statusCode()).isEqualTo(400);
    assertThat(JSON.readTree(bad.body()).get("error").asText()).isEqualTo(
        "state 'running' is not a state of waiting work; expected waiting or not-started");
    assertThat(get("/api/v1/queue?pr=abc").statusCode()).isEqualTo(400);
  }

  @Test
  void theWaitingJobsComeInPagesThatCountEveryMatchingJob() throws Exception {
    TestFleets.await("a waiting job", Duration.ofSeconds(20), () -> {
      try {
        return getJson("/api/v1/waiting-jobs").size() > 0;
      } catch (Exception e) {
        return false;
      }
    });
    // The overview's first page: 100 at most, from 0, with the counts of every matching job.
    JsonNode page = getJson("/api/v1/overview").get("waitingJobsPage");
    assertThat(page.get("offset").asInt()).isZero();
    assertThat(page.get("limit").asInt()).isEqualTo(100);
    assertThat(page.get("total").asInt()).isEqualTo(page.get("waiting").asInt() + page.get("notStarted").asInt());
    int byPool = 0;
    for (JsonNode c : page.get("pools")) {
      assertThat(c.get("pool").isTextual()).isTrue();
      byPool += c.get("waiting").asInt() + c.get("notStarted").asInt();
    }
    assertThat(byPool).isEqualTo(page.get("total").asInt());
    // A page of one, and one further on: the total in a header, the same with every page.
    HttpResponse<String> one = get("/api/v1/waiting-jobs?limit=1");
    assertThat(one.statusCode()).isEqualTo(200);
    assertThat(JSON.readTree(one.body()).size()).isEqualTo(1);
    assertThat(Integer.parseInt(one.headers().firstValue("X-Total-Count").orElseThrow())).isPositive();
    HttpResponse<String> beyond = get("/api/v1/waiting-jobs?offset=1000000&limit=500");
    assertThat(JSON.readTree(beyond.body())).isEmpty();
    assertThat(beyond.headers().firstValue("X-Total-Count")).isPresent();
    JsonNode paged = getJson("/api/v1/overview?offset=1&limit=2&state=waiting");
    assertThat(paged.get("waitingJobsPage").get("offset").asInt()).isEqualTo(1);
    assertThat(paged.get("waitingJobsPage").get("limit").asInt()).isEqualTo(2);
    assertThat(paged.get("waitingJobsPage").get("notStarted").asInt()).isZero();
    assertThat(paged.get("waitingJobs").size()).isBetween(0, 2);
    // A bad page is a 400 with one line, on either endpoint.
    for (String bad : java.util.List.of("/api/v1/waiting-jobs?limit=0", "/api/v1/overview?limit=0")) {
      HttpResponse<String> r = get(bad);
      assertThat(r.statusCode()).as(bad).isEqualTo(400);
      assertThat(JSON.readTree(r.body()).get("error").asText()).isEqualTo("limit 0 is out of range; expected 1 to 500");
    }
    HttpResponse<String> r = get("/api/v1/waiting-jobs?offset=next");
    assertThat(r.statusCode()).isEqualTo(400);
    assertThat(JSON.readTree(r.body()).get("error").asText()).isEqualTo(
        "offset 'next' is not a number; expected 0 to 1000000");
    assertThat(get("/api/v1/overview?offset=-5").statusCode()).isEqualTo(400);
    assertThat(get("/api/v1/waiting-jobs?limit=501").statusCode()).isEqualTo(400);
  }

  @Test
  void historyPagesNeitherRepeatNorSkipAndKeepTheirErrors() throws Exception {
    TestFleets.await("two completed requests", Duration.ofSeconds(90), () -> {
      try {
        return getJson("/api/v1/history?limit=2").get("entries").size() == 2;
      } catch (Exception e) {
        return false;
      }
    });
    JsonNode all = getJson("/api/v1/history?limit=500");
    Set<Long> seen = new HashSet<>();
    String cursor = null;
    int pages = 0;
    do {
      JsonNode page = getJson("/api/v1/history?limit=1" + (cursor == null ? "" : "&cursor=" + cursor));
      assertThat(page.get("entries").size()).isLessThanOrEqualTo(1);
      for (JsonNode e : page.get("entries")) {
        assertThat(seen.add(e.get("request").get("id").asLong())).isTrue();
        assertThat(e.get("outcome").asText()).isIn("success", "partial_failure", "failure");
        assertThat(e.get("durationSeconds").asDouble()).isGreaterThanOrEqualTo(0);
        assertThat(e.get("errors").isArray()).isTrue();
      }
      cursor = page.get("next").isNull() ? null : page.get("next").asText();
      pages++;
    } while (cursor != null && pages < 200);
    assertThat(seen.size()).isGreaterThanOrEqualTo(all.get("entries").size());
    assertThat(get("/api/v1/history?limit=0").statusCode()).isEqualTo(400);
    assertThat(get("/api/v1/history?cursor=nonsense").statusCode()).isEqualTo(400);
    assertThat(JSON.readTree(get("/api/v1/history?limit=x").body()).get("error").asText()).contains("not a number");
  }

  @Test
  void controlsNeedTheToken() throws Exception {
    TestFleets.await("an open request", Duration.ofSeconds(10), () -> !fleet.queue().store().openRequests().isEmpty());
    long id = fleet.queue().store().openRequests().get(0).id().value();
    assertThat(post("/api/v1/requests/" + id + "/cancel", null).statusCode()).isEqualTo(401);
    assertThat(post("/api/v1/requests/" + id + "/cancel", "wrong-token-xxxxxxxx").statusCode()).isEqualTo(401);
    assertThat(post("/api/v1/collectors/cpu-1/deactivate", null).statusCode()).isEqualTo(401);
    HttpResponse<String> ok = post("/api/v1/requests/" + id + "/cancel", TestFleets.TOKEN);
    // 409 when the request completed meanwhile (the fleet runs on its own)
    assertThat(ok.statusCode()).isIn(200, 409);
    assertThat(JSON.readTree(ok.body()).get("status").asText()).isEqualTo(ok.statusCode() == 200 ? "cancelled"
        : "already_finished");
  }

  @Test
  void withoutControlsEveryControlIsForbidden() throws Exception {
    try (Fleet plain = Fleet.inMemory(TestFleets.fast(false))) {
      HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(
          URI.create("http://127.0.0.1:" + plain.port() + "/api/v1/collectors/cpu-0/deactivate"))
          .header("Authorization", "Bearer " + TestFleets.TOKEN).POST(HttpRequest.BodyPublishers.noBody()).build(),
          HttpResponse.BodyHandlers.ofString());
      assertThat(r.statusCode()).isEqualTo(403);
      assertThat(JSON.readTree(r.body()).get("error").asText()).contains("controls are off");
    }
  }

  @Test
  void everyAnswerCarriesTheSecurityHeaders() throws Exception {
    for (String path : java.util.List.of("/", "/app.js", "/api/v1/overview")) {
      HttpResponse<String> r = get(path);
      assertThat(r.statusCode()).isEqualTo(200);
      assertThat(r.headers().firstValue("Content-Security-Policy")).hasValue(
          dev.cipolicy.fleet.server.RequestGuard.CONTENT_SECURITY_POLICY);
      assertThat(r.headers().firstValue("X-Content-Type-Options")).hasValue("nosniff");
      assertThat(r.headers().firstValue("X-Frame-Options")).hasValue("DENY");
    }
  }

  @Test
  void aRequestForAnotherHostIsRefused() throws Exception {
    // A DNS-rebinding page sends its own host name; the JDK's client cannot forge Host, so a raw socket does.
    try (java.net.Socket socket = new java.net.Socket("127.0.0.1", fleet.port())) {
      socket.setSoTimeout(5000);
      socket.getOutputStream().write(("GET /api/v1/overview HTTP/1.1\r\nHost: rebind.attacker.example:" + fleet.port()
          + "\r\nConnection: close\r\n\r\n").getBytes(java.nio.charset.StandardCharsets.US_ASCII));
      String answer = new String(socket.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
      assertThat(answer).startsWith("HTTP/1.1 421").contains("does not serve host 'rebind.attacker.example:")
          .doesNotContain("\"inProgress\"");
    }
  }

  @Test
  void aCrossOriginPostIsRefusedEvenWithTheToken() throws Exception {
    TestFleets.await("an open request", Duration.ofSeconds(10), () -> !fleet.queue().store().openRequests().isEmpty());
    long id = fleet.queue().store().openRequests().get(0).id().value();
    HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(
        URI.create("http://127.0.0.1:" + fleet.port() + "/api/v1/requests/" + id + "/cancel"))
        .header("Authorization", "Bearer " + TestFleets.TOKEN).header("Origin", "https://evil.example")
        .POST(HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
    assertThat(r.statusCode()).isEqualTo(403);
    assertThat(JSON.readTree(r.body()).get("error").asText()).contains("origin 'https://evil.example'");
    assertThat(fleet.queue().store().request(dev.cipolicy.queue.model.RequestId.of(id)).orElseThrow().cancelReason())
        .isEmpty();
  }
}
