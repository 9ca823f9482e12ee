package dev.cipolicy.examples.fleet;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@code GET /api/v1/accounting} over HTTP against a started demo fleet: the document's fields and types once jobs
 * have run (GPU-hours per cadence and pool, waits per GPU count, sampled share use), that the GPU-hours of a
 * window fit in the fleet's GPUs times the window, and the 400 of a bad window.
 */
class AccountingApiTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
  private static Fleet fleet;

  @BeforeAll
  static void start() {
    fleet = Fleet.inMemory(TestFleets.fast(false));
  }

  @AfterAll
  static void stop() {
    fleet.close();
  }

  private static HttpResponse<String> get(String path) throws IOException, InterruptedException {
    return HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + fleet.port() + path)).GET().build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private static JsonNode accounting(String window) throws IOException, InterruptedException {
    HttpResponse<String> r = get("/api/v1/accounting?window=" + window);
    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(r.headers().firstValue("Content-Type").orElse("")).startsWith("application/json");
    return JSON.readTree(r.body());
  }

  @Test
  void theAccountingHasTheDocumentedFieldsOnceJobsHaveRun() throws Exception {
    AtomicReference<JsonNode> got = new AtomicReference<>();
    // an answer is kept 10 s, so the runs of the first seconds show up in the one after
    TestFleets.await("GPU-hours and waits of finished jobs", Duration.ofSeconds(60), () -> {
      try {
        JsonNode a = accounting("1d");
        got.set(a);
        return a.get("gpuHours").size() > 0 && a.get("waits").size() > 0;
      } catch (IOException | InterruptedException e) {
        throw new AssertionError(e);
      }
    });
    JsonNode a = got.get();
    assertThat(a.get("windowSeconds").asDouble()).isEqualTo(86_400.0);
    assertThat(Duration.between(Instant.parse(a.get("from").asText()), Instant.parse(a.get("at").asText())))
        .isEqualTo(Duration.ofDays(1));
    assertThat(a.get("jobsWithoutStart").isInt()).isTrue();
    assertThat(a.get("truncated").asBoolean()).isFalse();
    JsonNode g = a.get("gpuHours").get(0);
    assertThat(g.get("cadence").asText()).isIn("regular", "nightly");
    assertThat(g.get("pool").isTextual()).isTrue();
    assertThat(g.get("gpuHours").isNumber()).isTrue();
    assertThat(g.get("runs").asInt()).isPositive();
    for (JsonNode w : a.get("waits")) {
      assertThat(w.get("gpus").asInt()).isBetween(0, 8);
      assertThat(w.get("jobs").asInt()).isPositive();
      double p50 = w.get("p50Seconds").asDouble();
      double p90 = w.get("p90Seconds").asDouble();
      double p99 = w.get("p99Seconds").asDouble();
      assertThat(p50).isGreaterThanOrEqualTo(0).isLessThanOrEqualTo(p90);
      assertThat(p90).isLessThanOrEqualTo(p99);
    }
    // the demo's shares (nightly of h200, ...) are sampled on the first refresh
    assertThat(a.get("shareUse").size()).isPositive();
    JsonNode s = a.get("shareUse").get(0);
    assertThat(s.get("at").size()).isPositive().isEqualTo(s.get("used").size());
    assertThat(s.get("unit").asText()).isIn("gpus", "runners");
  }

  @Test
  void theGpuHoursOfAWindowFitInTheFleetTimesTheWindow() throws Exception {
    // a GPU job has run in the window (a CPU job's row has zero GPU-hours)
    TestFleets.await("a GPU job that ran", Duration.ofSeconds(60), () -> {
      try {
        for (JsonNode g : accounting("1m").get("gpuHours")) {
          if (g.get("gpuHours").asDouble() > 0) {
            return true;
          }
        }
        return false;
      } catch (IOException | InterruptedException e) {
        throw new AssertionError(e);
      }
    });
    double total = 0;
    for (JsonNode g : accounting("1m").get("gpuHours")) {
      total += g.get("gpuHours").asDouble();
    }
    // five 8-GPU hosts and two CPU runners: at most 40 GPUs over one minute
    assertThat(total).isPositive().isLessThanOrEqualTo(40.0 / 60.0 + 0.001);
  }

  @Test
  void aBadWindowIsA400WithOneLine() throws Exception {
    for (String bad : List.of("7w", "0m", "32d", "abc", "1.5d")) {
      HttpResponse<String> r = get("/api/v1/accounting?window=" + bad);
      assertThat(r.statusCode()).as(bad).isEqualTo(400);
      String error = JSON.readTree(r.body()).get("error").asText();
      assertThat(error).startsWith("window '" + bad + "'").doesNotContain("\n").doesNotContain("Exception");
    }
    assertThat(get("/api/v1/accounting").statusCode()).isEqualTo(200);
    assertThat(JSON.readTree(get("/api/v1").body()).get("endpoints").has("GET /api/v1/accounting?window=7d"))
        .isTrue();
  }
}
