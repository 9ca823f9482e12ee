package dev.cipolicy.fleet.server;

import dev.cipolicy.api.InvalidInputException;
import dev.cipolicy.api.policy.FleetShare;
import dev.cipolicy.fleet.server.Api.OverviewDto;
import dev.cipolicy.queue.JobQueue;
import dev.cipolicy.queue.model.FleetShares;
import dev.cipolicy.queue.model.InvalidQueueInputException;
import io.javalin.Javalin;
import io.javalin.http.Context;
import io.javalin.http.Handler;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * The fleet server: the site loop ({@link FleetSite}) over a queue, and over HTTP the status page and its JSON
 * API. {@code GET /} is the page (its script and style ship in this jar), {@code GET /api/v1} lists the endpoints.
 * The operator's controls (cancel a request, retry a job, pause and resume a pool, drain or deactivate a collector)
 * are POSTs that need an operator, by the server's bearer token or a trusted proxy's header, and are recorded in an
 * audit ({@link OperatorControls}); without credentials the server is read-only. Every answer carries the security headers of
 * {@link RequestGuard}, and a request for a host the server does not serve, or a cross-site POST, is refused
 * before any handler runs. Built with {@link #builder(JobQueue)}.
 */
public final class FleetServer implements AutoCloseable {

  /** The endpoints, as {@code GET /api/v1} lists them. */
  public static final Map<String, String> ENDPOINTS = endpoints();

  private final Javalin app;
  private final FleetView view;
  private final @Nullable FleetSite site;
  private final LiveView live;

  private FleetServer(Javalin app, FleetView view, @Nullable FleetSite site, LiveView live) {
    this.app = app;
    this.view = view;
    this.site = site;
    this.live = live;
  }

  private static Map<String, String> endpoints() {
    Map<String, String> m = new LinkedHashMap<>();
    m.put("GET /api/v1/overview", "everything the page shows but the history: in "
        + "progress, queue, waiting jobs (queue and waiting jobs filtered; a page of the waiting jobs, offset and "
        + "limit as below, and how many match), collectors, hosts, shares");
    m.put("GET /api/v1/in-progress", "the requests in progress: jobs done of total, failed, ETA, duration, errors by job");
    m.put("GET /api/v1/queue", "the open requests in order, each with its ETA and why "
        + "it waits (filters: pool, cadence, state waiting|not-started, pr, q searching PR, commit or CI run id)");
    m.put("GET /api/v1/waiting-jobs", "the queued jobs of the requests in progress, "
        + "then the jobs of requests not started yet: request, pool, GPUs, why it waits, expected start (same "
        + "filters as the queue); a page of them: offset 0 to 1000000, limit 1 to 500 (default 100), the count "
        + "matching in the X-Total-Count header");
    m.put("GET /api/v1/collectors", "every collector: pool, devices, current jobs, last heartbeat, state");
    m.put("GET /api/v1/hosts", "GPU occupancy per host: the job on each device index, reservation, free devices");
    m.put("GET /api/v1/shares", "each cadence's use of each pool against its fleet share");
    m.put("GET /api/v1/history?limit=20&cursor=", "completed requests, newest first, paged (limit 1-500; cursor is "
        + "the previous page's next)");
    m.put("GET /api/v1/jobs/{id}", "one job: spec, request and CI run, state, every attempt (host, devices, start, "
        + "end, outcome, error) and each attempt's log as stored");
    m.put("GET /api/v1/jobs/{id}/log?attempt=N&offset=K", "one attempt's log from byte offset K (default: the latest "
        + "attempt, from 0); follow it with the answer's next");
    m.put("GET /api/v1/session", "who the page is: the operator (null when read-only), whether a token is taken");
    m.put("GET /api/v1/pools", "every pool: paused or not, its collectors and queued jobs");
    m.put("GET /api/v1/audit?limit=50", "the operators' actions, newest first (limit 1-500): who, what, target, "
        + "when, result");
    m.put("POST /api/v1/requests/{id}/cancel", "operator: cancels an open request");
    m.put("POST /api/v1/jobs/{id}/retry", "operator: queues a failed or cancelled job again, reopening its completed "
        + "request");
    m.put("POST /api/v1/pools/{pool}/pause", "operator: the pool's collectors claim nothing until it is resumed");
    m.put("POST /api/v1/pools/{pool}/resume", "operator: resumes a paused pool");
    m.put("POST /api/v1/collectors/{name}/drain", "operator: retires a collector; its running jobs finish");
    m.put("POST /api/v1/collectors/{name}/deactivate", "operator: deactivates a collector");
    m.put("GET /api/v1/accounting?window=7d", "GPU-hours per cadence and pool, waits from ready to claim per GPU "
        + "count (p50/p90/p99), sampled share use; window 1m to 31d (m, h or d), default 7d");
    return m;
  }

  /**
   * A builder of a server over a queue: bound to {@code 127.0.0.1} on port 8080, serving the local names only,
   * no fleet shares shown, read-only (no token), ticking the queue every {@link FleetSite#DEFAULT_TICK}.
   *
   * @param queue the queue the server shows and ticks
   * @return the builder
   */
  public static Builder builder(JobQueue queue) {
    return new Builder(queue);
  }

  /** How a {@link FleetServer} runs; {@link #start()} starts it. */
  public static final class Builder {
    private final JobQueue queue;
    private List<FleetShare> shares = List.of();
    private String bind = "127.0.0.1";
    private int port = 8080;
    private List<String> allowedHosts = List.of();
    private @Nullable String token;
    private @Nullable String proxyHeader;
    private java.util.Set<java.net.InetAddress> proxies = java.util.Set.of();
    private @Nullable Duration tick = FleetSite.DEFAULT_TICK;
    private Consumer<RuntimeException> onSiteError = e -> { };
    private @Nullable Duration viewRefresh = LiveView.DEFAULT_REFRESH;

    private Builder(JobQueue queue) {
      this.queue = queue;
    }

    /**
     * The policy's fleet shares: given to the store, which enforces them at each claim, and shown as share bars.
     *
     * @param shares the shares
     * @return this builder
     */
    public Builder shares(List<FleetShare> shares) {
      this.shares = List.copyOf(shares);
      return this;
    }

    /**
     * The address to listen on, e.g. {@code 127.0.0.1} or {@code 0.0.0.0}.
     *
     * @param address the address
     * @return this builder
     */
    public Builder bind(String address) {
      this.bind = address;
      return this;
    }

    /**
     * The port to listen on; 0 for any free one.
     *
     * @param port the port, 0 to 65535
     * @return this builder
     */
    public Builder port(int port) {
      if (port < 0 || port > 65535) {
        throw new InvalidInputException("port " + port + " is out of range; expected 0 to 65535");
      }
      this.port = port;
      return this;
    }

    /**
     * Further host names the server is reached by (beyond {@code localhost}, the loopback addresses and the bound
     * address), e.g. {@code fleet.example.org}; a request for any other host is refused with 421.
     *
     * @param hosts host names, without port
     * @return this builder
     */
    public Builder allowedHosts(List<String> hosts) {
      for (String h : hosts) {
        if (h.isBlank() || !h.strip().matches("[A-Za-z0-9._\\-]+|\\[[0-9A-Fa-f:.]+\\]")) {
          throw new InvalidInputException("allowed host '" + h.replaceAll("[^\\x20-\\x7e]", "?")
              + "' is not a host name; expected a name such as fleet.example.org, without port");
        }
      }
      this.allowedHosts = List.copyOf(hosts);
      return this;
    }

    /**
     * The controls' token: with one, a POST carrying {@code Authorization: Bearer <token>} may cancel a request or
     * deactivate a collector; without one (the default) the server is read-only.
     *
     * @param token the token, at least 8 characters, or null for read-only
     * @return this builder
     */
    public Builder token(@Nullable String token) {
      if (token != null && token.length() < 8) {
        throw new InvalidInputException("the controls' token has " + token.length()
            + " characters; expected at least 8");
      }
      this.token = token;
      return this;
    }

    /**
     * The trusted proxy: a request carrying {@code header} (e.g. {@code X-Forwarded-User: alice}) from one of the
     * proxy's addresses is the operator the header names; the header from any other address is refused (403).
     * The proxy must authenticate its users and drop the header from the requests it forwards.
     *
     * @param header the header name, e.g. {@code X-Forwarded-User}
     * @param addresses the proxy's IP addresses (literals), at least one
     * @return this builder
     */
    public Builder trustedProxy(String header, List<String> addresses) {
      if (header == null || !header.matches("[A-Za-z0-9][A-Za-z0-9-]{0,99}")) {
        throw new InvalidInputException("trusted proxy header '" + String.valueOf(header)
            .replaceAll("[^\\x20-\\x7e]", "?") + "' is not a header name; expected letters, digits and '-', such as"
            + " X-Forwarded-User");
      }
      if (header.equalsIgnoreCase("Authorization") || header.equalsIgnoreCase("Host")
          || header.equalsIgnoreCase("Origin") || header.equalsIgnoreCase("Cookie")) {
        throw new InvalidInputException("trusted proxy header " + header + " is a standard header; expected the"
            + " proxy's own, such as X-Forwarded-User");
      }
      if (addresses.isEmpty()) {
        throw new InvalidInputException("trusted proxy header " + header + " needs the proxy's address; expected at"
            + " least one --trusted-proxy ADDRESS");
      }
      java.util.Set<java.net.InetAddress> set = new java.util.LinkedHashSet<>();
      for (String a : addresses) {
        set.add(OperatorControls.proxyAddress(a));
      }
      this.proxyHeader = header;
      this.proxies = java.util.Set.copyOf(set);
      return this;
    }

    /**
     * The delay between two ticks of the site loop, or null to run no site loop (another process ticks the queue).
     *
     * @param every the delay, or null
     * @return this builder
     */
    public Builder tick(@Nullable Duration every) {
      this.tick = every;
      return this;
    }

    /**
     * Told of each tick of the site loop that failed.
     *
     * @param onError the listener
     * @return this builder
     */
    public Builder onSiteError(Consumer<RuntimeException> onError) {
      this.onSiteError = onError;
      return this;
    }

    /**
     * The delay between two refreshes of the overview the page endpoints answer from ({@link LiveView}), or null
     * to compute it on every request.
     *
     * @param every the delay, or null
     * @return this builder
     */
    public Builder viewRefresh(@Nullable Duration every) {
      this.viewRefresh = every;
      return this;
    }

    /**
     * Gives the shares to the store, starts the site loop and the HTTP server.
     *
     * @return the running server
     */
    public FleetServer start() {
      queue.store().setShares(FleetShares.fromPolicy(shares));
      // read-only as computed: an operator's request gets the controls flag on its own view (Computed.view)
      FleetView view = new FleetView(queue, shares, false);
      FleetSite site = tick == null ? null : FleetSite.start(queue, tick, onSiteError);
      LiveView live = new LiveView(view, viewRefresh, onSiteError);
      OperatorControls controls = new OperatorControls(queue, token, proxyHeader, proxies, live::invalidate);
      Javalin app = http(queue, live, RequestGuard.forServer(bind, allowedHosts), controls);
      try {
        app.start(bind, port);
        return new FleetServer(app, view, site, live);
      } catch (RuntimeException e) {
        live.close();
        if (site != null) {
          site.close();
        }
        app.stop();
        throw new FleetServerException("the fleet server cannot listen on " + bind + " port " + port + ": "
            + (e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage()), e);
      }
    }
  }

  private static Javalin http(JobQueue queue, LiveView live, RequestGuard guard,
      OperatorControls controls) {
    String page = resource("index.html");
    String script = resource("app.js");
    String style = resource("app.css");
    String accountingScript = resource("accounting.js");
    String jobPage = resource("job.html");
    String jobScript = resource("job.js");
    String timeScript = resource("time.js");
    JobPageView jobs = new JobPageView(queue.store());
    return Javalin.create(config -> {
      config.startup.showJavalinBanner = false;
      config.routes.before(ctx -> {
        guard.headers().forEach(ctx::header);
        Optional<RequestGuard.Refusal> refusal = guard.check(ctx.method().name(), ctx.header("Host"),
            ctx.header("Origin"), ctx.header("Sec-Fetch-Site"));
        if (refusal.isPresent()) {
          ctx.status(refusal.get().status()).contentType("application/json").result(error(refusal.get().message()));
          ctx.skipRemainingHandlers();
        }
      });
      config.routes.get("/", ctx -> ctx.contentType("text/html; charset=utf-8").result(page));
      config.routes.get("/app.js", ctx -> ctx.contentType("text/javascript; charset=utf-8").result(script));
      config.routes.get("/app.css", ctx -> ctx.contentType("text/css; charset=utf-8").result(style));
      config.routes.get("/accounting.js", ctx -> ctx.contentType("text/javascript; charset=utf-8")
          .result(accountingScript));
      config.routes.get("/api/v1", json(ctx -> Map.of("version", Api.VERSION, "endpoints", ENDPOINTS)));
      // Every overview endpoint answers from the overview the live view computes once per refresh: the page's
      // first poll (no filter, the first page of the waiting jobs, read-only) as the JSON written once, a filtered
      // view, a further page or an operator's picked from the same rows.
      config.routes.get("/api/v1/overview", json(ctx -> live.overview(filter(ctx), page(ctx),
          controls.authenticated(ctx))));
      config.routes.get("/api/v1/in-progress", json(ctx -> live.part("in-progress")));
      config.routes.get("/api/v1/queue", json(ctx -> live.answer("queue", filter(ctx), WaitingPage.FIRST, false)
          .body()));
      config.routes.get("/api/v1/waiting-jobs", json(ctx -> {
        LiveView.Answer a = live.answer("waiting-jobs", filter(ctx), page(ctx), false);
        ctx.header(TOTAL_HEADER, Integer.toString(a.overview().waitingJobsPage().total()));
        return a.body();
      }));
      config.routes.get("/api/v1/collectors", json(ctx -> live.part("collectors")));
      config.routes.get("/api/v1/hosts", json(ctx -> live.part("hosts")));
      config.routes.get("/api/v1/shares", json(ctx -> live.part("shares")));
      config.routes.get("/api/v1/accounting", json(ctx -> live.accounting(Accounting.window(
          ctx.queryParam("window")))));
      config.routes.get("/api/v1/history", json(ctx -> live.history(limit(ctx.queryParam("limit")),
          cursor(ctx.queryParam("cursor")))));
      config.routes.get("/jobs/{id}", ctx -> ctx.contentType("text/html; charset=utf-8").result(jobPage));
      config.routes.get("/job.js", ctx -> ctx.contentType("text/javascript; charset=utf-8").result(jobScript));
      config.routes.get("/time.js", ctx -> ctx.contentType("text/javascript; charset=utf-8").result(timeScript));
      config.routes.get("/api/v1/jobs/{id}", json(ctx -> jobs.job(ctx.pathParam("id"))));
      config.routes.get("/api/v1/jobs/{id}/log", json(ctx -> jobs.log(ctx.pathParam("id"), ctx.queryParam("attempt"),
          ctx.queryParam("offset"))));
      config.routes.get("/api/v1/session", json(controls::session));
      config.routes.get("/api/v1/pools", json(ctx -> controls.pools()));
      config.routes.get("/api/v1/audit", json(ctx -> controls.audit(auditLimit(ctx.queryParam("limit")))));
      config.routes.post("/api/v1/requests/{id}/cancel", controls.cancel());
      config.routes.post("/api/v1/jobs/{id}/retry", controls.retry());
      config.routes.post("/api/v1/pools/{pool}/pause", controls.pause(true));
      config.routes.post("/api/v1/pools/{pool}/resume", controls.pause(false));
      config.routes.post("/api/v1/collectors/{name}/drain", controls.drain());
      config.routes.post("/api/v1/collectors/{name}/deactivate", controls.deactivate());
    });
  }

  /**
   * The port it listens on.
   *
   * @return the port
   */
  public int port() {
    return app.port();
  }

  /**
   * The view the API answers from.
   *
   * @return the view
   */
  public FleetView view() {
    return view;
  }

  /** Stops the HTTP server and the site loop. */
  @Override
  public void close() {
    app.stop();
    live.close();
    if (site != null) {
      site.close();
    }
  }

  /** The header of {@code GET /api/v1/waiting-jobs} that counts the jobs matching its filters, on every page. */
  static final String TOTAL_HEADER = "X-Total-Count";

  /** A JSON answer. */
  private interface Answer {
    Object answer(Context ctx);
  }

  private static Handler json(Answer answer) {
    return ctx -> {
      ctx.contentType("application/json");
      ctx.header("Cache-Control", "no-store");
      try {
        Object a = answer.answer(ctx);
        if (a instanceof LiveView.JsonText t) {
          ctx.result(t.bytes());
        } else {
          ctx.result(JsonWriter.write(a));
        }
      } catch (FleetView.BadRequest | InvalidQueueInputException e) {
        ctx.status(400).result(error(e.getMessage()));
      } catch (JobPageView.NotFound e) {
        ctx.status(404).result(error(e.getMessage()));
      } catch (RuntimeException e) {
        ctx.status(503).result(error("the queue store could not be read: " + e.getMessage()));
      }
    };
  }

  private static String error(@Nullable String message) {
    return JsonWriter.write(new Api.ErrorAnswer(message == null ? "error" : message));
  }

  /** Which waiting jobs from the query string ({@link WaitingPage}). */
  private static WaitingPage page(Context ctx) {
    return WaitingPage.parse(ctx.queryParam("offset"), ctx.queryParam("limit"));
  }

  /** The filters of the waiting work from the query string ({@link WorkFilter}). */
  private static WorkFilter filter(Context ctx) {
    return WorkFilter.parse(ctx.queryParam("pool"), ctx.queryParam("cadence"), ctx.queryParam("state"),
        ctx.queryParam("pr"), ctx.queryParam("q"));
  }

  private static int limit(@Nullable String text) {
    if (text == null || text.isBlank()) {
      return 20;
    }
    long n = number(text);
    if (n < 1 || n > 500) {
      throw new FleetView.BadRequest("limit " + text + " is out of range; expected 1 to 500");
    }
    return (int) n;
  }

  private static int auditLimit(@Nullable String text) {
    if (text == null || text.isBlank()) {
      return OperatorControls.DEFAULT_AUDIT_LIMIT;
    }
    long n = number(text);
    if (n < 1 || n > 500) {
      throw new FleetView.BadRequest("limit " + text + " is out of range; expected 1 to 500");
    }
    return (int) n;
  }

  private static long number(String text) {
    try {
      return Long.parseLong(text.trim());
    } catch (NumberFormatException e) {
      throw new FleetView.BadRequest("'" + text + "' is not a number");
    }
  }

  private static @Nullable String blankToNull(@Nullable String s) {
    return s == null || s.isBlank() ? null : s;
  }

  /** A history cursor, checked before it becomes a key of the kept pages. */
  private static @Nullable String cursor(@Nullable String text) {
    String c = blankToNull(text);
    if (c != null) {
      FleetView.Cursors.format(FleetView.Cursors.parse(c));
    }
    return c;
  }

  private static String resource(String name) {
    try (InputStream in = FleetServer.class.getResourceAsStream("web/" + name)) {
      if (in == null) {
        throw new IllegalStateException("the ci-fleet jar lacks the status page's " + name);
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
