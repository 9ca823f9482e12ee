package dev.cipolicy.fleet.server;

import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * Which HTTP requests the fleet server answers, and the headers it sends with every answer.
 *
 * <ul>
 *   <li><b>The host it serves.</b> A request whose {@code Host} header names another host is refused with 421
 *       (Misdirected Request): a page on another site that rebinds its DNS name to the server's address sends
 *       its own name, so it cannot read the API. The names served are {@code localhost}, {@code 127.0.0.1},
 *       {@code [::1]}, the address the server binds (unless it is a wildcard) and the names an operator adds
 *       (the name users type, e.g. {@code fleet.example.org}). A request without {@code Host} is refused.</li>
 *   <li><b>Writes from the page's own origin only.</b> A POST whose {@code Origin} is another origin, or whose
 *       {@code Sec-Fetch-Site} is {@code cross-site} or {@code same-site}, is refused with 403, whatever credentials
 *       it carries. A POST without either header (a command-line client) passes this check.</li>
 *   <li><b>Headers.</b> {@code Content-Security-Policy} allowing only the server's own scripts, styles and API
 *       ({@link #CONTENT_SECURITY_POLICY}; no inline script, no framing), {@code X-Content-Type-Options: nosniff},
 *       {@code X-Frame-Options: DENY}, {@code Referrer-Policy: no-referrer}.</li>
 * </ul>
 */
public final class RequestGuard {

  /** The content security policy of every answer. */
  public static final String CONTENT_SECURITY_POLICY = "default-src 'none'; script-src 'self'; style-src 'self';"
      + " img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'";

  private static final Map<String, String> HEADERS = securityHeaders();

  private final Set<String> hosts;

  private RequestGuard(Set<String> hosts) {
    this.hosts = hosts;
  }

  /**
   * The guard of a server bound to an address.
   *
   * @param bindAddress the address the server listens on, e.g. {@code 127.0.0.1} or {@code 0.0.0.0}
   * @param extraHosts further host names the server is reached by, without port
   * @return the guard
   */
  public static RequestGuard forServer(String bindAddress, List<String> extraHosts) {
    Set<String> hosts = new LinkedHashSet<>(List.of("localhost", "127.0.0.1", "[::1]"));
    String bind = bindAddress.toLowerCase(Locale.ROOT);
    if (!bind.equals("0.0.0.0") && !bind.equals("::") && !bind.equals("[::]") && !bind.isEmpty()) {
      hosts.add(bind.contains(":") && !bind.startsWith("[") ? "[" + bind + "]" : bind);
    }
    for (String h : extraHosts) {
      hosts.add(h.toLowerCase(Locale.ROOT).strip());
    }
    return new RequestGuard(Set.copyOf(hosts));
  }

  /**
   * Why a request is refused, if it is.
   *
   * @param status the HTTP status to answer with
   * @param message one line saying why
   */
  public record Refusal(int status, String message) {}

  /**
   * Checks a request.
   *
   * @param method the HTTP method
   * @param host the {@code Host} header, or null
   * @param origin the {@code Origin} header, or null
   * @param fetchSite the {@code Sec-Fetch-Site} header, or null
   * @return the refusal, or empty when the request may be answered
   */
  public Optional<Refusal> check(String method, @Nullable String host, @Nullable String origin,
      @Nullable String fetchSite) {
    if (host == null || !hosts.contains(hostName(host))) {
      return Optional.of(new Refusal(421, "this server does not serve host '" + shown(host == null ? "" : host)
          + "'; it serves "
          + String.join(", ", hosts.stream().sorted().toList()) + " (start it with --allowed-host NAME to add one)"));
    }
    boolean write = !method.equalsIgnoreCase("GET") && !method.equalsIgnoreCase("HEAD")
        && !method.equalsIgnoreCase("OPTIONS");
    if (write) {
      if (fetchSite != null && !fetchSite.equals("same-origin") && !fetchSite.equals("none")) {
        return Optional.of(new Refusal(403, "a cross-site request cannot change the fleet (Sec-Fetch-Site: "
            + shown(fetchSite) + ")"));
      }
      if (origin != null && !sameOrigin(origin, host)) {
        return Optional.of(new Refusal(403, "a request from origin '" + shown(origin)
            + "' cannot change the fleet; only the page's own origin can"));
      }
    }
    return Optional.empty();
  }

  /**
   * The security headers of every answer.
   *
   * @return header name to value
   */
  public Map<String, String> headers() {
    return HEADERS;
  }

  private static Map<String, String> securityHeaders() {
    Map<String, String> h = new LinkedHashMap<>();
    h.put("Content-Security-Policy", CONTENT_SECURITY_POLICY);
    h.put("X-Content-Type-Options", "nosniff");
    h.put("X-Frame-Options", "DENY");
    h.put("Referrer-Policy", "no-referrer");
    return Map.copyOf(h);
  }

  /** The host name of a {@code Host} header, lower case, without the port. */
  private static String hostName(String host) {
    String h = host.strip().toLowerCase(Locale.ROOT);
    if (h.startsWith("[")) {
      int end = h.indexOf(']');
      return end < 0 ? h : h.substring(0, end + 1);
    }
    int colon = h.lastIndexOf(':');
    return colon < 0 ? h : h.substring(0, colon);
  }

  private static boolean sameOrigin(String origin, String host) {
    String o = origin.strip().toLowerCase(Locale.ROOT);
    String h = host.strip().toLowerCase(Locale.ROOT);
    return o.equals("http://" + h) || o.equals("https://" + h);
  }

  private static String shown(String s) {
    String cut = s.length() > 100 ? s.substring(0, 100) + "..." : s;
    StringBuilder sb = new StringBuilder(cut.length());
    cut.codePoints().forEach(c -> sb.appendCodePoint(Character.isISOControl(c) ? '?' : c));
    return sb.toString();
  }
}
