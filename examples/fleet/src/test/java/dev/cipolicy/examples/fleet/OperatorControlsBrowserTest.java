package dev.cipolicy.examples.fleet;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import dev.cipolicy.queue.model.JobState;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.Keys;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.interactions.Actions;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.FluentWait;

/**
 * The operator controls in Debian's headless Chromium: without credentials the page shows no control and a POST
 * from it is refused; an operator signed in with the token retries a failed job and pauses a pool from the keyboard,
 * confirming the pause, and the page shows the result and who did it; a page of another origin cannot change the
 * fleet. Skipped without Chromium ({@link Chromium}) unless {@code CI_POLICY_BROWSER_REQUIRED=true}, which makes it
 * fail.
 */
class OperatorControlsBrowserTest {
  @RegisterExtension
  static final Chromium browser = Chromium.window(1280, 1000);

  private static ControlFleet fleet;
  private static HttpServer otherOrigin;

  @BeforeAll
  static void start() {
    fleet = new ControlFleet(b -> b.token(ControlFleet.TOKEN));
  }

  @AfterAll
  static void stop() {
    if (fleet != null) {
      fleet.close();
    }
    if (otherOrigin != null) {
      otherOrigin.stop(0);
    }
  }

  /** The fixture's wait, saying on a timeout what the page showed. */
  private static FluentWait<WebDriver> waitUpTo(int seconds) {
    return browser.waitUpTo(seconds).withMessage(() -> "session: " + browser.text("#session") + "; result: "
        + browser.text("#control-result") + "; updated: " + browser.text("#updated"));
  }

  /** Posts from the page's own script, without credentials; returns the status. */
  private static long postFromPage(String path) {
    return ((Number) browser.driver().executeAsyncScript(
        "const done = arguments[arguments.length - 1];"
            + " fetch(arguments[0], {method: 'POST'}).then(r => done(r.status), e => done(-1));", path)).longValue();
  }

  private static String base() {
    return "http://127.0.0.1:" + fleet.server.port();
  }

  @Test
  void anOperatorRetriesAJobAndPausesAPoolAndNobodyElseCan() throws Exception {
    long jobId = fleet.failed.id().value();
    browser.driver().get(base() + "/");
    waitUpTo(10).until(d -> browser.text("#session").contains("sign in"));
    waitUpTo(10).until(d -> browser.count("#pool-table tr[data-pool='x86']") == 1);
    assertThat(browser.count("#in-progress-list [data-job='" + jobId + "']")).isEqualTo(1);
    assertThat(browser.count("main button[data-focus-key^='retry-'], main button[data-focus-key^='pause-']"))
        .as("no control without credentials").isZero();

    // Without credentials, the same controls posted from the page are refused and change nothing.
    assertThat(postFromPage("/api/v1/jobs/" + jobId + "/retry")).isEqualTo(401);
    assertThat(postFromPage("/api/v1/pools/x86/pause")).isEqualTo(401);
    assertThat(fleet.queue.store().job(fleet.failed.id()).orElseThrow().state()).isEqualTo(JobState.FAILED);
    assertThat(fleet.queue.store().pausedPools()).isEmpty();

    // Sign in with the token, from the keyboard.
    WebElement token = browser.driver().findElement(By.id("token"));
    token.sendKeys(ControlFleet.TOKEN, Keys.ENTER);
    waitUpTo(10).until(d -> browser.text("#session").contains("Signed in as token"));
    WebElement retry = waitUpTo(10).until(ExpectedConditions.presenceOfElementLocated(
        By.cssSelector("#in-progress-list button[data-focus-key='retry-" + jobId + "']")));
    assertThat(retry.getTagName()).isEqualTo("button");

    // Retry: focus the button as the Tab key would, press Enter.
    browser.js("arguments[0].focus();", retry);
    new Actions(browser.driver()).sendKeys(Keys.ENTER).perform();
    waitUpTo(10).until(d -> browser.text("#control-result").contains("Retry job " + jobId + ": retried (by token)"));
    assertThat(fleet.queue.store().job(fleet.failed.id()).orElseThrow().state()).isEqualTo(JobState.QUEUED);
    waitUpTo(10).until(d -> browser.count("#in-progress-list [data-job='" + jobId + "']") == 0);
    waitUpTo(10).until(d -> browser.text("#audit-table tbody tr:first-child .audit-action").equals("retry"));
    assertThat(browser.text("#audit-table tbody tr:first-child .audit-actor")).isEqualTo("token");
    assertThat(browser.text("#audit-table tbody tr:first-child .audit-target")).isEqualTo("job " + jobId);

    // Pause: a confirmation first; dismissing it does nothing. The button is found and used in one step of a wait:
    // the page redraws the table every 2 s, and a button found before a redraw is gone after it.
    By pause = By.cssSelector("#pool-table button[data-focus-key='pause-x86']");
    waitUpTo(10).until(d -> {
      d.findElement(pause).click();
      return true;
    });
    waitUpTo(5).until(ExpectedConditions.alertIsPresent()).dismiss();
    assertThat(fleet.queue.store().pausedPools()).isEmpty();
    waitUpTo(10).until(d -> browser.js("arguments[0].focus(); return true;", d.findElement(pause)));
    new Actions(browser.driver()).sendKeys(Keys.ENTER).perform();
    assertThat(waitUpTo(5).until(ExpectedConditions.alertIsPresent()).getText()).contains("Pause pool x86?");
    browser.driver().switchTo().alert().accept();
    waitUpTo(10).until(d -> browser.text("#control-result").contains("Pause x86: paused (by token)"));
    assertThat(fleet.queue.store().pausedPools()).containsExactly("x86");
    waitUpTo(10).until(d -> "true".equals(((JavascriptExecutor) d).executeScript(
        "const r = document.querySelector(\"#pool-table tr[data-pool='x86']\"); return r && r.dataset.paused;")));
    assertThat(browser.count("#pool-table button[data-focus-key='resume-x86']")).isEqualTo(1);
    waitUpTo(10).until(d -> browser.text("#waiting-table tr[data-kind='pool-paused'] .job-wait-reason")
        .contains("pool x86 is paused"));
    waitUpTo(10).until(d -> browser.text("#audit-table tbody tr:first-child .audit-action").equals("pause"));
    assertThat(browser.text("#audit-table tbody tr:first-child .audit-actor")).isEqualTo("token");
    assertThat(browser.text("#audit-table tbody tr:first-child .audit-result")).isEqualTo("paused");

    // A refusal shows as text: pausing the paused pool again, by the API the page uses.
    assertThat(browser.js("return document.getElementById('control-result')"
        + ".getAttribute('role');")).isEqualTo("alert");

    // Another origin (the same host, another port) posts to the fleet: refused, nothing changes.
    otherOrigin = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    byte[] page = ("<!doctype html><title>elsewhere</title><script>"
        + "fetch('" + base() + "/api/v1/pools/x86/resume', {method: 'POST', mode: 'no-cors'})"
        + ".then(() => { document.title = 'posted'; }, () => { document.title = 'posted'; });"
        + "</script>").getBytes(StandardCharsets.UTF_8);
    otherOrigin.createContext("/", ex -> {
      ex.getResponseHeaders().add("Content-Type", "text/html; charset=utf-8");
      ex.sendResponseHeaders(200, page.length);
      ex.getResponseBody().write(page);
      ex.close();
    });
    otherOrigin.start();
    int actionsBefore = fleet.queue.store() instanceof dev.cipolicy.queue.spi.OperatorAudit a
        ? a.operatorActions(500).size() : -1;
    browser.driver().get("http://127.0.0.1:" + otherOrigin.getAddress().getPort() + "/");
    waitUpTo(10).until(d -> "posted".equals(d.getTitle()));
    assertThat(fleet.queue.store().pausedPools()).as("the cross-origin POST changed nothing").containsExactly("x86");
    assertThat(((dev.cipolicy.queue.spi.OperatorAudit) fleet.queue.store()).operatorActions(500))
        .as("and is no operator's action").hasSize(actionsBefore);
    List<Long> statuses = List.of(postFromPage(base() + "/api/v1/pools/x86/resume"));
    assertThat(statuses).as("a cross-origin fetch cannot read the answer").containsExactly(-1L);
  }
}
