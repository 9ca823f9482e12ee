package dev.cipolicy.examples.fleet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.Dimension;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.StaleElementReferenceException;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.support.ui.Select;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * The status page's accounting panel in Debian's headless Chromium (set up as {@code StatusPageBrowserTest}):
 * its GPU-hours and waits tables fill once jobs have run, and its share-use chart is an SVG with one line or
 * point per sampled share and a legend. Skipped without Chromium unless {@code CI_POLICY_BROWSER_REQUIRED=true}.
 */
class AccountingPanelBrowserTest {
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
    profile = Files.createTempDirectory("fleet-accounting-chromium-");
    ChromeOptions options = new ChromeOptions();
    options.setBinary(CHROMIUM.toFile());
    options.addArguments("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync",
        "--user-data-dir=" + profile, "--window-size=1280,800");
    ChromeDriverService service = new ChromeDriverService.Builder()
        .usingDriverExecutable(new File(CHROMEDRIVER.toString())).usingAnyFreePort().build();
    fleet = Fleet.inMemory(TestFleets.fast(false));
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

  private static String text(String css) {
    Object t = ((JavascriptExecutor) driver).executeScript(
        "const e = document.querySelector(arguments[0]); return e ? e.textContent : null;", css);
    return t == null ? "" : t.toString();
  }

  private static long count(String css) {
    return (Long) ((JavascriptExecutor) driver).executeScript(
        "return document.querySelectorAll(arguments[0]).length;", css);
  }

  @Test
  void theAccountingPanelShowsHoursWaitsAndTheShareChart() {
    waitUpTo(20).until(d -> text("#accounting-status").startsWith("as of"));
    Select window = new Select(driver.findElement(By.id("accounting-window")));
    // the panel reloads every 30 s and on a change of window; switching asks again until jobs have run
    String[] windows = {"1d", "7d"};
    int[] i = {0};
    waitUpTo(60).until(d -> {
      if (count("#gpu-hours-table tbody td.empty") == 0 && count("#gpu-hours-table tbody tr") > 0
          && count("#wait-table tbody td.empty") == 0) {
        return true;
      }
      window.selectByValue(windows[i[0]++ % 2]);
      try {
        Thread.sleep(1500);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      return false;
    });
    assertThat(text("#gpu-hours-table tbody tr td:nth-child(1)")).isIn("regular", "nightly");
    assertThat(text("#gpu-hours-table tbody tr td:nth-child(3)")).matches("[0-9]+\\.[0-9]{2}");
    assertThat(text("#wait-table tbody tr td:nth-child(3)")).matches("[0-9.]+ (s|min|h)");
    assertThat(count("#share-chart svg")).isEqualTo(1);
    assertThat(count("#share-chart svg polyline") + count("#share-chart svg circle")).isPositive();
    assertThat(text("#share-chart .chart-legend li")).matches("(nightly|weekly|regular) on .+: [0-9]+ of [0-9]+ "
        + "(gpus|runners) now");
  }
}
