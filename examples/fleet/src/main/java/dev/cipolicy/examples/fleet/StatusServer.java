package dev.cipolicy.examples.fleet;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.cipolicy.queue.JobQueue;
import dev.cipolicy.queue.model.InvalidQueueInputException;
import dev.cipolicy.queue.model.RequestId;
import dev.cipolicy.queue.spi.CancelResult;
import dev.cipolicy.queue.spi.CollectorResult;
import dev.cipolicy.fleet.server.RequestGuard;
import io.javalin.Javalin;
import io.javalin.http.Context;
import io.javalin.http.Handler;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * The status page and its JSON API over HTTP (Javalin): {@code GET /} is the page, {@code GET /api/v1} lists
 * the endpoints. The two controls (cancel a request, deactivate a collector) answer 403 unless the server was
 * started with controls on and a token, and the POST carries {@code Authorization: Bearer <token>}. Every answer
 * carries the security headers of {@link RequestGuard}, and a request for another host, or a cross-site POST, is
 * refused before any handler runs.
 */
public final class StatusServer implements AutoCloseable {
  private static final ObjectMapper JSON = new ObjectMapper().disable(SerializationFeature.FAIL_ON_EMPTY_BEANS);

  /** The endpoints, as {@code GET /api/v1} lists them. */
  static final Map<String, String> ENDPOINTS = endpoints();

  private final Javalin app;

  private StatusServer(Javalin app) {
    this.app = app;
  }

  private static Map<String, String> endpoints() {
    Map<String, String> m = new LinkedHashMap<>();
    m.put("GET /api/v1/overview", "everything the page shows but the history: in progress, queue, waiting jobs, "
        + "collectors, hosts, shares");
    m.put("GET /api/v1/in-progress", "the requests in progress: jobs done of total, failed, ETA, duration, errors by job");
    m.put("GET /api/v1/queue", "the open requests in order, each with its ETA and why it waits");
    m.put("GET /api/v1/waiting-jobs", "every queued job of the requests in progress and why it waits");
    m.put("GET /api/v1/collectors", "every collector: pool, devices, current jobs, last heartbeat, state");
    m.put("GET /api/v1/hosts", "GPU occupancy per host: the job on each device index, reservation, free devices");
    m.put("GET /api/v1/shares", "each cadence's use of each pool against its fleet share");
    m.put("GET /api/v1/history?limit=20&cursor=", "completed requests, newest first, paged (limit 1-500; cursor is "
        + "the previous page's next)");
    m.put("POST /api/v1/requests/{id}/cancel", "cancels an open request (controls on, Authorization: Bearer token)");
    m.put("POST /api/v1/collectors/{name}/deactivate", "deactivates a collector (controls on, Authorization: Bearer "
        + "token)");
    return m;
  }

  /**
   * Starts the server.
   *
   * @param queue the queue
   * @param view the view of it
   * @param host the address to bind, e.g. {@code 127.0.0.1}
   * @param port the port; 0 for any free one
   * @param token the controls' token, or null when the controls are off
   * @return the running server
   */
  public static StatusServer start(JobQueue queue, FleetView view, String host, int port, @Nullable String token) {
    String page = resource("index.html");
    String script = resource("app.js");
    String style = resource("app.css");
    RequestGuard guard = RequestGuard.forServer(host, List.of());
    Javalin app = Javalin.create(config -> {
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
      config.routes.get("/api/v1", json(ctx -> Map.of("version", Api.VERSION, "endpoints", ENDPOINTS)));
      config.routes.get("/api/v1/overview", json(ctx -> view.overview()));
      config.routes.get("/api/v1/in-progress", json(ctx -> view.overview().inProgress()));
      config.routes.get("/api/v1/queue", json(ctx -> view.overview().queue()));
      config.routes.get("/api/v1/waiting-jobs", json(ctx -> view.overview().waitingJobs()));
      config.routes.get("/api/v1/collectors", json(ctx -> view.overview().collectors()));
      config.routes.get("/api/v1/hosts", json(ctx -> view.overview().hosts()));
      config.routes.get("/api/v1/shares", json(ctx -> view.overview().shares()));
      config.routes.get("/api/v1/history", json(ctx -> view.history(limit(ctx.queryParam("limit")),
          blankToNull(ctx.queryParam("cursor")))));
      config.routes.post("/api/v1/requests/{id}/cancel", control(token, ctx -> {
        RequestId id = RequestId.of(number(ctx.pathParam("id")));
        CancelResult r = queue.cancel(id, "cancelled from the status page");
        return new Api.ControlAnswer("cancel", id.toString(), r.status().name().toLowerCase(Locale.ROOT));
      }));
      config.routes.post("/api/v1/collectors/{name}/deactivate", control(token, ctx -> {
        String name = ctx.pathParam("name");
        CollectorResult r = queue.deactivate(name);
        return new Api.ControlAnswer("deactivate", name, r.status().name().toLowerCase(Locale.ROOT));
      }));
    }).start(host, port);
    return new StatusServer(app);
  }

  /**
   * The port it listens on.
   *
   * @return the port
   */
  public int port() {
    return app.port();
  }

  @Override
  public void close() {
    app.stop();
  }

  /** A JSON answer. */
  private interface Answer {
    Object answer(Context ctx);
  }

  private static Handler json(Answer answer) {
    return ctx -> {
      ctx.contentType("application/json");
      ctx.header("Cache-Control", "no-store");
      try {
        ctx.result(JSON.writeValueAsString(answer.answer(ctx)));
      } catch (FleetView.BadRequest | InvalidQueueInputException e) {
        ctx.status(400).result(error(e.getMessage()));
      } catch (RuntimeException e) {
        ctx.status(503).result(error("the queue store could not be read: " + e.getMessage()));
      }
    };
  }

  private static Handler control(@Nullable String token, Answer answer) {
    Handler inner = json(answer);
    return ctx -> {
      if (token == null) {
        ctx.status(403).contentType("application/json").result(error("controls are off; start the fleet with "
            + "--controls and a token"));
        return;
      }
      String auth = ctx.header("Authorization");
      if (auth == null || !auth.startsWith("Bearer ") || !MessageDigest.isEqual(
          auth.substring(7).getBytes(StandardCharsets.UTF_8), token.getBytes(StandardCharsets.UTF_8))) {
        ctx.status(403).contentType("application/json").result(error("a control needs the header "
            + "'Authorization: Bearer <token>' with the fleet's token"));
        return;
      }
      inner.handle(ctx);
    };
  }

  private static String error(@Nullable String message) {
    try {
      return JSON.writeValueAsString(new Api.ErrorAnswer(message == null ? "error" : message));
    } catch (JsonProcessingException e) {
      return "{\"error\":\"error\"}";
    }
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

  private static String resource(String name) {
    try (InputStream in = StatusServer.class.getResourceAsStream("/fleet/web/" + name)) {
      if (in == null) {
        throw new IllegalStateException("the fleet example's jar lacks /fleet/web/" + name);
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
