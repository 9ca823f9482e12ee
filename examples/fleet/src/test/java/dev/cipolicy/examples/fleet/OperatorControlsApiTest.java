package dev.cipolicy.examples.fleet;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.cipolicy.queue.model.Job;
import dev.cipolicy.queue.model.JobId;
import dev.cipolicy.queue.model.JobState;
import dev.cipolicy.queue.model.RequestId;
import dev.cipolicy.queue.model.RequestState;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The operator controls over HTTP on the in-memory store: every control endpoint's status codes (200, 400, 401, 403,
 * 404, 409), the two ways to be an operator (the bearer token, the trusted proxy's header from its address only),
 * the cross-site rule, and the audit of who did what.
 */
class OperatorControlsApiTest {
  private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String PROXY_HEADER = "X-Forwarded-User";

  private ControlFleet fleet;

  @BeforeEach
  void start() {
    // The test's requests come from 127.0.0.1: here the trusted proxy's address.
    fleet = new ControlFleet(b -> b.token(ControlFleet.TOKEN).trustedProxy(PROXY_HEADER, List.of("127.0.0.1")));
  }

  @AfterEach
  void stop() {
    fleet.close();
  }

  private static HttpResponse<String> post(int port, String path, Map<String, String> headers)
      throws IOException, InterruptedException {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
        .POST(HttpRequest.BodyPublishers.noBody());
    headers.forEach(b::header);
    return HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
  }

  private HttpResponse<String> post(String path, Map<String, String> headers) throws Exception {
    return post(fleet.server.port(), path, headers);
  }

  private HttpResponse<String> asToken(String path) throws Exception {
    return post(path, Map.of("Authorization", "Bearer " + ControlFleet.TOKEN));
  }

  private JsonNode get(String path, Map<String, String> headers) throws Exception {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + fleet.server.port() + path)).GET();
    headers.forEach(b::header);
    HttpResponse<String> r = HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
    assertThat(r.statusCode()).as(path + ": " + r.body()).isEqualTo(200);
    return JSON.readTree(r.body());
  }

  private static JsonNode body(HttpResponse<String> r) throws IOException {
    return JSON.readTree(r.body());
  }

  private Job job(Job j) {
    return fleet.queue.store().job(j.id()).orElseThrow();
  }

  @Test
  void retryQueuesAFailedJobAgainAndAnswersEachRefusalWithItsCode() throws Exception {
    String path = "/api/v1/jobs/" + fleet.failed.id().value() + "/retry";
    HttpResponse<String> anonymous = post(path, Map.of());
    assertThat(anonymous.statusCode()).isEqualTo(401);
    assertThat(anonymous.headers().firstValue("WWW-Authenticate")).hasValue("Bearer realm=\"fleet\"");
    assertThat(body(anonymous).get("error").asText()).contains("Authorization: Bearer");
    assertThat(post(path, Map.of("Authorization", "Bearer wrong-token-123456")).statusCode()).isEqualTo(401);
    HttpResponse<String> foreign = post(path, Map.of("Authorization", "Bearer " + ControlFleet.TOKEN,
        "Origin", "http://evil.example"));
    assertThat(foreign.statusCode()).isEqualTo(403);
    assertThat(post(path, Map.of("Authorization", "Bearer " + ControlFleet.TOKEN, "Sec-Fetch-Site", "cross-site"))
        .statusCode()).isEqualTo(403);
    assertThat(job(fleet.failed).state()).as("nothing refused changed the job").isEqualTo(JobState.FAILED);

    HttpResponse<String> ok = post(path, Map.of("Authorization", "Bearer " + ControlFleet.TOKEN,
        "Origin", "http://127.0.0.1:" + fleet.server.port(), "Sec-Fetch-Site", "same-origin"));
    assertThat(ok.statusCode()).as(ok.body()).isEqualTo(200);
    assertThat(body(ok).get("status").asText()).isEqualTo("retried");
    assertThat(body(ok).get("operator").asText()).isEqualTo("token");
    assertThat(job(fleet.failed).state()).isEqualTo(JobState.QUEUED);

    HttpResponse<String> again = asToken(path);
    assertThat(again.statusCode()).isEqualTo(409);
    assertThat(body(again).get("status").asText()).isEqualTo("not_retryable");
    assertThat(asToken("/api/v1/jobs/99999/retry").statusCode()).isEqualTo(404);
    assertThat(asToken("/api/v1/jobs/abc/retry").statusCode()).isEqualTo(400);
    assertThat(asToken("/api/v1/jobs/0/retry").statusCode()).isEqualTo(400);
  }

  @Test
  void retryingAJobOfACompletedRequestReopensIt() throws Exception {
    var claim = fleet.queue.claim("c1").claims();
    claim.forEach(c -> fleet.queue.complete(c.lease()));
    fleet.queue.tick();
    assertThat(fleet.queue.store().request(fleet.request.id()).orElseThrow().state())
        .isEqualTo(RequestState.COMPLETED);
    HttpResponse<String> ok = asToken("/api/v1/jobs/" + fleet.failed.id().value() + "/retry");
    assertThat(ok.statusCode()).isEqualTo(200);
    assertThat(body(ok).get("status").asText()).isEqualTo("retried (request " + fleet.request.id().value()
        + " reopened)");
    assertThat(fleet.queue.store().request(fleet.request.id()).orElseThrow().state())
        .isEqualTo(RequestState.IN_PROGRESS);
  }

  @Test
  void pauseAndResumeAPool() throws Exception {
    assertThat(post("/api/v1/pools/x86/pause", Map.of()).statusCode()).isEqualTo(401);
    assertThat(fleet.queue.store().pausedPools()).isEmpty();
    HttpResponse<String> paused = asToken("/api/v1/pools/x86/pause");
    assertThat(paused.statusCode()).isEqualTo(200);
    assertThat(body(paused).get("status").asText()).isEqualTo("paused");
    assertThat(fleet.queue.store().pausedPools()).containsExactly("x86");
    assertThat(fleet.queue.claim("c1").claims()).as("a paused pool's collector claims nothing").isEmpty();
    JsonNode waiting = get("/api/v1/waiting-jobs", Map.of());
    assertThat(waiting).isNotEmpty();
    for (JsonNode w : waiting) {
      if (w.get("pool").asText().equals("x86")) {
        assertThat(w.get("reason").get("kind").asText()).isEqualTo("pool-paused");
        assertThat(w.get("reason").get("sentence").asText()).contains("paused");
      }
    }
    JsonNode pools = get("/api/v1/pools", Map.of());
    assertThat(pools.findValues("pool")).extracting(JsonNode::asText).contains("x86", "arm");
    for (JsonNode p : pools) {
      assertThat(p.get("paused").asBoolean()).isEqualTo(p.get("pool").asText().equals("x86"));
    }
    assertThat(asToken("/api/v1/pools/x86/pause").statusCode()).isEqualTo(409);
    assertThat(asToken("/api/v1/pools/nowhere/pause").statusCode()).isEqualTo(404);
    assertThat(asToken("/api/v1/pools/bad%20pool/pause").statusCode()).isEqualTo(400);
    assertThat(post("/api/v1/pools/x86/resume", Map.of("Authorization", "Bearer " + ControlFleet.TOKEN,
        "Origin", "http://127.0.0.1:1")).statusCode()).isEqualTo(403);
    assertThat(asToken("/api/v1/pools/x86/resume").statusCode()).isEqualTo(200);
    assertThat(asToken("/api/v1/pools/x86/resume").statusCode()).isEqualTo(409);
    assertThat(asToken("/api/v1/pools/nowhere/resume").statusCode()).isEqualTo(404);
    assertThat(fleet.queue.claim("c1").claims()).hasSize(1);
  }

  @Test
  void drainCancelAndDeactivate() throws Exception {
    assertThat(post("/api/v1/collectors/g1/drain", Map.of()).statusCode()).isEqualTo(401);
    assertThat(asToken("/api/v1/collectors/nobody/drain").statusCode()).isEqualTo(404);
    assertThat(asToken("/api/v1/collectors/" + "x".repeat(201) + "/drain").statusCode()).isEqualTo(400);
    HttpResponse<String> drained = asToken("/api/v1/collectors/g1/drain");
    assertThat(drained.statusCode()).isEqualTo(200);
    assertThat(body(drained).get("status").asText()).isEqualTo("retired");
    assertThat(fleet.queue.store().collector("g1")).isEmpty();

    var held = fleet.queue.claim("c1").claims();
    assertThat(held).hasSize(1);
    assertThat(body(asToken("/api/v1/collectors/c1/drain")).get("status").asText()).isEqualTo("retiring");
    assertThat(asToken("/api/v1/collectors/c1/deactivate").statusCode()).as("a retiring collector").isEqualTo(409);
    assertThat(asToken("/api/v1/collectors/nobody/deactivate").statusCode()).isEqualTo(404);
    assertThat(post("/api/v1/collectors/c1/deactivate", Map.of()).statusCode()).isEqualTo(401);

    long id = fleet.request.id().value();
    assertThat(post("/api/v1/requests/" + id + "/cancel", Map.of()).statusCode()).isEqualTo(401);
    assertThat(asToken("/api/v1/requests/x/cancel").statusCode()).isEqualTo(400);
    assertThat(asToken("/api/v1/requests/99999/cancel").statusCode()).isEqualTo(404);
    assertThat(asToken("/api/v1/requests/" + id + "/cancel").statusCode()).isEqualTo(200);
    assertThat(fleet.queue.store().request(RequestId.of(id)).orElseThrow().state()).isEqualTo(RequestState.CANCELLED);
    HttpResponse<String> twice = asToken("/api/v1/requests/" + id + "/cancel");
    assertThat(twice.statusCode()).isEqualTo(409);
    assertThat(body(twice).get("status").asText()).isEqualTo("already_finished");
    HttpResponse<String> ofCancelled = asToken("/api/v1/jobs/" + fleet.failed.id().value() + "/retry");
    assertThat(ofCancelled.statusCode()).isEqualTo(409);
    assertThat(body(ofCancelled).get("status").asText()).isEqualTo("request_cancelled");
  }

  @Test
  void theTrustedProxyNamesTheOperatorAndTheAuditSaysWhoDidWhat() throws Exception {
    JsonNode anonymous = get("/api/v1/session", Map.of());
    assertThat(anonymous.get("operator").isNull()).isTrue();
    assertThat(anonymous.get("token").asBoolean()).isTrue();
    assertThat(get("/api/v1/overview", Map.of()).get("controls").asBoolean()).isFalse();
    assertThat(get("/api/v1/session", Map.of(PROXY_HEADER, "alice")).get("operator").asText()).isEqualTo("alice");
    assertThat(get("/api/v1/overview", Map.of(PROXY_HEADER, "alice")).get("controls").asBoolean()).isTrue();
    assertThat(get("/api/v1/session", Map.of("Authorization", "Bearer " + ControlFleet.TOKEN)).get("operator")
        .asText()).isEqualTo("token");

    HttpResponse<String> paused = post("/api/v1/pools/arm/pause", Map.of(PROXY_HEADER, "alice"));
    assertThat(paused.statusCode()).isEqualTo(200);
    assertThat(body(paused).get("operator").asText()).isEqualTo("alice");
    assertThat(asToken("/api/v1/jobs/99999/retry").statusCode()).isEqualTo(404);
    assertThat(post("/api/v1/pools/arm/resume", Map.of()).statusCode()).isEqualTo(401);

    JsonNode audit = get("/api/v1/audit", Map.of());
    assertThat(audit).hasSize(2); // refused for want of an operator: not an operator's action
    assertThat(audit.get(0).get("actor").asText()).isEqualTo("token");
    assertThat(audit.get(0).get("action").asText()).isEqualTo("retry");
    assertThat(audit.get(0).get("target").asText()).isEqualTo("job 99999");
    assertThat(audit.get(0).get("result").asText()).isEqualTo("not_found");
    assertThat(audit.get(1).get("actor").asText()).isEqualTo("alice");
    assertThat(audit.get(1).get("action").asText()).isEqualTo("pause");
    assertThat(audit.get(1).get("target").asText()).isEqualTo("pool arm");
    assertThat(audit.get(1).get("result").asText()).isEqualTo("paused");
    assertThat(audit.get(1).get("at").asText()).isNotBlank();
    assertThat(get("/api/v1/audit?limit=1", Map.of())).hasSize(1);
    HttpResponse<String> bad = HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + fleet.server.port()
        + "/api/v1/audit?limit=0")).GET().build(), HttpResponse.BodyHandlers.ofString());
    assertThat(bad.statusCode()).isEqualTo(400);
  }

  @Test
  void theProxyHeaderFromAnotherAddressIsRefused() throws Exception {
    try (ControlFleet elsewhere = new ControlFleet(b -> b.trustedProxy(PROXY_HEADER, List.of("10.11.12.13")))) {
      HttpResponse<String> r = post(elsewhere.server.port(), "/api/v1/pools/x86/pause", Map.of(PROXY_HEADER,
          "mallory"));
      assertThat(r.statusCode()).isEqualTo(403);
      assertThat(body(r).get("error").asText()).contains("trusted only from the proxy's addresses");
      assertThat(elsewhere.queue.store().pausedPools()).isEmpty();
      assertThat(post(elsewhere.server.port(), "/api/v1/pools/x86/pause", Map.of()).statusCode()).isEqualTo(401);
      assertThat(post(elsewhere.server.port(), "/api/v1/pools/x86/pause", Map.of("Authorization",
          "Bearer " + ControlFleet.TOKEN)).statusCode()).as("this server takes no token").isEqualTo(403);
    }
  }

  @Test
  void aReadOnlyServerRefusesEveryControl() throws Exception {
    try (ControlFleet readOnly = new ControlFleet(b -> { })) {
      for (String path : List.of("/api/v1/jobs/" + readOnly.failed.id().value() + "/retry", "/api/v1/pools/x86/pause",
          "/api/v1/pools/x86/resume", "/api/v1/collectors/c1/drain", "/api/v1/collectors/c1/deactivate",
          "/api/v1/requests/1/cancel")) {
        HttpResponse<String> r = post(readOnly.server.port(), path, Map.of("Authorization", "Bearer "
            + ControlFleet.TOKEN));
        assertThat(r.statusCode()).as(path).isEqualTo(403);
        assertThat(body(r).get("error").asText()).contains("controls are off");
      }
      assertThat(readOnly.queue.store().job(readOnly.failed.id()).orElseThrow().state()).isEqualTo(JobState.FAILED);
      assertThat(readOnly.queue.store().job(JobId.of(readOnly.failed.id().value())).orElseThrow().failure())
          .isPresent();
    }
  }
}
