package dev.cipolicy.examples.fleet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.cipolicy.fleet.server.FleetServer;
import dev.cipolicy.queue.JobQueue;
import dev.cipolicy.queue.QueueSettings;
import dev.cipolicy.queue.model.CiRun;
import dev.cipolicy.queue.model.Claim;
import dev.cipolicy.queue.model.Failure;
import dev.cipolicy.queue.model.Job;
import dev.cipolicy.queue.model.JobSpec;
import dev.cipolicy.queue.model.LogChunk;
import dev.cipolicy.queue.spi.LeaseStatus;
import dev.cipolicy.queue.spi.SubmitResult;
import java.time.Duration;
import java.time.InstantSource;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.openqa.selenium.NoAlertPresentException;

/**
 * A job's own page in Debian's headless Chromium, over a fleet server on the in-memory store driven by hand: the
 * log followed live while the job runs, the attempts after a transient failure and a second claim, and queue
 * text made of HTML (a job name, a failure, a log) shown as text, creating no element and raising no alert.
 * Skipped without Chromium ({@link Chromium}) unless {@code CI_POLICY_BROWSER_REQUIRED=true}, which makes it fail
 * instead.
 */
class JobPageBrowserTest {
  @RegisterExtension
  static final Chromium browser = Chromium.window(1280, 800);

  private static final String SHA = "89abcdef0123456789abcdef0123456789abcdef";
  private static final String SCRIPT = "<script>alert(1)</script>";
  private static final String IMG = "\"><img src=x onerror=alert(1)>";
  private static final String IMG_NAME = "\"><img/src=x/onerror=alert(1)>";
  private static final AtomicLong RUNS = new AtomicLong(100);

  private static JobQueue queue;
  private static FleetServer server;
  /** The id of the script that records alerts, added to every new page for this class. */
  private static Object alertRecorder;

  @BeforeAll
  static void start() {
    QueueSettings settings = QueueSettings.builder().noJobs(true).leaseDuration(Duration.ofMinutes(10))
        .collectorTimeout(Duration.ofMinutes(10)).maxTransientRetries(2).build();
    queue = JobQueue.inMemory(InstantSource.system(), settings);
    server = FleetServer.builder(queue).port(0).tick(null).start();
    // Every page records the alerts it raises instead of showing them (and Selenium reports any shown one).
    alertRecorder = browser.driver().executeCdpCommand("Page.addScriptToEvaluateOnNewDocument", Map.of("source",
        "window.__alerts = []; window.alert = function (m) { window.__alerts.push(String(m)); };")).get("identifier");
  }

  @AfterAll
  static void stop() {
    if (alertRecorder != null) { // the browser serves the other classes too
      browser.driver().executeCdpCommand("Page.removeScriptToEvaluateOnNewDocument", Map.of("identifier",
          alertRecorder));
    }
    if (server != null) {
      server.close();
    }
  }

  /**
   * A CI run of acme/widgets (a new run id each time) with jobs of the given names on a pool of its own, served by
   * one collector named {@code host-<pool>}, so that no test claims another's jobs.
   */
  private static List<Job> ciRun(String pool, String... names) {
    queue.registerCollector("host-" + pool, pool, true);
    CiRun run = CiRun.of("acme/widgets", RUNS.incrementAndGet(), 1, SHA, "push");
    SubmitResult r = queue.submitCiRun(run, java.util.Arrays.stream(names).map(n -> JobSpec.required(n, pool))
        .toList());
    assertThat(r.status()).isEqualTo(SubmitResult.Status.CREATED);
    return queue.store().jobs(r.request().id());
  }

  private static Claim claim(String host, Job expected) {
    List<Claim> claims = queue.claim(host).claims();
    assertThat(claims).hasSize(1);
    assertThat(claims.get(0).job().id()).isEqualTo(expected.id());
    return claims.get(0);
  }

  private static void open(String path) {
    browser.driver().get("http://127.0.0.1:" + server.port() + path);
  }

  @Test
  void theLogIsFollowedLiveWhileTheJobRuns() {
    Job job = ciRun("live", "live").get(0);
    Claim claim = claim("host-live", job);
    assertThat(queue.appendLog(claim.lease(), List.of(LogChunk.ofText("line 1\n")))).isEqualTo(LeaseStatus.OK);
    open("/jobs/" + job.id().value());
    browser.waitUpTo(10).until(d -> browser.text("#log-text").equals("line 1\n"));
    assertThat(browser.text("#job-title")).isEqualTo("live@live #" + job.id().value());
    assertThat(browser.text("dd[data-fact='state']")).isEqualTo("leased");
    assertThat(browser.js("return document.getElementById('back').getAttribute('href')")).isEqualTo("/");
    assertThat(browser.js("return document.getElementById('ci-run').getAttribute('href')"))
        .isEqualTo("https://github.com/acme/widgets/actions/runs/" + RUNS.get() + "/attempts/1");
    assertThat(browser.js("return document.getElementById('ci-run-item').hidden")).isEqualTo(false);
    // One time format: local time and how far off, the exact UTC instant on hover.
    assertThat(browser.text("#attempt-table tr[data-attempt='1'] td:nth-child(4)"))
        .matches("[0-9]{2}:[0-9]{2}:[0-9]{2}, (now|.+ ago)");
    assertThat(browser.js("return document.querySelector(\"#attempt-table tr[data-attempt='1'] time\").title"))
        .asString().matches("[0-9]{4}-[0-9]{2}-[0-9]{2} [0-9]{2}:[0-9]{2}:[0-9]{2} UTC");

    // Lines appended while the page is open appear, in order, without reloading it.
    browser.js("document.getElementById('log-text').dataset.marker = 'same page';");
    for (int i = 2; i <= 4; i++) {
      assertThat(queue.appendLog(claim.lease(), List.of(LogChunk.ofText("line " + i + "\n"))))
          .isEqualTo(LeaseStatus.OK);
      String expected = "line 1\nline 2\nline 3\nline 4\n".substring(0, 7 * i);
      browser.waitUpTo(10).until(d -> browser.text("#log-text").equals(expected));
    }
    assertThat(browser.js("return document.getElementById('log-text').dataset.marker")).isEqualTo("same page");
    assertThat(browser.text("#log-state")).isEqualTo("following, 28 bytes");

    // The end of the attempt ends the following.
    assertThat(queue.complete(claim.lease()).status()).isEqualTo(LeaseStatus.OK);
    browser.waitUpTo(10).until(d -> browser.text("#log-state").startsWith("finished"));
    browser.waitUpTo(10)
        .until(d -> browser.text("#attempt-table tr[data-attempt='1'] .attempt-outcome").equals("succeeded"));
    assertThat(browser.text("#log-text")).isEqualTo("line 1\nline 2\nline 3\nline 4\n");
  }

  @Test
  void attemptsAreListedAfterATransientFailureAndASecondClaim() {
    Job job = ciRun("flaky", "flaky").get(0);
    Claim first = claim("host-flaky", job);
    queue.appendLog(first.lease(), List.of(LogChunk.ofText("try one\n")));
    open("/jobs/" + job.id().value());
    browser.waitUpTo(10).until(d -> browser.count("#attempt-table tbody tr[data-attempt]") == 1);
    assertThat(browser.text("#attempt-table tr[data-attempt='1'] .attempt-outcome")).isEqualTo("running");

    assertThat(queue.fail(first.lease(), Failure.transientFailure("network unreachable")).status())
        .isEqualTo(LeaseStatus.OK);
    Claim second = claim("host-flaky", job);
    queue.appendLog(second.lease(), List.of(LogChunk.ofText("try two\n")));
    browser.waitUpTo(10).until(d -> browser.count("#attempt-table tbody tr[data-attempt]") == 2);
    assertThat(browser.text("#attempt-table tr[data-attempt='1'] .attempt-host")).isEqualTo("host-flaky");
    assertThat(browser.text("#attempt-table tr[data-attempt='1'] .attempt-outcome")).isEqualTo("transient_failure");
    assertThat(browser.text("#attempt-table tr[data-attempt='1'] .attempt-error")).isEqualTo("network unreachable");
    assertThat(browser.text("#attempt-table tr[data-attempt='1'] td:nth-child(5)"))
        .matches("[0-9]{2}:[0-9]{2}:[0-9]{2}, .+");
    assertThat(browser.text("#attempt-table tr[data-attempt='2'] .attempt-host")).isEqualTo("host-flaky");
    assertThat(browser.text("#attempt-table tr[data-attempt='2'] .attempt-outcome")).isEqualTo("running");
    assertThat(browser.text("#attempt-table tr[data-attempt='2'] td:nth-child(5)")).isEqualTo("running");
    // The log follows the new attempt; the first stays readable from the picker.
    browser.waitUpTo(10).until(d -> browser.text("#log-text").equals("try two\n"));
    assertThat(browser.count("#log-attempt option")).isEqualTo(2);
    browser.js("const p = document.getElementById('log-attempt'); p.value = '1';"
        + " p.dispatchEvent(new Event('change'));");
    browser.waitUpTo(10).until(d -> browser.text("#log-text").equals("try one\n"));
    assertThat(browser.text("dd[data-fact='last-error']")).isEqualTo("network unreachable");
    browser.screenshot("job-page-1280x800.png");
  }

  @Test
  void queueTextMadeOfHtmlIsShownAsTextAndCreatesNoElement() {
    String longText = "x".repeat(9_990) + "<b>bold</b>";
    assertThat(longText).hasSize(10_001);
    List<Job> jobs = ciRun("xss", SCRIPT, IMG_NAME);
    Job job = jobs.get(0);
    Claim claim = claim("host-xss", job);
    String log = SCRIPT + "\n" + IMG + "\n" + longText + "\n";
    assertThat(queue.appendLog(claim.lease(), List.of(LogChunk.ofText(log)))).isEqualTo(LeaseStatus.OK);
    String detail = IMG + " " + SCRIPT + " " + "y".repeat(3_000);
    assertThat(queue.fail(claim.lease(), Failure.permanent(detail)).status()).isEqualTo(LeaseStatus.OK);

    open("/jobs/" + job.id().value());
    browser.waitUpTo(10).until(d -> browser.text("#log-text").equals(log));
    assertThat(browser.text("#job-title")).isEqualTo(SCRIPT + "@xss #" + job.id().value());
    assertThat((String) browser.js("return document.title")).isEqualTo("Job " + SCRIPT + "@xss #" + job.id().value());
    assertThat(browser.text("dd[data-fact='group']")).isEqualTo(SCRIPT);
    assertThat(browser.text("dd[data-fact='failure']")).contains(detail);
    assertThat(browser.text("#attempt-table tr[data-attempt='1'] .attempt-error")).contains(detail);
    assertNoElementFromQueueText();

    // The status page links the job names to their pages, as text too.
    open("/");
    String other = IMG_NAME + "@xss #" + jobs.get(1).id().value();
    browser.waitUpTo(10).until(d -> browser.count("#waiting-table a.job-link") > 0);
    assertThat(browser.js("return Array.from(document.querySelectorAll('#waiting-table a.job-link'))"
        + ".map(a => a.textContent + ' -> ' + a.getAttribute('href')).join('|')"))
        .isEqualTo(other + " -> /jobs/" + jobs.get(1).id().value());
    String failedLink = "#in-progress-list li[data-job='" + job.id().value() + "'] a.job-link";
    browser.waitUpTo(10).until(d -> browser.count(failedLink) > 0);
    assertThat(browser.text(failedLink)).isEqualTo(SCRIPT + "@xss #" + job.id().value());
    assertThat(browser.js("return document.querySelector(arguments[0]).getAttribute('href')", failedLink))
        .isEqualTo("/jobs/" + job.id().value());
    assertNoElementFromQueueText();
    browser.js("document.querySelector('#waiting-table a.job-link').click();");
    browser.waitUpTo(10).until(d -> browser.text("#job-title").equals(other));
    assertNoElementFromQueueText();
  }

  /** No image, no script but the page's own, no alert raised or shown. */
  private static void assertNoElementFromQueueText() {
    assertThat(browser.count("img")).isZero();
    assertThat(browser.count("b")).isZero();
    assertThat(browser.js("return Array.from(document.scripts).map(s => s.getAttribute('src')).join(',')"))
        .isIn("/time.js,/job.js", "/accounting.js,/time.js,/app.js");
    assertThat(browser.js("return window.__alerts.length")).isEqualTo(0L);
    assertThatThrownBy(() -> browser.driver().switchTo().alert()).isInstanceOf(NoAlertPresentException.class);
  }
}
