package dev.cipolicy.examples.fleet;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.cipolicy.fleet.job.CiJob;
import dev.cipolicy.fleet.job.CiJobArgs;
import dev.cipolicy.fleet.server.FleetServer;
import dev.cipolicy.queue.JobQueue;
import dev.cipolicy.queue.QueueSettings;
import dev.cipolicy.queue.model.Claim;
import dev.cipolicy.queue.model.CiRun;
import dev.cipolicy.queue.model.Failure;
import dev.cipolicy.queue.model.Job;
import dev.cipolicy.queue.model.JobSpec;
import dev.cipolicy.queue.model.LogChunk;
import dev.cipolicy.queue.model.Request;
import dev.cipolicy.queue.spi.LeaseStatus;
import dev.cipolicy.queue.spi.SubmitResult;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.InstantSource;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A job's own API over HTTP against a fleet server on the in-memory store, driven by hand: the job's document
 * (spec, request and CI run, every attempt, each attempt's log), following a log by offset, and every status code
 * (200, 400, 404) with its one-line JSON error.
 */
class JobPageApiTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
  private static final String SHA = "0123456789abcdef0123456789abcdef01234567";

  private JobQueue queue;
  private FleetServer server;

  @BeforeEach
  void start() {
    QueueSettings settings = QueueSettings.builder().noJobs(true).leaseDuration(Duration.ofMinutes(10))
        .collectorTimeout(Duration.ofMinutes(10)).maxTransientRetries(2).build();
    queue = JobQueue.inMemory(InstantSource.system(), settings);
    server = FleetServer.builder(queue).port(0).tick(null).start();
    queue.registerCollector("host-a", "x86", true);
    queue.registerCollector("host-b", "x86", true);
  }

  @AfterEach
  void stop() {
    server.close();
  }

  /** Submits a CI run of acme/widgets, run 4242 attempt 2, with the given jobs on x86. */
  private List<Job> ciRun(JobSpec... jobs) {
    CiRun run = CiRun.of("acme/widgets", 4242, 2, SHA, "pull_request").withPr(17).withWorkflow("ci");
    SubmitResult r = queue.submitCiRun(run, List.of(jobs));
    assertThat(r.status()).isEqualTo(SubmitResult.Status.CREATED);
    Request request = r.request();
    return queue.store().jobs(request.id());
  }

  private static JobSpec unit() {
    String args = CiJobArgs.write(CiJob.builder().repository("acme/widgets").commit(SHA)
        .command(List.of("make", "test")).build());
    return JobSpec.required("unit", "x86").withArgs(args);
  }

  private Claim claim(String host) {
    List<Claim> claims = queue.claim(host).claims();
    assertThat(claims).as("claims of %s", host).hasSize(1);
    return claims.get(0);
  }

  private HttpResponse<String> get(String path) throws IOException, InterruptedException {
    return HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + path)).GET().build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private JsonNode json(String path, int status) throws IOException, InterruptedException {
    HttpResponse<String> r = get(path);
    assertThat(r.statusCode()).as("%s: %s", path, r.body()).isEqualTo(status);
    assertThat(r.headers().firstValue("Content-Type").orElse("")).startsWith("application/json");
    return JSON.readTree(r.body());
  }

  @Test
  void theJobDocumentHasItsSpecRequestEveryAttemptAndEachLog() throws Exception {
    Job job = ciRun(unit()).get(0);
    Claim first = claim("host-a");
    assertThat(queue.appendLog(first.lease(), List.of(LogChunk.ofText("line 1\n")))).isEqualTo(LeaseStatus.OK);
    assertThat(queue.fail(first.lease(), Failure.transientFailure("flaky network")).status())
        .isEqualTo(LeaseStatus.OK);
    // The job keeps its affinity to host-a, which claims it again.
    Claim second = claim("host-a");
    assertThat(queue.appendLog(second.lease(), List.of(LogChunk.ofText("second\n")))).isEqualTo(LeaseStatus.OK);

    JsonNode j = json("/api/v1/jobs/" + job.id().value(), 200);
    assertThat(j.get("id").asLong()).isEqualTo(job.id().value());
    assertThat(j.get("label").asText()).isEqualTo("unit@x86 #" + job.id().value());
    assertThat(j.get("state").asText()).isEqualTo("leased");
    assertThat(j.get("pool").asText()).isEqualTo("x86");
    assertThat(j.get("gpus").asInt()).isZero();
    assertThat(j.get("attempt").asInt()).isEqualTo(2);
    assertThat(j.get("transientRetries").asInt()).isEqualTo(1);
    assertThat(j.get("lastError").asText()).isEqualTo("flaky network");
    assertThat(j.get("failure").isNull()).isTrue();
    assertThat(j.get("lease").get("devices").isArray()).isTrue();
    assertThat(j.get("lease").get("runningSeconds").isNumber()).isTrue();

    JsonNode spec = j.get("spec");
    assertThat(spec.get("group").asText()).isEqualTo("unit");
    assertThat(spec.get("name").asText()).isEqualTo("unit@x86");
    assertThat(spec.get("command")).extracting(JsonNode::asText).containsExactly("make", "test");
    assertThat(spec.get("timeoutSeconds").isNull()).isTrue();

    JsonNode request = j.get("request");
    assertThat(request.get("request").get("kind").asText()).isEqualTo("ci-run");
    assertThat(request.get("request").get("pr").asLong()).isEqualTo(17);
    assertThat(request.get("commit").asText()).isEqualTo(SHA);
    JsonNode ci = request.get("ciRun");
    assertThat(ci.get("repository").asText()).isEqualTo("acme/widgets");
    assertThat(ci.get("runId").asLong()).isEqualTo(4242);
    assertThat(ci.get("attempt").asInt()).isEqualTo(2);
    assertThat(ci.get("workflow").asText()).isEqualTo("ci");
    assertThat(ci.get("url").asText()).isEqualTo("https://github.com/acme/widgets/actions/runs/4242/attempts/2");

    JsonNode attempts = j.get("attempts");
    assertThat(attempts).hasSize(2);
    JsonNode a1 = attempts.get(0);
    assertThat(a1.get("attempt").asInt()).isEqualTo(1);
    assertThat(a1.get("host").asText()).isEqualTo("host-a");
    assertThat(a1.get("devices")).isEmpty();
    assertThat(a1.get("outcome").asText()).isEqualTo("transient_failure");
    assertThat(a1.get("error").asText()).isEqualTo("flaky network");
    assertThat(a1.get("startedAt").asText()).matches("\\d{4}-\\d{2}-\\d{2}T.*Z");
    assertThat(a1.get("endedAt").asText()).matches("\\d{4}-\\d{2}-\\d{2}T.*Z");
    JsonNode a2 = attempts.get(1);
    assertThat(a2.get("attempt").asInt()).isEqualTo(2);
    assertThat(a2.get("host").asText()).isEqualTo("host-a");
    assertThat(a2.get("outcome").asText()).isEqualTo("running");
    assertThat(a2.get("endedAt").isNull()).isTrue();
    assertThat(a2.get("error").isNull()).isTrue();

    JsonNode logs = j.get("logs");
    assertThat(logs).hasSize(2);
    assertThat(logs.get(0).get("attempt").asInt()).isEqualTo(1);
    assertThat(logs.get(0).get("text").asText()).isEqualTo("line 1\n");
    assertThat(logs.get(0).get("head").asText()).isEqualTo("line 1\n");
    assertThat(logs.get(0).get("finished").asBoolean()).isTrue();
    assertThat(logs.get(1).get("text").asText()).isEqualTo("second\n");
    assertThat(logs.get(1).get("next").asLong()).isEqualTo(7);
    assertThat(logs.get(1).get("finished").asBoolean()).isFalse();

    // Ended: the job's failure and the last attempt's outcome and error.
    assertThat(queue.fail(second.lease(), Failure.permanent("exit code 2")).status()).isEqualTo(LeaseStatus.OK);
    JsonNode failed = json("/api/v1/jobs/" + job.id().value(), 200);
    assertThat(failed.get("state").asText()).isEqualTo("failed");
    assertThat(failed.get("lease").isNull()).isTrue();
    assertThat(failed.get("failure").get("reason").asText()).isEqualTo("permanent");
    assertThat(failed.get("attempts").get(1).get("outcome").asText()).isEqualTo("failed");
    assertThat(failed.get("attempts").get(1).get("error").asText()).contains("exit code 2");
    assertThat(failed.get("logs").get(1).get("finished").asBoolean()).isTrue();
  }

  @Test
  void theLogIsFollowedFromAByteOffset() throws Exception {
    Job job = ciRun(unit()).get(0);
    Claim claim = claim("host-a");
    String base = "/api/v1/jobs/" + job.id().value() + "/log";
    queue.appendLog(claim.lease(), List.of(LogChunk.ofText("one\n")));
    JsonNode first = json(base, 200);
    assertThat(first.get("attempt").asInt()).isEqualTo(1);
    assertThat(first.get("offset").asLong()).isZero();
    assertThat(first.get("text").asText()).isEqualTo("one\n");
    assertThat(first.get("next").asLong()).isEqualTo(4);
    queue.appendLog(claim.lease(), List.of(LogChunk.ofText("two\n"), LogChunk.ofText("três\n")));
    JsonNode more = json(base + "?attempt=1&offset=" + first.get("next").asLong(), 200);
    assertThat(more.get("offset").asLong()).isEqualTo(4);
    assertThat(more.get("text").asText()).isEqualTo("two\ntrês\n");
    assertThat(more.get("next").asLong()).isEqualTo(14);
    assertThat(more.get("finished").asBoolean()).isFalse();
    JsonNode nothing = json(base + "?attempt=1&offset=14", 200);
    assertThat(nothing.get("text").asText()).isEmpty();
    assertThat(nothing.get("next").asLong()).isEqualTo(14);
    JsonNode past = json(base + "?attempt=1&offset=1000", 200);
    assertThat(past.get("offset").asLong()).isEqualTo(14);
    queue.complete(claim.lease());
    assertThat(json(base + "?attempt=1&offset=14", 200).get("finished").asBoolean()).isTrue();
  }

  @Test
  void everyStatusCodeHasItsOneLineError() throws Exception {
    List<Job> jobs = ciRun(unit(), JobSpec.required("lint", "x86"));
    Job claimed = jobs.get(0);
    claim("host-a");
    Job queued = jobs.get(1);
    long id = claimed.id().value();

    assertThat(json("/api/v1/jobs/" + queued.id().value(), 200).get("attempts")).isEmpty();
    assertThat(json("/api/v1/jobs/" + queued.id().value(), 200).get("logs")).isEmpty();
    assertThat(json("/api/v1/jobs/" + id + "/log?attempt=1", 200).get("text").asText()).isEmpty();

    assertError("/api/v1/jobs/999999", 404, "no job 999999 in the queue");
    assertError("/api/v1/jobs/999999/log", 404, "no job 999999 in the queue");
    assertError("/api/v1/jobs/abc", 400, "job id 'abc' is not a number");
    assertError("/api/v1/jobs/0", 400, "job id 0 is out of range; expected 1 or more");
    assertError("/api/v1/jobs/-3", 400, "job id -3 is out of range");
    assertError("/api/v1/jobs/99999999999999999999", 400, "is not a number");
    assertError("/api/v1/jobs/" + id + "/log?attempt=0", 400, "attempt 0 is out of range; expected 1 or more");
    assertError("/api/v1/jobs/" + id + "/log?attempt=x", 400, "attempt 'x' is not a number");
    assertError("/api/v1/jobs/" + id + "/log?attempt=1&offset=-1", 400, "offset -1 is negative");
    assertError("/api/v1/jobs/" + id + "/log?attempt=1&offset=z", 400, "offset 'z' is not a number");
    assertError("/api/v1/jobs/" + id + "/log?attempt=9", 404, "job " + id + " has no attempt 9; it has 1");
    assertError("/api/v1/jobs/" + queued.id().value() + "/log", 404, "has not started: it has no log yet");

    HttpResponse<String> page = get("/jobs/" + id);
    assertThat(page.statusCode()).isEqualTo(200);
    assertThat(page.headers().firstValue("Content-Type").orElse("")).startsWith("text/html");
    assertThat(page.body()).contains("<script src=\"/job.js\"></script>").contains("<script src=\"/time.js\">");
    for (String asset : List.of("/job.js", "/time.js", "/app.js")) {
      HttpResponse<String> r = get(asset);
      assertThat(r.statusCode()).as(asset).isEqualTo(200);
      assertThat(r.headers().firstValue("Content-Type").orElse("")).startsWith("text/javascript");
      assertThat(r.body()).as(asset).doesNotContain("innerHTML").doesNotContain("insertAdjacentHTML")
          .doesNotContain("outerHTML").doesNotContain("document.write");
    }
    JsonNode index = json("/api/v1", 200);
    assertThat(index.get("endpoints").has("GET /api/v1/jobs/{id}")).isTrue();
    assertThat(index.get("endpoints").has("GET /api/v1/jobs/{id}/log?attempt=N&offset=K")).isTrue();
  }

  private void assertError(String path, int status, String message) throws Exception {
    HttpResponse<String> r = get(path);
    assertThat(r.statusCode()).as("%s: %s", path, r.body()).isEqualTo(status);
    assertThat(r.headers().firstValue("Content-Type").orElse("")).startsWith("application/json");
    JsonNode body = JSON.readTree(r.body());
    assertThat(body.size()).as(path).isEqualTo(1);
    assertThat(body.get("error").asText()).as(path).contains(message).doesNotContain("\n")
        .doesNotContain("Exception");
  }
}
