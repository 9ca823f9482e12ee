package dev.cipolicy.fleet.server;

import dev.cipolicy.api.InvalidInputException;
import dev.cipolicy.queue.JobQueue;
import dev.cipolicy.queue.memory.InMemoryOperatorAudit;
import dev.cipolicy.queue.model.Collector;
import dev.cipolicy.queue.model.InvalidQueueInputException;
import dev.cipolicy.queue.model.JobId;
import dev.cipolicy.queue.model.QueueNames;
import dev.cipolicy.queue.model.RequestId;
import dev.cipolicy.queue.spi.CancelResult;
import dev.cipolicy.queue.spi.CollectorResult;
import dev.cipolicy.queue.spi.OperatorAction;
import dev.cipolicy.queue.spi.OperatorAudit;
import dev.cipolicy.queue.spi.QueueStore;
import dev.cipolicy.queue.spi.RetireResult;
import dev.cipolicy.queue.spi.RetryResult;
import io.javalin.http.Context;
import io.javalin.http.Handler;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.jspecify.annotations.Nullable;

/**
 * The operator's controls of the fleet server: who is an operator, what each control does, and the audit of every
 * control request.
 *
 * <ul>
 *   <li><b>Who.</b> Without credentials a request is read-only. An operator is either a request carrying
 *       {@code Authorization: Bearer <token>} with the server's token (recorded as {@code token}), or a request
 *       carrying the trusted proxy's header (e.g. {@code X-Forwarded-User: alice}, recorded as {@code alice})
 *       that comes from one of the proxy's addresses. The header from any other address is refused with 403,
 *       never believed; so is a wrong token (401). With both, the proxy's user is the operator.</li>
 *   <li><b>Status codes of a control.</b> 200 done (the answer says what happened), 400 a malformed target,
 *       401 no or wrong credentials, 403 controls off, a cross-site POST ({@link RequestGuard}, before this class
 *       sees it) or the proxy header from an untrusted address, 404 no such target, 409 the target's state
 *       refuses the action (a request already finished, a job not failed, a pool already paused...).</li>
 *   <li><b>Audit.</b> Every control request that reaches its handler with an operator is recorded, whatever its
 *       result (who, what, target, when on the store's clock, result), in the store's {@link OperatorAudit}, or
 *       in this server's memory ({@link InMemoryOperatorAudit}, the in-memory store's) when the store keeps
 *       none.</li>
 * </ul>
 */
public final class OperatorControls {

  /** The most actions {@code GET /api/v1/audit} returns by default. */
  static final int DEFAULT_AUDIT_LIMIT = 50;

  private final JobQueue queue;
  private final @Nullable String token;
  private final @Nullable String proxyHeader;
  private final Set<InetAddress> proxies;
  private final OperatorAudit audit;
  /** Told after every control that ran: the server's views drop what they keep, so the next read shows it. */
  private final Runnable changed;

  OperatorControls(JobQueue queue, @Nullable String token, @Nullable String proxyHeader, Set<InetAddress> proxies,
      Runnable changed) {
    this.queue = queue;
    this.changed = changed;
    this.token = token;
    this.proxyHeader = proxyHeader;
    this.proxies = Set.copyOf(proxies);
    QueueStore store = queue.store();
    this.audit = store instanceof OperatorAudit a ? a : new InMemoryOperatorAudit(store::now);
  }

  /** Whether any way to authenticate an operator is configured. */
  boolean enabled() {
    return token != null || proxyHeader != null;
  }

  /** Whether the server takes a bearer token (the page then offers to sign in with one). */
  boolean acceptsToken() {
    return token != null;
  }

  /**
   * The address of a trusted proxy, checked: an IPv4 or IPv6 literal (no name is looked up).
   *
   * @param address the text
   * @return the address
   * @throws InvalidInputException when it is not an IP literal
   */
  static InetAddress proxyAddress(String address) {
    String a = address.strip();
    if (!a.matches("[0-9]{1,3}(\\.[0-9]{1,3}){3}|\\[?[0-9A-Fa-f:.]*:[0-9A-Fa-f:.]*]?")) {
      throw new InvalidInputException("trusted proxy address '" + a.replaceAll("[^\\x20-\\x7e]", "?")
          + "' is not an IP address; expected an IPv4 or IPv6 literal such as 10.0.0.5 or ::1");
    }
    try {
      return InetAddress.getByName(a.startsWith("[") ? a.substring(1, a.length() - 1) : a);
    } catch (UnknownHostException e) {
      throw new InvalidInputException("trusted proxy address '" + a + "' is not an IP address; expected an IPv4 or"
          + " IPv6 literal such as 10.0.0.5 or ::1");
    }
  }

  // ------------------------------------------------------------------------------------------- identity

  /** Who sends a request: an operator, nobody (read-only), or a refusal. */
  record Identity(@Nullable String operator, int refusal, @Nullable String message) {
    static final Identity ANONYMOUS = new Identity(null, 0, null);

    static Identity refused(int status, String message) {
      return new Identity(null, status, message);
    }
  }

  /** Who sends the request, from its credentials and the address it comes from. */
  Identity identify(Context ctx) {
    String user = proxyHeader == null ? null : ctx.header(proxyHeader);
    if (user != null && proxyHeader != null) {
      if (!fromProxy(ctx.req().getRemoteAddr())) {
        return Identity.refused(403, "the header " + proxyHeader + " is trusted only from the proxy's addresses;"
            + " this request comes from " + ctx.req().getRemoteAddr());
      }
      String u = user.strip();
      if (u.isEmpty() || u.length() > 200 || !u.chars().allMatch(c -> c >= 0x20 && c < 0x7f)) {
        return Identity.refused(403, "the header " + proxyHeader + " names no usable user; expected 1 to 200"
            + " printable ASCII characters");
      }
      return new Identity(u, 0, null);
    }
    String auth = ctx.header("Authorization");
    if (auth == null) {
      return Identity.ANONYMOUS;
    }
    if (token == null) {
      return Identity.refused(403, "this server takes no token" + (proxyHeader == null ? "; it is read-only"
          : "; operators are named by its proxy (" + proxyHeader + ")"));
    }
    if (!auth.startsWith("Bearer ") || !MessageDigest.isEqual(auth.substring(7).getBytes(StandardCharsets.UTF_8),
        token.getBytes(StandardCharsets.UTF_8))) {
      return Identity.refused(401, "the bearer token is not the fleet's token");
    }
    return new Identity("token", 0, null);
  }

  private boolean fromProxy(@Nullable String remote) {
    if (remote == null) {
      return false;
    }
    try {
      return proxies.contains(InetAddress.getByName(remote.startsWith("[") ? remote.substring(1, remote.length() - 1)
          : remote));
    } catch (UnknownHostException e) {
      return false;
    }
  }

  /** Whether a read request is authenticated (for the overview's {@code controls} and the session). */
  boolean authenticated(Context ctx) {
    return identify(ctx).operator() != null;
  }

  /** The session document: who the page is, and whether it may sign in with a token. */
  Api.SessionDto session(Context ctx) {
    Identity who = identify(ctx);
    return new Api.SessionDto(who.operator(), who.operator() != null, enabled(), acceptsToken(),
        proxyHeader, who.message());
  }

  // ------------------------------------------------------------------------------------------- controls

  /** A control's answer: the HTTP status and what happened. */
  private record Outcome(int status, String target, String result) {}

  /** A control: from the request, its target and what it did. */
  private interface Action {
    Outcome run(Context ctx);
  }

  /** The handler of a control: authentication, the action, the audit record, the answer. */
  Handler control(String action, Action run) {
    return ctx -> {
      ctx.contentType("application/json");
      ctx.header("Cache-Control", "no-store");
      if (!enabled()) {
        ctx.status(403).result(error("controls are off: this server is read-only; start it with a token or a"
            + " trusted proxy header to enable them"));
        return;
      }
      Identity who = identify(ctx);
      if (who.operator() == null) {
        if (who.refusal() == 0) {
          ctx.header("WWW-Authenticate", "Bearer realm=\"fleet\"");
        }
        ctx.status(who.refusal() == 0 ? 401 : who.refusal()).result(error(who.message() != null ? who.message()
            : "a control needs an operator: the header 'Authorization: Bearer <token>' with the fleet's token"
                + (proxyHeader == null ? "" : ", or the trusted proxy's " + proxyHeader)));
        return;
      }
      Outcome out;
      try {
        out = run.run(ctx);
      } catch (FleetView.BadRequest | InvalidQueueInputException | InvalidInputException e) {
        record(who.operator(), action, shown(ctx.path()), "bad_request: " + e.getMessage());
        ctx.status(400).result(error(e.getMessage()));
        return;
      } catch (RuntimeException e) {
        ctx.status(503).result(error("the queue store could not be changed: " + e.getMessage()));
        return;
      }
      changed.run();
      OperatorAction recorded = record(who.operator(), action, out.target(), out.result());
      ctx.status(out.status()).result(JsonWriter.write(new Api.ControlAnswer(action, out.target(), out.result(),
          who.operator(), recorded == null ? null : recorded.at().toString())));
    };
  }

  private @Nullable OperatorAction record(String actor, String action, String target, String result) {
    try {
      return audit.recordAction(actor, action, target, result.length() > 1000 ? result.substring(0, 1000) : result);
    } catch (RuntimeException e) {
      return null; // the action ran; a store that cannot record it says so on the next read of the audit
    }
  }

  Handler cancel() {
    return control("cancel", ctx -> {
      RequestId id = RequestId.of(number(ctx.pathParam("id"), "request id"));
      CancelResult r = queue.cancel(id, "cancelled by an operator from the status page");
      String s = lower(r.status());
      return new Outcome(switch (r.status()) {
        case NOT_FOUND -> 404;
        case ALREADY_FINISHED -> 409;
        default -> 200;
      }, "request " + id.value(), s);
    });
  }

  Handler deactivate() {
    return control("deactivate", ctx -> {
      String name = name(ctx.pathParam("name"), "collector name");
      CollectorResult r = queue.deactivate(name);
      return new Outcome(switch (r.status()) {
        case NOT_FOUND -> 404;
        case RETIRING -> 409;
        default -> 200;
      }, "collector " + name, lower(r.status()));
    });
  }

  Handler drain() {
    return control("drain", ctx -> {
      String name = name(ctx.pathParam("name"), "collector name");
      RetireResult r = queue.retireCollector(name);
      return new Outcome(r.status() == RetireResult.Status.NOT_FOUND ? 404 : 200, "collector " + name,
          lower(r.status()));
    });
  }

  Handler retry() {
    return control("retry", ctx -> {
      JobId id = JobId.of(number(ctx.pathParam("id"), "job id"));
      RetryResult r = queue.retryJob(id);
      String result = lower(r.status()) + (r.reopened() ? " (request " + r.request().orElseThrow().id().value()
          + " reopened)" : "");
      return new Outcome(switch (r.status()) {
        case RETRIED -> 200;
        case NOT_FOUND -> 404;
        default -> 409;
      }, "job " + id.value(), result);
    });
  }

  Handler pause(boolean paused) {
    return control(paused ? "pause" : "resume", ctx -> {
      String pool = name(ctx.pathParam("pool"), "pool");
      if (!knownPools().contains(pool)) {
        return new Outcome(404, "pool " + pool, "not_found");
      }
      boolean changed = queue.setPoolPaused(pool, paused);
      return new Outcome(changed ? 200 : 409, "pool " + pool, changed ? (paused ? "paused" : "resumed")
          : (paused ? "already_paused" : "not_paused"));
    });
  }

  /** The pools an operator may pause: of the settings' targets, of a collector, of a queued job, or paused. */
  Set<String> knownPools() {
    QueueStore store = queue.store();
    Set<String> pools = new TreeSet<>(store.pausedPools());
    queue.settings().collectorTargets().forEach(t -> pools.add(t.tag()));
    for (Collector c : store.collectors()) {
      pools.add(c.tag());
    }
    for (var r : store.inProgressRequests()) {
      store.jobs(r.id()).forEach(j -> pools.add(j.spec().collectorTag()));
    }
    return pools;
  }

  /** Every known pool with whether it is paused, its collectors and its queued jobs. */
  List<Api.PoolDto> pools() {
    QueueStore store = queue.store();
    Set<String> paused = store.pausedPools();
    TreeMap<String, int[]> counts = new TreeMap<>();
    for (String p : knownPools()) {
      counts.put(p, new int[2]);
    }
    for (Collector c : store.collectors()) {
      counts.computeIfAbsent(c.tag(), t -> new int[2])[0]++;
    }
    for (var r : store.inProgressRequests()) {
      store.jobs(r.id()).stream().filter(j -> j.state() == dev.cipolicy.queue.model.JobState.QUEUED)
          .forEach(j -> counts.computeIfAbsent(j.spec().collectorTag(), t -> new int[2])[1]++);
    }
    List<Api.PoolDto> out = new ArrayList<>();
    counts.forEach((pool, n) -> out.add(new Api.PoolDto(pool, paused.contains(pool), n[0], n[1])));
    return out;
  }

  /** The newest recorded actions. */
  List<Api.AuditDto> audit(int limit) {
    List<Api.AuditDto> out = new ArrayList<>();
    for (OperatorAction a : audit.operatorActions(limit)) {
      out.add(new Api.AuditDto(a.id(), a.at().toString(), a.actor(), a.action(), a.target(), a.result()));
    }
    return out;
  }

  private static String lower(Enum<?> status) {
    return status.name().toLowerCase(Locale.ROOT);
  }

  private static long number(String text, String what) {
    try {
      long n = Long.parseLong(text.trim());
      if (n < 1) {
        throw new FleetView.BadRequest(what + " " + n + " is not positive; expected 1 or more");
      }
      return n;
    } catch (NumberFormatException e) {
      throw new FleetView.BadRequest(what + " '" + shown(text) + "' is not a number");
    }
  }

  private static String name(String text, String what) {
    try {
      return QueueNames.check(text, what);
    } catch (InvalidQueueInputException e) {
      throw new FleetView.BadRequest(what + " '" + shown(text) + "' is not a name: " + e.getMessage());
    }
  }

  private static String shown(String s) {
    String cut = s.length() > 100 ? s.substring(0, 100) + "..." : s;
    StringBuilder sb = new StringBuilder(cut.length());
    cut.codePoints().forEach(c -> sb.appendCodePoint(Character.isISOControl(c) ? '?' : c));
    return sb.toString();
  }

  private static String error(@Nullable String message) {
    return JsonWriter.write(new Api.ErrorAnswer(message == null ? "error" : message));
  }
}
