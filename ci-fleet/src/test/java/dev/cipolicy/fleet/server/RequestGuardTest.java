package dev.cipolicy.fleet.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class RequestGuardTest {

  private final RequestGuard local = RequestGuard.forServer("127.0.0.1", List.of());
  private final RequestGuard published = RequestGuard.forServer("0.0.0.0", List.of("fleet.example.org"));

  @Test
  void answersOnlyTheHostsItServes() {
    assertThat(local.check("GET", "127.0.0.1:7070", null, null)).isEmpty();
    assertThat(local.check("GET", "LOCALHOST:7070", null, null)).isEmpty();
    assertThat(local.check("GET", "[::1]:7070", null, null)).isEmpty();
    assertThat(published.check("GET", "fleet.example.org", null, null)).isEmpty();
    RequestGuard.Refusal rebound = local.check("GET", "attacker.example:7070", null, null).orElseThrow();
    assertThat(rebound.status()).isEqualTo(421);
    assertThat(rebound.message()).isEqualTo("this server does not serve host 'attacker.example:7070'; it serves"
        + " 127.0.0.1, [::1], localhost (start it with --allowed-host NAME to add one)");
    assertThat(local.check("GET", null, null, null)).get().extracting(RequestGuard.Refusal::status).isEqualTo(421);
    assertThat(published.check("GET", "0.0.0.0:7070", null, null)).as("a wildcard bind is no name").isPresent();
    assertThat(RequestGuard.forServer("::1", List.of()).check("GET", "[::1]:1", null, null)).isEmpty();
  }

  @Test
  void refusesCrossSiteWritesWhateverTheyCarry() {
    assertThat(local.check("POST", "127.0.0.1:7070", "http://127.0.0.1:7070", "same-origin")).isEmpty();
    assertThat(local.check("POST", "127.0.0.1:7070", null, null)).as("a command-line client").isEmpty();
    assertThat(local.check("POST", "127.0.0.1:7070", "https://evil.example", null)).get()
        .isEqualTo(new RequestGuard.Refusal(403, "a request from origin 'https://evil.example' cannot change the"
            + " fleet; only the page's own origin can"));
    assertThat(local.check("POST", "127.0.0.1:7070", "http://127.0.0.1:7071", null)).isPresent();
    assertThat(local.check("POST", "127.0.0.1:7070", null, "cross-site")).get()
        .extracting(RequestGuard.Refusal::status).isEqualTo(403);
    assertThat(local.check("POST", "127.0.0.1:7070", null, "same-site")).isPresent();
    assertThat(local.check("GET", "127.0.0.1:7070", "https://evil.example", "cross-site"))
        .as("reads are guarded by the host check, not the origin").isEmpty();
  }

  @Test
  void sendsTheSecurityHeaders() {
    assertThat(local.headers())
        .containsEntry("X-Content-Type-Options", "nosniff")
        .containsEntry("X-Frame-Options", "DENY")
        .containsEntry("Referrer-Policy", "no-referrer")
        .containsEntry("Content-Security-Policy", RequestGuard.CONTENT_SECURITY_POLICY);
    assertThat(RequestGuard.CONTENT_SECURITY_POLICY).contains("script-src 'self'", "frame-ancestors 'none'")
        .doesNotContain("unsafe-inline", "unsafe-eval");
  }
}
