package dev.cipolicy.examples.fleet;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cipolicy.fleet.server.LiveView;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.Keys;
import org.openqa.selenium.interactions.Actions;

/**
 * The status page in Debian's headless Chromium ({@link Chromium}): what a person sees, and that it follows the
 * fleet. Without Chromium these tests are skipped, unless {@code CI_POLICY_BROWSER_REQUIRED=true} (system property
 * or environment), which makes them fail. Screenshots go to {@code target/screenshots}.
 */
class StatusPageBrowserTest {
  @RegisterExtension
  static final Chromium browser = Chromium.window(1280, 800);

  private static Fleet fleet;

  @BeforeAll
  static void start() {
    fleet = Fleet.inMemory(TestFleets.fast(true));
    browser.driver().get("http://127.0.0.1:" + fleet.port() + "/");
  }

  @AfterAll
  static void stop() {
    if (fleet != null) {
      fleet.close();
    }
  }

  @Test
  void thePageShowsTheFleetAndFollowsIt() throws Exception {
    // The request in progress, with its progress bar.
    browser.waitUpTo(20).until(d -> browser.count("#in-progress-list article.request") > 0);
    assertThat(browser.text("#in-progress-list article.request h3"))
        .matches("(master|try|release|ci-run) .*\\((regular|nightly)\\)");
    assertThat(browser.attribute("#in-progress-list article.request progress", "max")).matches("[1-9][0-9]*");

    // One time format: local time and how far off, the exact UTC instant on hover.
    browser.waitUpTo(20).until(d -> browser.count("#updated time") == 1);
    assertThat(browser.text("#updated")).matches("Updated [0-9]{2}:[0-9]{2}:[0-9]{2}, now");
    assertThat(browser.attribute("#updated time", "title"))
        .matches("[0-9]{4}-[0-9]{2}-[0-9]{2} [0-9]{2}:[0-9]{2}:[0-9]{2} UTC");
    assertThat(browser.text("#in-progress-list article.request .eta"))
        .matches("ETA (unknown|[0-9]{2}:[0-9]{2}:[0-9]{2}, (now|in .+|.+ ago))");

    // A waiting job and why.
    browser.waitUpTo(20).until(d -> browser.count("#waiting-table td.job-wait-reason") > 0);
    assertThat(browser.text("#waiting-table td.job-wait-reason")).isNotBlank();
    // ... and the request it belongs to: its label and cadence, in the column beside the job.
    assertThat(browser.text("#waiting-table td.job-request"))
        .matches("(master|try|release|ci-run) .* · (regular|nightly)");

    // A host's device map: eight devices, some busy with a job.
    assertThat(browser.count("#host-h200-0 li.device")).isEqualTo(8);
    browser.waitUpTo(20).until(d -> browser.count(".host li.device.busy") > 0);
    assertThat(browser.attribute(".host li.device.busy", "title")).matches("GPU [0-7]: busy .*@.* #[0-9]+");

    // A share bar.
    assertThat(browser.attribute(".share-bar[data-cadence='nightly'][data-pool='h200']", "aria-label"))
        .startsWith("nightly on h200: ").contains("of 12 gpus");

    // Screenshots once several hosts are busy.
    browser.waitUpTo(20).until(d -> browser.count(".host li.device.busy") >= 8);
    browser.shotOf("fleet-status-1280x800.png", 1280, 800, false);
    browser.shotOf("fleet-status-phone.png", 390, 844, true);

    // It updates after a job completes: the done count of the first request in progress grows.
    String requestId = browser.attribute("#in-progress-list article.request", "data-request");
    int done = Integer.parseInt(browser.text("#in-progress-list article.request .jobs-done").split(" ")[0]);
    browser.waitUpTo(30).until(d -> {
      String mine = "#in-progress-list article.request[data-request='" + requestId + "'] .jobs-done";
      String now = browser.text(mine); // read once: the page redraws between two reads
      if (now.isEmpty()) {
        // It completed: it is in the history now.
        return browser.count("#history-table tr[data-request='" + requestId + "']") > 0;
      }
      return Integer.parseInt(now.split(" ")[0]) > done;
    });
  }

  @Test
  void aKilledCollectorIsShownOfflineAfterItsLease() throws Exception {
    browser.waitUpTo(20).until(d -> "online".equals(stateOf("h100-1")));
    long killed = System.nanoTime();
    fleet.kill("h100-1");
    // Offline within twice the lease (3 s; docs/fleet-server.md), shown once the server's overview has been
    // computed again (LiveView.DEFAULT_REFRESH, 1 s) and the page has polled (every 2 s); 1 s for the rest.
    browser.waitUpTo(15).until(d -> "offline".equals(stateOf("h100-1")));
    double seconds = (System.nanoTime() - killed) / 1e9;
    assertThat(seconds).isLessThan(2 * 3 + LiveView.DEFAULT_REFRESH.toSeconds() + 2 + 1);
    assertThat(stateOf("h100-0")).isEqualTo("online");
  }

  @Test
  void everyControlIsReachableByKeyboard() {
    // The controls appear once the page is signed in (here with the token, typed and sent with Enter).
    browser.waitUpTo(20).until(d -> !Boolean.TRUE.equals(((JavascriptExecutor) d).executeScript(
        "return document.getElementById('sign-in').hidden;")));
    browser.driver().findElement(org.openqa.selenium.By.id("token")).sendKeys(TestFleets.TOKEN, Keys.ENTER);
    browser.waitUpTo(20).until(d -> browser.count("#collector-table button") > 0);
    browser.js("document.activeElement && document.activeElement.blur();");
    boolean reachedButton = false;
    for (int i = 0; i < 200 && !reachedButton; i++) {
      new Actions(browser.driver()).sendKeys(Keys.TAB).perform();
      Object focused = browser.js("const e = document.activeElement; return e ? e.tagName + ' ' + e.textContent : '';");
      reachedButton = String.valueOf(focused).startsWith("BUTTON Deactivate")
          || String.valueOf(focused).startsWith("BUTTON Drain");
    }
    assertThat(reachedButton).as("a Drain or Deactivate button is reached with Tab").isTrue();
    assertThat(browser.js("return document.documentElement.lang")).isEqualTo("en");

    // The operator's page: the pools with their Pause buttons and the recorded actions (a pause and a resume of
    // pool cpu, sent from the page's origin with the token), in view.
    browser.waitUpTo(20).until(d -> browser.count("#pool-table button") > 0);
    browser.driver().executeAsyncScript("const done = arguments[arguments.length - 1];"
        + " const h = {method: 'POST', headers: {Authorization: 'Bearer ' + arguments[0]}};"
        + " fetch('/api/v1/pools/cpu/pause', h).then(() => fetch('/api/v1/pools/cpu/resume', h)).then(() => done());",
        TestFleets.TOKEN);
    browser.waitUpTo(20).until(d -> browser.count("#audit-table td.audit-action") >= 2);
    browser.shotOf("#operator", "fleet-status-operator-1280x800.png", 1280, 800, false);
    browser.shotOf("#collectors", "fleet-status-operator-phone.png", 390, 844, true);
    // The token lives in the page's memory only: read-only again for the other tests.
    browser.driver().navigate().refresh();
  }

  private static String stateOf(String collector) {
    return browser.text("#collector-table tr[data-collector='" + collector + "'] td.collector-state");
  }
}
