package dev.cipolicy.examples.fleet;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cipolicy.fleet.server.FleetServer;
import dev.cipolicy.queue.JobQueue;
import dev.cipolicy.queue.QueueSettings;
import dev.cipolicy.queue.model.Devices;
import dev.cipolicy.queue.model.JobSpec;
import dev.cipolicy.queue.model.NewRequest;
import dev.cipolicy.queue.spi.ClaimCommand;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.openqa.selenium.By;
import org.openqa.selenium.Keys;
import org.openqa.selenium.interactions.Actions;
import org.openqa.selenium.support.ui.Select;

/**
 * The waiting work on the status page, in headless Chromium, over a fleet that stands still (a fixed clock, no
 * site loop): host {@code h0} (8 GPUs) runs an 8-GPU job and is reserved for the 4-GPU job behind it, runner
 * {@code c0} may take a CPU job now, and a second request (PR 42) has not started (the cap is one). Skipped
 * without Chromium ({@link Chromium}) unless {@code CI_POLICY_BROWSER_REQUIRED=true}.
 */
class WaitingWorkBrowserTest {
  @RegisterExtension
  static final Chromium browser = Chromium.window(1280, 800);

  private static FleetServer server;

  @BeforeAll
  static void start() {
    Clock clock = Clock.fixed(Instant.parse("2026-12-06T09:00:00Z"), ZoneOffset.UTC);
    QueueSettings settings = QueueSettings.builder().maxInProgress(1).planner(r -> List.of(
        JobSpec.required("big", "gpu").withGpus(8, Duration.ofHours(1)),
        JobSpec.required("small", "gpu").withGpus(4, Duration.ofMinutes(10)),
        JobSpec.required("lint", "cpu"))).build();
    JobQueue queue = JobQueue.inMemory(clock, settings);
    queue.store().registerCollector("h0", "gpu", true, Devices.count(8));
    queue.store().registerCollector("c0", "cpu", true, Devices.none());
    queue.store().submit(NewRequest.master("aaaa1111", null));
    queue.tick();
    assertThat(queue.store().claim(ClaimCommand.builder().collector("h0").leaseDuration(Duration.ofHours(2))
        .maxCrashRescues(1).build()).claims()).hasSize(1);
    queue.store().submit(NewRequest.master("bbbb2222", null).withPr(42));
    queue.tick();
    server = FleetServer.builder(queue).port(0).tick(null).start();

  }

  @AfterAll
  static void stop() {
    if (server != null) {
      server.close();
    }
  }

  @BeforeEach
  void open() {
    load("/");
  }

  private static String base() {
    return "http://127.0.0.1:" + server.port();
  }

  /** Opens a page of the server and waits until it has drawn the waiting jobs once. */
  private static void load(String path) {
    browser.driver().get(base() + path);
    browser.waitUpTo(20).until(d -> browser.count("#waiting-table tbody tr") > 0
        && !browser.jsText("return document.body.dataset.updated || ''").isEmpty());
  }

  /** A time element as the page draws it: its datetime, its title (UTC) and its text. */
  private static String timeOf(String css) {
    return browser.jsText("const e = document.querySelector(arguments[0]);"
        + " return e ? e.getAttribute('datetime') + ' | ' + e.title + ' | ' + e.textContent : null;", css);
  }

  @Test
  void aWaitingJobShowsItsRequestAndExpectedStartAndTheJobsOfARequestNotStartedFollow() {
    String small = "#waiting-table tr[data-state='waiting'][data-kind='reserved-for-it']";
    assertThat(browser.text(small + " td.job")).isEqualTo("small@gpu #2");
    assertThat(browser.text(small + " td.job-request")).isEqualTo("master aaaa1111 · regular");
    // Expected in an hour: when h0's 8-GPU job is expected to end.
    assertThat(timeOf(small + " td.job-start time"))
        .matches("2026-12-06T10:00:00Z \\| 2026-12-06 10:00:00 UTC \\| [0-9]{2}:00:00, in 1 h 0 min");
    // The CPU job is claimable now.
    assertThat(browser.text("#waiting-table tr[data-state='waiting'][data-kind='claimable'] td.job-start"))
        .matches("[0-9]{2}:00:00, now");
    // The three jobs of the request not started, behind the waiting ones, marked and without a start.
    List<String> states = new ArrayList<>();
    browser.driver().findElements(By.cssSelector("#waiting-table tbody tr"))
        .forEach(r -> states.add(r.getAttribute("data-state")));
    assertThat(states).containsExactly("waiting", "waiting", "not-started", "not-started", "not-started");
    assertThat(browser.text("#waiting-table tr.not-started td.job")).isEqualTo("big@gpunot started");
    assertThat(browser.text("#waiting-table tr.not-started td.job-request"))
        .isEqualTo("master bbbb2222 (PR #42) · regular");
    assertThat(browser.text("#waiting-table tr.not-started td.job-start"))
        .isEqualTo("unknown: its request has not started");
    assertThat(browser.text("#waiting-table tr.not-started td.job-wait-reason"))
        .startsWith("cap of 1 request in progress reached");
    // A job without an estimate says so instead of a run time.
    assertThat(browser.text("#waiting-table tr[data-kind='claimable'] td.job-runs")).isEqualTo("no estimate");
    browser.js("document.getElementById('queue').scrollIntoView();");
    browser.screenshot("waiting-work-1280x800.png");
  }

  @Test
  void aReservationHasOneTimeInTheGpuMapAndInTheWaitReason() {
    String gpuMap = timeOf("#host-h0 h3 time");
    assertThat(gpuMap).startsWith("2026-12-06T10:00:00Z | ");
    assertThat(timeOf("#waiting-table tr[data-kind='reserved-for-it'] td.job-wait-reason time")).isEqualTo(gpuMap);
    assertThat(timeOf("#waiting-table tr[data-kind='reserved-for-it'] td.job-start time")).isEqualTo(gpuMap);
    // The sentence around it: the store's wording, with the instant in the page's format.
    assertThat(browser.text("#waiting-table tr[data-kind='reserved-for-it'] td.job-wait-reason"))
        .startsWith("needs 4 GPUs; host h0 reserved for it, 0 of 8 free, expected free at ")
        .doesNotContain("2026-12-06T");
    // Every time on the page has the one format: a time element with the UTC instant in its title.
    assertThat(browser.jsText("return [...document.querySelectorAll('time')].filter(t => !/^[0-9]{4}-[0-9]{2}-[0-9]{2} "
        + "[0-9]{2}:[0-9]{2}:[0-9]{2} UTC$/.test(t.title) || !/^[0-9]{2}:[0-9]{2}:[0-9]{2}, /.test(t.textContent))"
        + ".length")).isEqualTo("0");
    assertThat(browser.count("#collector-table td.heartbeat time")).isEqualTo(2);
    // ... and no instant is left as raw ISO text anywhere (the queue's "in progress since ..." included).
    assertThat(browser.text("#queue-table tr[data-request='1'] td.wait-reason"))
        .matches("in progress since [0-9]{2}:00:00, now");
    assertThat(browser.jsText("return /[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:/.test(document.body.innerText)"))
        .isEqualTo("false");
  }

  @Test
  void theFiltersAreKeptInTheUrlAndRestoredOnReload() {
    new Select(browser.driver().findElement(By.id("filter-pool"))).selectByValue("gpu");
    browser.waitUpTo(10).until(d -> browser.jsText("return location.search").equals("?pool=gpu")
        && browser.count("#waiting-table tr[data-kind='claimable']") == 0);
    browser.driver().findElement(By.id("filter-q")).sendKeys("#42");
    browser.waitUpTo(10).until(d -> browser.jsText("return location.search").equals("?pool=gpu&q=%2342")
        && browser.count("#waiting-table tr[data-state='waiting']") == 0);
    assertThat(browser.count("#waiting-table tr.not-started")).isEqualTo(2);
    assertThat(browser.jsText("return [...document.querySelectorAll('#queue-table tbody tr')]"
        + ".map(r => r.dataset.request).join()")).isEqualTo("2");

    browser.driver().navigate().refresh();
    browser.waitUpTo(20).until(d -> browser.count("#waiting-table tr.not-started") == 2
        && browser.count("#waiting-table tr[data-state='waiting']") == 0);
    assertThat(browser.jsText("return document.getElementById('filter-pool').value")).isEqualTo("gpu");
    assertThat(browser.jsText("return document.getElementById('filter-q').value")).isEqualTo("#42");

    // A shared link opens with its filters.
    load("/?state=waiting&cadence=regular");
    browser.waitUpTo(10).until(d -> browser.count("#waiting-table tr.not-started") == 0);
    assertThat(browser.jsText("return document.getElementById('filter-state').value")).isEqualTo("waiting");
    assertThat(browser.jsText("return document.getElementById('filter-cadence').value")).isEqualTo("regular");
    assertThat(browser.count("#waiting-table tr[data-state='waiting']")).isEqualTo(2);
    browser.driver().findElement(By.id("filter-clear")).click();
    browser.waitUpTo(10).until(d -> browser.jsText("return location.search").isEmpty()
        && browser.count("#waiting-table tr.not-started") == 3);
  }

  @Test
  void theWaitingJobsComeInPagesKeptInTheUrl() {
    load("/");
    assertThat(browser.text("#waiting-count")).isEqualTo("Showing 1–5 of 5 jobs (2 waiting, 3 not started)");
    assertThat(browser.text("#waiting-pools")).isEqualTo("By pool: cpu 1 + 1 not started · gpu 1 + 2 not started");
    assertThat(browser.jsText("return String(document.getElementById('waiting-next').hidden)")).isEqualTo("true");

    // Two a page: the first two, then a link to the next two.
    load("/?limit=2");
    assertThat(browser.count("#waiting-table tbody tr")).isEqualTo(2);
    assertThat(browser.text("#waiting-count")).isEqualTo("Showing 1–2 of 5 jobs (2 waiting, 3 not started)");
    assertThat(browser.jsText("return String(document.getElementById('waiting-prev').hidden)")).isEqualTo("true");
    assertThat(browser.jsText("return document.getElementById('waiting-next').getAttribute('href')")).isEqualTo("?offset=2&limit=2");
    browser.driver().findElement(By.id("waiting-next")).click();
    browser.waitUpTo(10).until(d -> browser.jsText("return location.search").equals("?offset=2&limit=2")
        && browser.text("#waiting-count").startsWith("Showing 3–4 of 5"));
    assertThat(browser.count("#waiting-table tr.not-started")).isEqualTo(2);
    assertThat(browser.text("#waiting-next")).isEqualTo("Next 1");
    browser.driver().findElement(By.id("waiting-next")).click();
    browser.waitUpTo(10).until(d -> browser.text("#waiting-count").startsWith("Showing 5–5 of 5"));
    assertThat(browser.jsText("return String(document.getElementById('waiting-next').hidden)")).isEqualTo("true");

    // A reload shows the page the URL names; Back the page before.
    browser.driver().navigate().refresh();
    browser.waitUpTo(20).until(d -> browser.text("#waiting-count").startsWith("Showing 5–5 of 5"));
    browser.driver().navigate().back();
    browser.waitUpTo(10).until(d -> browser.text("#waiting-count").startsWith("Showing 3–4 of 5"));
    browser.driver().findElement(By.id("waiting-prev")).click();
    browser.waitUpTo(10).until(d -> browser.jsText("return location.search").equals("?limit=2")
        && browser.text("#waiting-count").startsWith("Showing 1–2 of 5"));

    // A filter counts what it keeps and starts again from its first page.
    load("/?offset=2&limit=2");
    new Select(browser.driver().findElement(By.id("filter-state"))).selectByValue("not-started");
    browser.waitUpTo(10).until(d -> browser.jsText("return location.search").equals("?state=not-started&limit=2")
        && browser.text("#waiting-count").equals("Showing 1–2 of 3 jobs (0 waiting, 3 not started)"));
  }

  @Test
  void atPhoneWidthTheBodyDoesNotOverflowAndTablesScrollInTheirOwnBox() throws Exception {
    browser.emulate(390, 844, true);
    try {
      load("/");
      Thread.sleep(300);
      assertThat(browser.jsText("return document.documentElement.clientWidth")).isEqualTo("390");
      // On failure, the outermost elements that stick out on the right.
      String wide = browser.jsText("return [...document.querySelectorAll('body *')]"
          + ".filter(e => e.getBoundingClientRect().right > 391 && e.parentElement.getBoundingClientRect().right <= 391)"
          + ".map(e => e.tagName + '#' + e.id + '.' + e.className + ' ' + Math.round(e.getBoundingClientRect().right))"
          + ".join(', ')");
      assertThat(browser.jsText("return document.documentElement.scrollWidth")).as(wide).isEqualTo("390");
      assertThat(browser.jsText("return document.body.scrollWidth <= 390")).isEqualTo("true");
      // The waiting table is wider than the phone: it scrolls inside its container, not the page.
      assertThat(browser.jsText("const t = document.getElementById('waiting-table'), box = t.closest('.scroll');"
          + " return box !== null && getComputedStyle(box).overflowX === 'auto' && box.clientWidth <= 390"))
          .isEqualTo("true");
    } finally {
      browser.clearEmulation();
    }
  }

  @Test
  void theFiltersAndLinksAreReachedWithTabAndShowTheirFocus() {
    browser.js("document.activeElement && document.activeElement.blur();");
    List<String> reached = new ArrayList<>();
    String outline = "";
    for (int i = 0; i < 30; i++) {
      new Actions(browser.driver()).sendKeys(Keys.TAB).perform();
      String id = browser.jsText("const e = document.activeElement;"
          + " return e.id || (e.tagName + ' ' + e.getAttribute('href'));");
      reached.add(id);
      if (id.equals("filter-pool")) {
        outline = browser.jsText("const s = getComputedStyle(document.activeElement);"
            + " return s.outlineStyle + ' ' + s.outlineWidth;");
      }
    }
    assertThat(reached).contains("A #main", "A #queue", "filter-pool", "filter-cadence", "filter-state", "filter-pr",
        "filter-q", "filter-clear");
    assertThat(outline).isEqualTo("solid 3px");
  }
}
