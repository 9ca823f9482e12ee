package dev.cipolicy.examples.fleet;

import static org.junit.jupiter.api.Assertions.fail;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.Comparator;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.openqa.selenium.Dimension;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.StaleElementReferenceException;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * Debian's headless Chromium ({@code /usr/bin/chromium} driven by {@code /usr/bin/chromedriver}) for the browser
 * tests. A test class registers it as a static field,
 * {@code @RegisterExtension static final Chromium browser = Chromium.window(1280, 800);}: the browser is ready, its
 * window of that size, before the class's {@code @BeforeAll} methods, and is left on a blank page after its
 * {@code @AfterAll} methods. One browser serves every class of the test run (started by the first, quit and its
 * profile deleted when the run ends): a class leaves it as it found it (no device emulation, no script of its own
 * added to new pages). Without Chromium the class is skipped, unless {@code CI_POLICY_BROWSER_REQUIRED=true}
 * (system property or environment), which makes it fail instead. Also the helpers the tests share: waits, reads of
 * the page in one script (the status page redraws every 2 s, so an element found in one call may be gone in the
 * next) and screenshots to {@code target/screenshots}.
 */
final class Chromium implements BeforeAllCallback, AfterAllCallback {
  private static final Path CHROMIUM = Path.of("/usr/bin/chromium");
  private static final Path CHROMEDRIVER = Path.of("/usr/bin/chromedriver");
  private static final Path SHOTS = Path.of("target", "screenshots");

  private final int width;
  private final int height;
  private @Nullable ChromeDriver driver;

  private Chromium(int width, int height) {
    this.width = width;
    this.height = height;
  }

  /** A browser whose window has this size. */
  static Chromium window(int width, int height) {
    return new Chromium(width, height);
  }

  /** Whether the browser tests must run: {@code CI_POLICY_BROWSER_REQUIRED=true}, as property or environment. */
  static boolean required() {
    return "true".equalsIgnoreCase(System.getProperty("CI_POLICY_BROWSER_REQUIRED"))
        || "true".equalsIgnoreCase(System.getenv("CI_POLICY_BROWSER_REQUIRED"));
  }

  @Override
  public void beforeAll(ExtensionContext context) {
    if (!Files.isExecutable(CHROMIUM) || !Files.isExecutable(CHROMEDRIVER)) {
      String why = "no " + (Files.isExecutable(CHROMIUM) ? CHROMEDRIVER : CHROMIUM)
          + " (apt-get install chromium chromium-driver)";
      if (required()) {
        fail("CI_POLICY_BROWSER_REQUIRED=true but " + why);
      }
      Assumptions.abort(why);
    }
    driver = context.getRoot().getStore(ExtensionContext.Namespace.create(Chromium.class))
        .getOrComputeIfAbsent(Session.class, k -> Session.start(), Session.class).driver;
    driver.manage().window().setSize(new Dimension(width, height));
  }

  @Override
  public void afterAll(ExtensionContext context) {
    if (driver != null) {
      driver.get("about:blank"); // the class's page stops polling its server, which is closing
      driver = null;
    }
  }

  /** The browser of a test run, quit when the run ends (JUnit closes what its root store holds). */
  private static final class Session implements AutoCloseable {
    private final Path profile;
    private final ChromeDriver driver;

    private Session(Path profile, ChromeDriver driver) {
      this.profile = profile;
      this.driver = driver;
    }

    static Session start() {
      try {
        Path profile = Files.createTempDirectory("fleet-chromium-");
        ChromeOptions options = new ChromeOptions();
        options.setBinary(CHROMIUM.toFile());
        options.addArguments("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
            "--disable-background-networking", "--disable-component-update", "--disable-sync",
            "--user-data-dir=" + profile);
        ChromeDriverService service = new ChromeDriverService.Builder()
            .usingDriverExecutable(new File(CHROMEDRIVER.toString())).usingAnyFreePort().build();
        return new Session(profile, new ChromeDriver(service, options));
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }

    @Override
    public void close() throws IOException {
      try {
        driver.quit();
      } finally {
        try (var files = Files.walk(profile)) {
          files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
      }
    }
  }

  /** The browser, once started. */
  ChromeDriver driver() {
    if (driver == null) {
      throw new IllegalStateException("Chromium is not started: register it with @RegisterExtension on a static"
          + " field, and use it from @BeforeAll on");
    }
    return driver;
  }

  /** A wait of at most this long, polling every 200 ms, that ignores elements gone stale (the page redraws). */
  WebDriverWait waitUpTo(int seconds) {
    WebDriverWait w = new WebDriverWait(driver(), Duration.ofSeconds(seconds), Duration.ofMillis(200));
    w.ignoring(StaleElementReferenceException.class);
    return w;
  }

  /** Runs a script in the page; its value. */
  @Nullable Object js(String script, Object... args) {
    return driver().executeScript(script, args);
  }

  /** Runs a script in the page; its value as text, empty for null. */
  String jsText(String script, Object... args) {
    Object o = js(script, args);
    return o == null ? "" : o.toString();
  }

  /** The text of the first element matching, read in one step; empty when none matches. */
  String text(String css) {
    return jsText("const e = document.querySelector(arguments[0]); return e ? e.textContent : null;", css);
  }

  /** An attribute of the first element matching, read in one step; empty when none matches or it has none. */
  String attribute(String css, String name) {
    return jsText("const e = document.querySelector(arguments[0]); return e ? e.getAttribute(arguments[1]) : null;",
        css, name);
  }

  /** How many elements match. */
  long count(String css) {
    return ((Number) driver().executeScript("return document.querySelectorAll(arguments[0]).length;", css))
        .longValue();
  }

  /** A screenshot of the window as it is, to {@code target/screenshots/<name>}. */
  void screenshot(String name) {
    try {
      Files.createDirectories(SHOTS);
      File f = driver().getScreenshotAs(OutputType.FILE);
      Files.copy(f.toPath(), SHOTS.resolve(name), StandardCopyOption.REPLACE_EXISTING);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** A screenshot of a viewport of exactly this size, scrolled to the top. */
  void shotOf(String name, int width, int height, boolean mobile) {
    shot("window.scrollTo(0, 0);", name, width, height, mobile);
  }

  /** A screenshot of a viewport of exactly this size, scrolled to the first element matching. */
  void shotOf(String css, String name, int width, int height, boolean mobile) {
    shot("document.querySelector(arguments[0]).scrollIntoView();", name, width, height, mobile, css);
  }

  /** Emulates a viewport of this size, blurs the focus, scrolls, lets the page settle, shoots, emulates no more. */
  private void shot(String scroll, String name, int width, int height, boolean mobile, Object... args) {
    emulate(width, height, mobile);
    js("document.activeElement && document.activeElement.blur(); " + scroll, args);
    try {
      Thread.sleep(600);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    screenshot(name);
    clearEmulation();
  }

  /** Emulates a device whose viewport has exactly this size, until {@link #clearEmulation()}. */
  void emulate(int width, int height, boolean mobile) {
    driver().executeCdpCommand("Emulation.setDeviceMetricsOverride", Map.of("width", width, "height", height,
        "deviceScaleFactor", 1, "mobile", mobile));
  }

  /** Ends {@link #emulate}. */
  void clearEmulation() {
    driver().executeCdpCommand("Emulation.clearDeviceMetricsOverride", Map.of());
  }
}
