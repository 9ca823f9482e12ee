package dev.cipolicy.examples.fleet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.Dimension;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.Keys;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
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
    return new WebDriverWait(driver, Duration.ofSeconds(seconds), Duration.ofMillis(200));
  }

  private static void shot(String name) throws IOException {
    Files.createDirectories(SHOTS);
    File f = ((TakesScreenshot) driver).getScreenshotAs(OutputType.FILE);
    Files.copy(f.toPath(), SHOTS.resolve(name), StandardCopyOption.REPLACE_EXISTING);
  }

  @Test
  void thePageShowsTheFleetAndFollowsIt() throws Exception {
    // The request in progress, with its progress bar.
    WebElement card = waitUpTo(20).until(d -> {
      List<WebElement> cards = d.findElements(By.cssSelector("#in-progress-list article.request"));
      return cards.isEmpty() ? null : cards.get(0);
    });
    assertThat(card.findElement(By.tagName("h3")).getText()).matches("(master|try|release) .*\\((regular|nightly)\\)");
    assertThat(card.findElement(By.tagName("progress")).getDomAttribute("max")).matches("[1-9][0-9]*");

    // A waiting job and why.
    WebElement reason = waitUpTo(20).until(d -> d.findElements(By.cssSelector("#waiting-table td.job-wait-reason"))
        .stream().findFirst().orElse(null));
    assertThat(reason.getText()).isNotBlank();

    // A host's device map: eight devices, one of them busy with a job.
    WebElement h200 = driver.findElement(By.id("host-h200-0"));
    assertThat(h200.findElements(By.cssSelector("li.device"))).hasSize(8);
    waitUpTo(20).until(d -> !d.findElements(By.cssSelector(".host li.device.busy")).isEmpty());
    WebElement busy = driver.findElement(By.cssSelector(".host li.device.busy"));
    assertThat(busy.getText()).matches("(?s)GPU [0-7].*@.* #[0-9]+");

    // A share bar.
    WebElement bar = driver.findElement(By.cssSelector(".share-bar[data-cadence='nightly'][data-pool='h200']"));
    assertThat(bar.getDomAttribute("aria-label")).startsWith("nightly on h200: ").contains("of 12 gpus");

    // Let the page settle with a few jobs running, then take the screenshots.
    waitUpTo(20).until(d -> d.findElements(By.cssSelector(".host li.device.busy")).size() >= 8);
    shot("fleet-status-1280x800.png");
    driver.manage().window().setSize(new Dimension(390, 844));
    Thread.sleep(500);
    shot("fleet-status-phone.png");
    driver.manage().window().setSize(new Dimension(1280, 800));

    // It updates after a job completes: the done count of the first request in progress grows.
    String first = text("#in-progress-list article.request .jobs-done");
    int done = Integer.parseInt(first.split(" ")[0]);
    String requestId = driver.findElement(By.cssSelector("#in-progress-list article.request")).getDomAttribute("data-request");
    waitUpTo(30).until(d -> {
      List<WebElement> same = d.findElements(By.cssSelector("#in-progress-list article.request[data-request='"
          + requestId + "'] .jobs-done"));
      if (same.isEmpty()) {
        // It completed: it is in the history now.
        return !d.findElements(By.cssSelector("#history-table tr[data-request='" + requestId + "']")).isEmpty();
      }
      return Integer.parseInt(same.get(0).getText().split(" ")[0]) > done;
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
  void everyControlIsReachableByKeyboard() {
    waitUpTo(20).until(d -> !d.findElements(By.cssSelector("#collector-table button")).isEmpty());
    WebElement body = driver.findElement(By.tagName("body"));
    body.sendKeys(Keys.TAB);
    boolean reachedButton = false;
    for (int i = 0; i < 80 && !reachedButton; i++) {
      WebElement active = driver.switchTo().activeElement();
      reachedButton = "button".equals(active.getTagName()) && active.getText().startsWith("Deactivate");
      if (!reachedButton) {
        active.sendKeys(Keys.TAB);
      }
    }
    assertThat(reachedButton).as("a Deactivate button is reached with Tab").isTrue();
    assertThat(((JavascriptExecutor) driver).executeScript("return document.documentElement.lang")).isEqualTo("en");
  }

  private static String text(String css) {
    return driver.findElement(By.cssSelector(css)).getText();
  }

  private static String stateOf(String collector) {
    List<WebElement> cells = driver.findElements(By.cssSelector("#collector-table tr[data-collector='" + collector
        + "'] td.collector-state"));
    return cells.isEmpty() ? "" : cells.get(0).getText();
  }
}
