package dev.cipolicy.examples.fleet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.Dimension;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.Keys;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.StaleElementReferenceException;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.interactions.Actions;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * The status page in Debian's headless Chromium: what a person sees, and that it follows the fleet. Without
 * Chromium these tests are skipped, unless {@code CI_POLICY_BROWSER_REQUIRED=true} (system property or
 * environment), which makes them fail. Screenshots go to {@code target/screenshots}.
 */
class StatusPageBrowserTest {
  private static final Path CHROMIUM = Path.of("/usr/bin/chromium");
  private static final Path CHROMEDRIVER = Path.of("/usr/bin/chromedriver");
  private static final Path SHOTS = Path.of("target", "screenshots");

  private static Fleet fleet;
  private static WebDriver driver;
  private static Path profile;

  @BeforeAll
  static void start() throws IOException {
    if (!Files.isExecutable(CHROMIUM) || !Files.isExecutable(CHROMEDRIVER)) {
      String why = "no " + (Files.isExecutable(CHROMIUM) ? CHROMEDRIVER : CHROMIUM)
          + " (apt-get install chromium chromium-driver)";
      if (required()) {
        fail("CI_POLICY_BROWSER_REQUIRED=true but " + why);
      }
      Assumptions.abort(why);
    }
    profile = Files.createTempDirectory("fleet-chromium-");
    ChromeOptions options = new ChromeOptions();
    options.setBinary(CHROMIUM.toFile());
    options.addArguments("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync",
        "--user-data-dir=" + profile, "--window-size=1280,800");
    ChromeDriverService service = new ChromeDriverService.Builder()
        .usingDriverExecutable(new File(CHROMEDRIVER.toString())).usingAnyFreePort().build();
    fleet = Fleet.inMemory(TestFleets.fast(true));
    driver = new ChromeDriver(service, options);
    driver.manage().window().setSize(new Dimension(1280, 800));
    driver.get("http://127.0.0.1:" + fleet.port() + "/");
  }

  private static boolean required() {
    return "true".equalsIgnoreCase(System.getProperty("CI_POLICY_BROWSER_REQUIRED"))
        || "true".equalsIgnoreCase(System.getenv("CI_POLICY_BROWSER_REQUIRED"));
  }

  @AfterAll
  static void stop() throws IOException {
    if (driver != null) {
      driver.quit();
    }
    if (fleet != null) {
      fleet.close();
    }
    if (profile != null) {
      try (var files = Files.walk(profile)) {
        files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      }
    }
  }

  private static WebDriverWait waitUpTo(int seconds) {
    WebDriverWait w = new WebDriverWait(driver, Duration.ofSeconds(seconds), Duration.ofMillis(200));
    w.ignoring(StaleElementReferenceException.class);
    return w;
  }

  /** A screenshot of a viewport of exactly this size, scrolled to the top. */
  private static void shot(String name, int width, int height, boolean mobile) throws IOException {
    ((ChromeDriver) driver).executeCdpCommand("Emulation.setDeviceMetricsOverride", Map.of("width", width, "height",
        height, "deviceScaleFactor", 1, "mobile", mobile));
    ((JavascriptExecutor) driver).executeScript("document.activeElement && document.activeElement.blur();"
        + " window.scrollTo(0, 0);");
    try {
      Thread.sleep(600);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    Files.createDirectories(SHOTS);
    File f = ((TakesScreenshot) driver).getScreenshotAs(OutputType.FILE);
    Files.copy(f.toPath(), SHOTS.resolve(name), StandardCopyOption.REPLACE_EXISTING);
    ((ChromeDriver) driver).executeCdpCommand("Emulation.clearDeviceMetricsOverride", Map.of());
  }

  /** The text of the first element matching, read in one step (the page redraws every 2 s). */
  private static String text(String css) {
    Object t = ((JavascriptExecutor) driver).executeScript(
        "const e = document.querySelector(arguments[0]); return e ? e.textContent : null;", css);
    return t == null ? "" : t.toString();
  }

  private static String attribute(String css, String name) {
    Object t = ((JavascriptExecutor) driver).executeScript(
        "const e = document.querySelector(arguments[0]); return e ? e.getAttribute(arguments[1]) : null;", css, name);
    return t == null ? "" : t.toString();
  }

  private static long count(String css) {
    return (Long) ((JavascriptExecutor) driver).executeScript(
        "return document.querySelectorAll(arguments[0]).length;", css);
  }

  @Test
  void thePageShowsTheFleetAndFollowsIt() throws Exception {
    // The request in progress, with its progress bar.
    waitUpTo(20).until(d -> count("#in-progress-list article.request") > 0);
    assertThat(text("#in-progress-list article.request h3")).matches("(master|try|release|ci-run) .*\\((regular|nightly)\\)");
    assertThat(attribute("#in-progress-list article.request progress", "max")).matches("[1-9][0-9]*");

    // One time format: local time and how far off, the exact UTC instant on hover.
    waitUpTo(20).until(d -> count("#updated time") == 1);
    assertThat(text("#updated")).matches("Updated [0-9]{2}:[0-9]{2}:[0-9]{2}, now");
    assertThat(attribute("#updated time", "title")).matches("[0-9]{4}-[0-9]{2}-[0-9]{2} [0-9]{2}:[0-9]{2}:[0-9]{2} UTC");
    assertThat(text("#in-progress-list article.request .eta"))
        .matches("ETA (unknown|[0-9]{2}:[0-9]{2}:[0-9]{2}, (now|in .+|.+ ago))");

    // A waiting job and why.
    waitUpTo(20).until(d -> count("#waiting-table td.job-wait-reason") > 0);
    assertThat(text("#waiting-table td.job-wait-reason")).isNotBlank();
    // ... and the request it belongs to: its label and cadence, in the column beside the job.
    assertThat(text("#waiting-table td.job-request")).matches("(master|try|release|ci-run) .* · (regular|nightly)");

    // A host's device map: eight devices, some busy with a job.
    assertThat(count("#host-h200-0 li.device")).isEqualTo(8);
    waitUpTo(20).until(d -> count(".host li.device.busy") > 0);
    assertThat(attribute(".host li.device.busy", "title")).matches("GPU [0-7]: busy .*@.* #[0-9]+");

    // A share bar.
    assertThat(attribute(".share-bar[data-cadence='nightly'][data-pool='h200']", "aria-label"))
        .startsWith("nightly on h200: ").contains("of 12 gpus");

    // Screenshots once several hosts are busy.
    waitUpTo(20).until(d -> count(".host li.device.busy") >= 8);
    shot("fleet-status-1280x800.png", 1280, 800, false);
    shot("fleet-status-phone.png", 390, 844, true);

    // It updates after a job completes: the done count of the first request in progress grows.
    String requestId = attribute("#in-progress-list article.request", "data-request");
    int done = Integer.parseInt(text("#in-progress-list article.request .jobs-done").split(" ")[0]);
    waitUpTo(30).until(d -> {
      String mine = "#in-progress-list article.request[data-request='" + requestId + "'] .jobs-done";
      String now = text(mine); // read once: the page redraws between two reads
      if (now.isEmpty()) {
        // It completed: it is in the history now.
        return count("#history-table tr[data-request='" + requestId + "']") > 0;
      }
      return Integer.parseInt(now.split(" ")[0]) > done;
    });
  }

  @Test
  void aKilledCollectorIsShownOfflineAfterItsLease() throws Exception {
    waitUpTo(20).until(d -> "online".equals(stateOf("h100-1")));
    long killed = System.nanoTime();
    fleet.kill("h100-1");
    // Offline within twice the lease (3 s), plus one refresh of the page (2 s).
    waitUpTo(15).until(d -> "offline".equals(stateOf("h100-1")));
    double seconds = (System.nanoTime() - killed) / 1e9;
    assertThat(seconds).isLessThan(2 * 3 + 2 + 1);
    assertThat(stateOf("h100-0")).isEqualTo("online");
  }

  @Test
  void everyControlIsReachableByKeyboard() throws IOException {
    // The controls appear once the page is signed in (here with the token, typed and sent with Enter).
    waitUpTo(20).until(d -> !Boolean.TRUE.equals(((JavascriptExecutor) d).executeScript(
        "return document.getElementById('sign-in').hidden;")));
    driver.findElement(org.openqa.selenium.By.id("token")).sendKeys(TestFleets.TOKEN, Keys.ENTER);
    waitUpTo(20).until(d -> count("#collector-table button") > 0);
    ((JavascriptExecutor) driver).executeScript("document.activeElement && document.activeElement.blur();");
    boolean reachedButton = false;
    for (int i = 0; i < 200 && !reachedButton; i++) {
      new Actions(driver).sendKeys(Keys.TAB).perform();
      Object focused = ((JavascriptExecutor) driver).executeScript(
          "const e = document.activeElement; return e ? e.tagName + ' ' + e.textContent : '';");
      reachedButton = String.valueOf(focused).startsWith("BUTTON Deactivate")
          || String.valueOf(focused).startsWith("BUTTON Drain");
    }
    assertThat(reachedButton).as("a Drain or Deactivate button is reached with Tab").isTrue();
    assertThat(((JavascriptExecutor) driver).executeScript("return document.documentElement.lang")).isEqualTo("en");

    // The operator's page: the pools with their Pause buttons and the recorded actions (a pause and a resume of
    // pool cpu, sent from the page's origin with the token), in view.
    waitUpTo(20).until(d -> count("#pool-table button") > 0);
    ((JavascriptExecutor) driver).executeAsyncScript("const done = arguments[arguments.length - 1];"
        + " const h = {method: 'POST', headers: {Authorization: 'Bearer ' + arguments[0]}};"
        + " fetch('/api/v1/pools/cpu/pause', h).then(() => fetch('/api/v1/pools/cpu/resume', h)).then(() => done());",
        TestFleets.TOKEN);
    waitUpTo(20).until(d -> count("#audit-table td.audit-action") >= 2);
    shotOf("#operator", "fleet-status-operator-1280x800.png", 1280, 800, false);
    shotOf("#collectors", "fleet-status-operator-phone.png", 390, 844, true);
    driver.navigate().refresh(); // the token lives in the page's memory only: read-only again for the other tests
  }

  /** A screenshot of a viewport of exactly this size, scrolled to the element. */
  private static void shotOf(String css, String name, int width, int height, boolean mobile) throws IOException {
    ((ChromeDriver) driver).executeCdpCommand("Emulation.setDeviceMetricsOverride", Map.of("width", width, "height",
        height, "deviceScaleFactor", 1, "mobile", mobile));
    ((JavascriptExecutor) driver).executeScript("document.activeElement && document.activeElement.blur();"
        + " document.querySelector(arguments[0]).scrollIntoView();", css);
    try {
      Thread.sleep(600);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    Files.createDirectories(SHOTS);
    File f = ((TakesScreenshot) driver).getScreenshotAs(OutputType.FILE);
    Files.copy(f.toPath(), SHOTS.resolve(name), StandardCopyOption.REPLACE_EXISTING);
    ((ChromeDriver) driver).executeCdpCommand("Emulation.clearDeviceMetricsOverride", Map.of());
  }

  private static String stateOf(String collector) {
    return text("#collector-table tr[data-collector='" + collector + "'] td.collector-state");
  }
}
