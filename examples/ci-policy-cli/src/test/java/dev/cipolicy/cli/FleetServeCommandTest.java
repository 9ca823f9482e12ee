package dev.cipolicy.cli;

import static dev.cipolicy.cli.CliTestSupport.POLICY;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.zaxxer.hikari.HikariDataSource;
import dev.cipolicy.fleet.server.FleetServer;
import dev.cipolicy.postgres.PostgresQueueStore;
import dev.cipolicy.queue.JobQueue;
import dev.cipolicy.queue.QueueSettings;
import dev.cipolicy.queue.model.CiRun;
import dev.cipolicy.queue.model.JobSpec;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;
import picocli.CommandLine;

/**
 * {@code ci-policy fleet serve} started in-process on a free port: what it prints, the page and its JSON API over
 * HTTP, the refusal of a request for another host, read-only without a token, the in-memory store by default and
 * a PostgreSQL store ({@code CI_POLICY_PG_URL}; skipped when unreachable unless {@code CI_POLICY_PG_REQUIRED=true})
 * whose CI run the site loop starts.
 */
class FleetServeCommandTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
  private static final Pattern URL = Pattern.compile("http://127\\.0\\.0\\.1:(\\d+)/");

  private final ExecutorService thread = Executors.newSingleThreadExecutor();
  private final ByteArrayOutputStream out = new ByteArrayOutputStream();
  private final ByteArrayOutputStream err = new ByteArrayOutputStream();
  private FleetServeCommand command;
  private Future<Integer> exit;
  private PgTestServer pg;
  private String schema;

  /** Starts {@code ci-policy fleet serve ARGS} and waits for the URL it prints; returns the port. */
  private int serve(Map<String, String> env, String... args) throws Exception {
    CiPolicyCli cli = new CiPolicyCli(env, CliTestSupport.REPO, new PrintStream(out, true, StandardCharsets.UTF_8),
        new PrintStream(err, true, StandardCharsets.UTF_8));
    CommandLine root = CiPolicyCli.commandLine(cli);
    command = root.getSubcommands().get("fleet").getSubcommands().get("serve").getCommand();
    exit = thread.submit(() -> root.execute(args));
    await("the URL it serves", () -> URL.matcher(stdout()).find() || exit.isDone());
    Matcher m = URL.matcher(stdout());
    assertThat(m.find()).as("stdout: %s%nstderr: %s", stdout(), err.toString(StandardCharsets.UTF_8)).isTrue();
    return Integer.parseInt(m.group(1));
  }

  private String stdout() {
    return out.toString(StandardCharsets.UTF_8);
  }

  @AfterEach
  void stop() throws Exception {
    if (command != null) {
      command.stop();
      assertThat(exit.get(60, TimeUnit.SECONDS)).isZero();
      assertThat(stdout()).contains("fleet serve: stopped");
    }
    thread.shutdownNow();
    if (schema != null) {
      pg.sql("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
    }
  }

  private static HttpResponse<String> get(int port, String path) throws IOException, InterruptedException {
    return HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).GET().build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private static JsonNode json(int port, String path) throws IOException, InterruptedException {
    HttpResponse<String> r = get(port, path);
    assertThat(r.statusCode()).as(path + ": " + r.body()).isEqualTo(200);
    assertThat(r.headers().firstValue("Content-Type").orElse("")).startsWith("application/json");
    return JSON.readTree(r.body());
  }

  /** Waits for a condition; the bound is generous because a shared machine may be slow to open the store. */
  private static void await(String what, BooleanSupplier condition) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("timed out waiting for " + what);
      }
      Thread.sleep(50);
    }
  }

  @Test
  void servesThePageAndItsApiOnTheInMemoryStoreReadOnly() throws Exception {
    int port = serve(Map.of(), "fleet", "serve", "--policy", POLICY, "--port", "0");
    assertThat(stdout()).contains("fleet serve: in-memory store").contains("read-only")
        .contains("fleet serve: http://127.0.0.1:" + port + "/ (JSON: /api/v1)");
    assertThat(stdout().lines()).noneMatch(l -> l.startsWith("::"));

    JsonNode index = json(port, "/api/v1");
    assertThat(index.get("version").asText()).isEqualTo("v1");
    assertThat(index.get("endpoints").size()).isEqualTo(FleetServer.ENDPOINTS.size());
    JsonNode overview = json(port, "/api/v1/overview");
    assertThat(overview.get("controls").asBoolean()).isFalse();
    assertThat(overview.get("leaseSeconds").asDouble()).isEqualTo(60.0);
    assertThat(overview.get("queue").isArray()).isTrue();
    assertThat(overview.get("collectors").size()).isZero();
    // The policy's fleet shares are the share bars' limits once a pool has a collector; none has one yet.
    assertThat(overview.get("shares").isArray()).isTrue();

    HttpResponse<String> page = get(port, "/");
    assertThat(page.statusCode()).isEqualTo(200);
    assertThat(page.headers().firstValue("Content-Type").orElse("")).startsWith("text/html");
    assertThat(page.body()).contains("<script src=\"/app.js\"");
    assertThat(get(port, "/app.js").statusCode()).isEqualTo(200);
    assertThat(get(port, "/app.css").statusCode()).isEqualTo(200);

    HttpResponse<String> cancel = HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port
        + "/api/v1/requests/1/cancel")).POST(HttpRequest.BodyPublishers.noBody()).build(),
        HttpResponse.BodyHandlers.ofString());
    assertThat(cancel.statusCode()).isEqualTo(403);
    assertThat(cancel.body()).contains("read-only");
  }

  @Test
  void aRequestForAHostItDoesNotServeIsRefusedAndAnAllowedHostIsServed() throws Exception {
    int port = serve(Map.of(), "fleet", "serve", "--policy", POLICY, "--port", "0", "--allowed-host",
        "fleet.example.org");
    assertThat(rawGet(port, "rebind.attacker.example:" + port)).startsWith("HTTP/1.1 421")
        .contains("does not serve host 'rebind.attacker.example:").doesNotContain("\"queue\"");
    assertThat(rawGet(port, "fleet.example.org:" + port)).startsWith("HTTP/1.1 200").contains("\"queue\"");
  }

  /** GET /api/v1/overview with a Host header of our choosing (the JDK's client cannot set one). */
  private static String rawGet(int port, String host) throws IOException {
    try (Socket socket = new Socket("127.0.0.1", port)) {
      socket.setSoTimeout(5000);
      socket.getOutputStream().write(("GET /api/v1/overview HTTP/1.1\r\nHost: " + host
          + "\r\nConnection: close\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
      return new String(socket.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  @Test
  void onPostgresqlTheSiteLoopStartsASubmittedCiRunAndThePageShowsIt() throws Exception {
    pg = PgTestServer.reachable();
    schema = PgTestServer.freshSchema("cli_serve_");
    PGSimpleDataSource ds = new PGSimpleDataSource();
    ds.setURL(pg.url());
    ds.setUser(pg.user());
    JobQueue queue = JobQueue.of(PostgresQueueStore.create(ds, schema), QueueSettings.builder().noJobs(true).build());
    queue.submitCiRun(CiRun.of("acme/trainer", 41, 1, "0123456789abcdef0123456789abcdef01234567", "pull_request")
        .withPr(7), List.of(JobSpec.builder().benchmarkGroup("gpu-tests-0of1").collectorTag("h200").gpus(2).build()));
    Map<String, String> env = new HashMap<>(Map.of("CI_POLICY_FLEET_STORE", pg.url(), "CI_POLICY_PG_USER", pg.user(),
        "CI_POLICY_FLEET_SCHEMA", schema, "FLEET_TOKEN", "operator-token-1"));
    int port = serve(env, "fleet", "serve", "--policy", POLICY, "--port", "0", "--token-env", "FLEET_TOKEN",
        "--store-pool", "2");
    assertThat(stdout()).contains("fleet serve: PostgreSQL store, schema " + schema).contains("controls on");
    // The store's connections come from a pool of the size asked for, closed when the server stops.
    HikariDataSource pool = command.pool();
    assertThat(pool).isNotNull();
    assertThat(pool.getMaximumPoolSize()).isEqualTo(2);
    assertThat(pool.isClosed()).isFalse();

    await("the run in progress", () -> {
      try {
        JsonNode p = json(port, "/api/v1/in-progress");
        return p.size() == 1 && p.get(0).get("request").get("pr").asLong() == 7;
      } catch (IOException | InterruptedException e) {
        return false;
      }
    });
    JsonNode waiting = json(port, "/api/v1/waiting-jobs");
    assertThat(waiting.size()).isEqualTo(1);
    assertThat(waiting.get(0).get("job").asText()).startsWith("gpu-tests-0of1@h200");
    assertThat(waiting.get(0).get("gpus").asInt()).isEqualTo(2);
    assertThat(json(port, "/api/v1/session").get("controls").asBoolean()).isTrue();
    assertThat(json(port, "/api/v1/overview").get("controls").asBoolean()).as("no credentials sent").isFalse();
    assertThat(pool.getHikariPoolMXBean().getTotalConnections()).isBetween(1, 2);
    command.stop();
    assertThat(exit.get(60, TimeUnit.SECONDS)).isZero();
    assertThat(pool.isClosed()).isTrue();
  }

  @Test
  void aTrustedProxyHeaderNamesTheOperatorFromTheProxysAddress() throws Exception {
    int port = serve(Map.of(), "fleet", "serve", "--policy", POLICY, "--port", "0", "--trusted-proxy-header",
        "X-Forwarded-User", "--trusted-proxy", "127.0.0.1");
    assertThat(stdout()).contains("fleet serve: controls on for the user in X-Forwarded-User from 127.0.0.1");
    HttpResponse<String> session = HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port
        + "/api/v1/session")).header("X-Forwarded-User", "alice").GET().build(), HttpResponse.BodyHandlers.ofString());
    assertThat(JSON.readTree(session.body()).get("operator").asText()).isEqualTo("alice");
    HttpResponse<String> pause = HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port
        + "/api/v1/pools/h200/pause")).header("X-Forwarded-User", "alice").POST(HttpRequest.BodyPublishers.noBody())
        .build(), HttpResponse.BodyHandlers.ofString());
    assertThat(pause.statusCode()).as("no pool is known yet").isEqualTo(404);
    JsonNode audit = json(port, "/api/v1/audit");
    assertThat(audit.get(0).get("actor").asText()).isEqualTo("alice");
    assertThat(audit.get(0).get("result").asText()).isEqualTo("not_found");
  }

  @Test
  void aTrustedProxyWithoutItsHeaderIsRefusedInOneLine() {
    CliTestSupport.Result r = CliTestSupport.run(Map.of(), "fleet", "serve", "--policy", POLICY, "--port", "0",
        "--trusted-proxy", "10.0.0.5");
    assertThat(r.code()).isEqualTo(CiPolicyCli.EXIT_ERROR);
    assertThat(r.err().lines().toList()).singleElement().asString().startsWith("::error")
        .contains("--trusted-proxy 10.0.0.5 is given without --trusted-proxy-header");
  }

  @Test
  void aStorePoolOutOfRangeIsRefusedAtStartInOneLine() {
    CliTestSupport.Result r = CliTestSupport.run(Map.of(), "fleet", "serve", "--policy", POLICY, "--port", "0",
        "--store-pool", "0");
    assertThat(r.code()).isEqualTo(CiPolicyCli.EXIT_ERROR);
    assertThat(r.err().lines().toList()).singleElement().asString().startsWith("::error")
        .contains("--store-pool 0 is out of range; expected 1 to 64");
  }

  @Test
  void aTokenTooShortIsRefusedAtStartInOneLine() {
    CliTestSupport.Result r = CliTestSupport.run(Map.of("FLEET_TOKEN", "short"), "fleet", "serve", "--policy", POLICY,
        "--port", "0", "--token-env", "FLEET_TOKEN");
    assertThat(r.code()).isEqualTo(CiPolicyCli.EXIT_ERROR);
    assertThat(r.err().lines().toList()).singleElement().asString().startsWith("::error")
        .contains("--token-env FLEET_TOKEN: the environment variable holds 5 characters");
  }
}
