package dev.cipolicy.examples.fleet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.fail;

import dev.cipolicy.fleet.server.FleetServer;
import dev.cipolicy.queue.JobQueue;
import dev.cipolicy.queue.QueueSettings;
import dev.cipolicy.queue.model.Devices;
import dev.cipolicy.queue.model.JobSpec;
import dev.cipolicy.queue.model.NewRequest;
import dev.cipolicy.queue.spi.ClaimCommand;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.Keys;
import org.openqa.selenium.StaleElementReferenceException;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.interactions.Actions;
import org.openqa.selenium.support.ui.Select;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * The waiting work on the status page, in headless Chromium, over a fleet that stands still (a fixed clock, no
 * site loop): host {@code h0} (8 GPUs) runs an 8-GPU job and is reserved for the 4-GPU job behind it, runner
 * {@code c0} may take a CPU job now, and a second request (PR 42) has not started (the cap is one). Skipped
 * without Chromium unless {@code CI_POLICY_BROWSER_REQUIRED=true}.
 */
class WaitingWorkBrowserTest {
  private static final Path CHROMIUM = Path.of("/usr/bin/chromium");
  private static final Path CHROMEDRIVER = Path.of("/usr/bin/chromedriver");

  private static FleetServer server;
  private static WebDriver driver;
  private static Path profile;

  @BeforeAll
  static void start() throws IOException {
    if (!Files.isExecutable(CHROMIUM) || !Files.isExecutable(CHROMEDRIVER)) {
      String why = "no " + (Files.isExecutable(CHROMIUM) ? CHROMEDRIVER : CHROMIUM)
          + " (apt-get install chromium chromium-driver)";
      if ("true".equalsIgnoreCase(System.getProperty("CI_POLICY_BROWSER_REQUIRED"))
          || "true".equalsIgnoreCase(System.getenv("CI_POLICY_BROWSER_REQUIRED"))) {
        fail("CI_POLICY_BROWSER_REQUIRED=true but " + why);
      }
      Assumptions.abort(why);
    }
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

    profile = Files.createTempDirectory("fleet-chromium-");
    ChromeOptions options = new ChromeOptions();
    options.setBinary(CHROMIUM.toFile());
    options.addArguments("--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync",
        "--user-data-dir=" + profile, "--window-size=1280,800");
    driver = new ChromeDriver(new ChromeDriverService.Builder()
        .usingDriverExecutable(new File(CHROMEDRIVER.toString())).usingAnyFreePort().build(), options);
  }

  @AfterAll
  static void stop() throws IOException {
    if (driver != null) {
      driver.quit();
    }
    if (server != null) {
      server.close();
    }
    if (profile != null) {
      try (var files = Files.walk(profile)) {
        files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      }
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
    driver.get(base() + path);
    waitUpTo(20).until(d -> count("#waiting-table tbody tr") > 0 && !js("return document.body.dataset.updated || ''")
        .isEmpty());
  }

  private static WebDriverWait waitUpTo(int seconds) {
    WebDriverWait w = new WebDriverWait(driver, Duration.ofSeconds(seconds), Duration.ofMillis(200));
    w.ignoring(StaleElementReferenceException.class);
    return w;
  }

  private static String js(String script, Object... args) {
    Object o = ((JavascriptExecutor) driver).executeScript(script, args);
    return o == null ? "" : o.toString();
  }

  private static String text(String css) {
    return js("const e = document.querySelector(arguments[0]); return e ? e.textContent : null;", css);
  }

  private static long count(String css) {
    return (Long) ((JavascriptExecutor) driver).executeScript("return document.querySelectorAll(arguments[0]).length;",
        css);
  }

  /** A time element as the page draws it: its datetime, its title (UTC) and its text. */
  private static String timeOf(String css) {
    return js("const e = document.querySelector(arguments[0]); return e ? e.getAttribute('datetime') + ' | '"
        + " + e.title + ' | ' + e.textContent : null;", css);
  }

  @Test
  void aWaitingJobShowsItsRequestAndExpectedStartAndTheJobsOfARequestNotStartedFollow() throws IOException {
    String small = "#waiting-table tr[data-state='waiting'][data-kind='reserved-for-it']";
    assertThat(text(small + " td.job")).isEqualTo("small@gpu #2");
    assertThat(text(small + " td.job-request")).isEqualTo("master aaaa1111 · regular");
    // Expected in an hour: when h0's 8-GPU job is expected to end.
    assertThat(timeOf(small + " td.job-start time"))
        .matches("2026-12-06T10:00:00Z \\| 2026-12-06 10:00:00 UTC \\| [0-9]{2}:00:00, in 1 h 0 min");
    // The CPU job is claimable now.
    assertThat(text("#waiting-table tr[data-state='waiting'][data-kind='claimable'] td.job-start"))
        .matches("[0-9]{2}:00:00, now");
    // The three jobs of the request not started, behind the waiting ones, marked and without a start.
    List<String> states = new ArrayList<>();
    driver.findElements(By.cssSelector("#waiting-table tbody tr")).forEach(r -> states.add(r.getAttribute("data-state")));
    assertThat(states).containsExactly("waiting", "waiting", "not-started", "not-started", "not-started");
    assertThat(text("#waiting-table tr.not-started td.job")).isEqualTo("big@gpunot started");
    assertThat(text("#waiting-table tr.not-started td.job-request")).isEqualTo("master bbbb2222 (PR #42) · regular");
    assertThat(text("#waiting-table tr.not-started td.job-start")).isEqualTo("unknown: its request has not started");
    assertThat(text("#waiting-table tr.not-started td.job-wait-reason")).startsWith("cap of 1 request in progress reached");
    // A job without an estimate says so instead of a run time.
    assertThat(text("#waiting-table tr[data-kind='claimable'] td.job-runs")).isEqualTo("no estimate");
    shot("waiting-work-1280x800.png");
  }

  /** A screenshot of the queue section, to {@code target/screenshots}. */
  private static void shot(String name) throws IOException {
    js("document.getElementById('queue').scrollIntoView();");
    Path dir = Path.of("target", "screenshots");
    Files.createDirectories(dir);
    Files.copy(((org.openqa.selenium.TakesScreenshot) driver).getScreenshotAs(org.openqa.selenium.OutputType.FILE)
        .toPath(), dir.resolve(name), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
  }

  @Test
  void aReservationHasOneTimeInTheGpuMapAndInTheWaitReason() {
    String gpuMap = timeOf("#host-h0 h3 time");
    assertThat(gpuMap).startsWith("2026-12-06T10:00:00Z | ");
    assertThat(timeOf("#waiting-table tr[data-kind='reserved-for-it'] td.job-wait-reason time")).isEqualTo(gpuMap);
    assertThat(timeOf("#waiting-table tr[data-kind='reserved-for-it'] td.job-start time")).isEqualTo(gpuMap);
    // The sentence around it: the store's wording, with the instant in the page's format.
    assertThat(text("#waiting-table tr[data-kind='reserved-for-it'] td.job-wait-reason"))
        .startsWith("needs 4 GPUs; host h0 reserved for it, 0 of 8 free, expected free at ")
        .doesNotContain("2026-12-06T");
    // Every time on the page has the one format: a time element with the UTC instant in its title.
    assertThat(js("return [...document.querySelectorAll('time')].filter(t => !/^[0-9]{4}-[0-9]{2}-[0-9]{2} "
        + "[0-9]{2}:[0-9]{2}:[0-9]{2} UTC$/.test(t.title) || !/^[0-9]{2}:[0-9]{2}:[0-9]{2}, /.test(t.textContent))"
        + ".length")).isEqualTo("0");
    assertThat(count("#collector-table td.heartbeat time")).isEqualTo(2);
    // ... and no instant is left as raw ISO text anywhere (the queue's "in progress since ..." included).
    assertThat(text("#queue-table tr[data-request='1'] td.wait-reason")).matches("in progress since [0-9]{2}:00:00, now");
    assertThat(js("return /[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:/.test(document.body.innerText)")).isEqualTo("false");
  }

  @Test
  void theFiltersAreKeptInTheUrlAndRestoredOnReload() {
    new Select(driver.findElement(By.id("filter-pool"))).selectByValue("gpu");
    waitUpTo(10).until(d -> js("return location.search").equals("?pool=gpu")
        && count("#waiting-table tr[data-kind='claimable']") == 0);
    driver.findElement(By.id("filter-q")).sendKeys("#42");
    waitUpTo(10).until(d -> js("return location.search").equals("?pool=gpu&q=%2342")
        && count("#waiting-table tr[data-state='waiting']") == 0);
    assertThat(count("#waiting-table tr.not-started")).isEqualTo(2);
    assertThat(js("return [...document.querySelectorAll('#queue-table tbody tr')].map(r => r.dataset.request)"
        + ".join()")).isEqualTo("2");

    driver.navigate().refresh();
    waitUpTo(20).until(d -> count("#waiting-table tr.not-started") == 2
        && count("#waiting-table tr[data-state='waiting']") == 0);
    assertThat(js("return document.getElementById('filter-pool').value")).isEqualTo("gpu");
    assertThat(js("return document.getElementById('filter-q').value")).isEqualTo("#42");

    // A shared link opens with its filters.
    load("/?state=waiting&cadence=regular");
    waitUpTo(10).until(d -> count("#waiting-table tr.not-started") == 0);
    assertThat(js("return document.getElementById('filter-state').value")).isEqualTo("waiting");
    assertThat(js("return document.getElementById('filter-cadence').value")).isEqualTo("regular");
    assertThat(count("#waiting-table tr[data-state='waiting']")).isEqualTo(2);
    driver.findElement(By.id("filter-clear")).click();
    waitUpTo(10).until(d -> js("return location.search").isEmpty() && count("#waiting-table tr.not-started") == 3);
  }

  @Test
  void theWaitingJobsComeInPagesKeptInTheUrl() {
    load("/");
    assertThat(text("#waiting-count")).isEqualTo("Showing 1–5 of 5 jobs (2 waiting, 3 not started)");
    assertThat(text("#waiting-pools")).isEqualTo("By pool: cpu 1 + 1 not started · gpu 1 + 2 not started");
    assertThat(js("return String(document.getElementById('waiting-next').hidden)")).isEqualTo("true");

    // Two a page: the first two, then a link to the next two.
    load("/?limit=2");
    assertThat(count("#waiting-table tbody tr")).isEqualTo(2);
    assertThat(text("#waiting-count")).isEqualTo("Showing 1–2 of 5 jobs (2 waiting, 3 not started)");
    assertThat(js("return String(document.getElementById('waiting-prev').hidden)")).isEqualTo("true");
    assertThat(js("return document.getElementById('waiting-next').getAttribute('href')")).isEqualTo("?offset=2&limit=2");
    driver.findElement(By.id("waiting-next")).click();
    waitUpTo(10).until(d -> js("return location.search").equals("?offset=2&limit=2")
        && text("#waiting-count").startsWith("Showing 3–4 of 5"));
    assertThat(count("#waiting-table tr.not-started")).isEqualTo(2);
    assertThat(text("#waiting-next")).isEqualTo("Next 1");
    driver.findElement(By.id("waiting-next")).click();
    waitUpTo(10).until(d -> text("#waiting-count").startsWith("Showing 5–5 of 5"));
    assertThat(js("return String(document.getElementById('waiting-next').hidden)")).isEqualTo("true");

    // A reload shows the page the URL names; Back the page before.
    driver.navigate().refresh();
    waitUpTo(20).until(d -> text("#waiting-count").startsWith("Showing 5–5 of 5"));
    driver.navigate().back();
    waitUpTo(10).until(d -> text("#waiting-count").startsWith("Showing 3–4 of 5"));
    driver.findElement(By.id("waiting-prev")).click();
    waitUpTo(10).until(d -> js("return location.search").equals("?limit=2")
        && text("#waiting-count").startsWith("Showing 1–2 of 5"));

    // A filter counts what it keeps and starts again from its first page.
    load("/?offset=2&limit=2");
    new Select(driver.findElement(By.id("filter-state"))).selectByValue("not-started");
    waitUpTo(10).until(d -> js("return location.search").equals("?state=not-started&limit=2")
        && text("#waiting-count").equals("Showing 1–2 of 3 jobs (0 waiting, 3 not started)"));
  }

  @Test
  void atPhoneWidthTheBodyDoesNotOverflowAndTablesScrollInTheirOwnBox() throws Exception {
    ((ChromeDriver) driver).executeCdpCommand("Emulation.setDeviceMetricsOverride", Map.of("width", 390, "height",
        844, "deviceScaleFactor", 1, "mobile", true));
    try {
      load("/");
      Thread.sleep(300);
      assertThat(js("return document.documentElement.clientWidth")).isEqualTo("390");
      // On failure, the outermost elements that stick out on the right.
      String wide = js("return [...document.querySelectorAll('body *')].filter(e => e.getBoundingClientRect().right"
          + " > 391 && e.parentElement.getBoundingClientRect().right <= 391).map(e => e.tagName + '#' + e.id + '.'"
          + " + e.className + ' ' + Math.round(e.getBoundingClientRect().right)).join(', ')");
      assertThat(js("return document.documentElement.scrollWidth")).as(wide).isEqualTo("390");
      assertThat(js("return document.body.scrollWidth <= 390")).isEqualTo("true");
      // The waiting table is wider than the phone: it scrolls inside its container, not the page.
      assertThat(js("const t = document.getElementById('waiting-table'), box = t.closest('.scroll');"
          + " return box !== null && getComputedStyle(box).overflowX === 'auto' && box.clientWidth <= 390"))
          .isEqualTo("true");
    } finally {
      ((ChromeDriver) driver).executeCdpCommand("Emulation.clearDeviceMetricsOverride", Map.of());
    }
  }

  @Test
  void theFiltersAndLinksAreReachedWithTabAndShowTheirFocus() {
    js("document.activeElement && document.activeElement.blur();");
    List<String> reached = new ArrayList<>();
    String outline = "";
    for (int i = 0; i < 30; i++) {
      new Actions(driver).sendKeys(Keys.TAB).perform();
      String id = js("const e = document.activeElement; return e.id || (e.tagName + ' ' + e.getAttribute('href'));");
      reached.add(id);
      if (id.equals("filter-pool")) {
        outline = js("const s = getComputedStyle(document.activeElement); return s.outlineStyle + ' ' + s.outlineWidth;");
      }
    }
    assertThat(reached).contains("A #main", "A #queue", "filter-pool", "filter-cadence", "filter-state", "filter-pr",
        "filter-q", "filter-clear");
    assertThat(outline).isEqualTo("solid 3px");
  }
}
