package dev.cipolicy.examples.fleet;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.openqa.selenium.By;
import org.openqa.selenium.support.ui.Select;

/**
 * The status page's accounting panel in Debian's headless Chromium ({@link Chromium}): its GPU-hours and waits
 * tables fill once jobs have run, and its share-use chart is an SVG with one line or point per sampled share and
 * a legend. Skipped without Chromium unless {@code CI_POLICY_BROWSER_REQUIRED=true}.
 */
class AccountingPanelBrowserTest {
  @RegisterExtension
  static final Chromium browser = Chromium.window(1280, 800);

  private static Fleet fleet;

  @BeforeAll
  static void start() {
    fleet = Fleet.inMemory(TestFleets.fast(false));
    browser.driver().get("http://127.0.0.1:" + fleet.port() + "/");
  }

  @AfterAll
  static void stop() {
    if (fleet != null) {
      fleet.close();
    }
  }

  @Test
  void theAccountingPanelShowsHoursWaitsAndTheShareChart() {
    browser.waitUpTo(20).until(d -> browser.text("#accounting-status").startsWith("as of"));
    Select window = new Select(browser.driver().findElement(By.id("accounting-window")));
    // the panel reloads every 30 s and on a change of window; switching asks again until jobs have run
    String[] windows = {"1d", "7d"};
    int[] i = {0};
    browser.waitUpTo(60).until(d -> {
      if (browser.count("#gpu-hours-table tbody td.empty") == 0 && browser.count("#gpu-hours-table tbody tr") > 0
          && browser.count("#wait-table tbody td.empty") == 0) {
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
    assertThat(browser.text("#gpu-hours-table tbody tr td:nth-child(1)")).isIn("regular", "nightly");
    assertThat(browser.text("#gpu-hours-table tbody tr td:nth-child(3)")).matches("[0-9]+\\.[0-9]{2}");
    assertThat(browser.text("#wait-table tbody tr td:nth-child(3)")).matches("[0-9.]+ (s|min|h)");
    assertThat(browser.count("#share-chart svg")).isEqualTo(1);
    assertThat(browser.count("#share-chart svg polyline") + browser.count("#share-chart svg circle")).isPositive();
    assertThat(browser.text("#share-chart .chart-legend li"))
        .matches("(nightly|weekly|regular) on .+: [0-9]+ of [0-9]+ (gpus|runners) now");
  }
}
