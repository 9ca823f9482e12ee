package dev.cipolicy.cli;

import dev.cipolicy.api.InvalidInputException;
import dev.cipolicy.queue.JobQueue;
import dev.cipolicy.queue.model.CiRun;
import dev.cipolicy.queue.model.Claim;
import dev.cipolicy.queue.model.Collector;
import dev.cipolicy.queue.model.Devices;
import dev.cipolicy.queue.model.Failure;
import dev.cipolicy.queue.model.Job;
import dev.cipolicy.queue.model.JobId;
import dev.cipolicy.queue.model.JobSpec;
import dev.cipolicy.queue.model.JobWait;
import dev.cipolicy.queue.model.Lease;
import dev.cipolicy.queue.model.RequestId;
import dev.cipolicy.queue.model.WaitReason;
import dev.cipolicy.queue.spi.ClaimResult;
import dev.cipolicy.queue.spi.LeaseResult;
import dev.cipolicy.queue.spi.LeaseStatus;
import dev.cipolicy.queue.spi.RegisterResult;
import dev.cipolicy.queue.spi.SubmitResult;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * The store side of one {@code fleet lease} process (ADR 0006): the host is one collector of the store, alone in
 * its pool; the process submits one job (a CI run request of its own) for its devices, and, while it waits,
 * claims for the host collector in the store's queue order. A job it claims that is another waiting process's is
 * left leased for its owner, who adopts the lease by renewing it; one whose owner is gone (dead pid, or another
 * process under that pid) has its request cancelled and its devices freed at once.
 */
final class HostLease {
  /** What ended a lease process's job before it could run. */
  static final class Ended extends RuntimeException {
    private static final long serialVersionUID = 1L;

    Ended(String message) {
      super(message, null, false, false);
    }
  }

  private final JobQueue queue;
  private final String host;
  private final String pool;
  private final LeaseOwner owner;
  private @Nullable RequestId request;
  private @Nullable JobId job;
  private String lastWait = "";

  HostLease(JobQueue queue, String host, String pool) {
    this.queue = queue;
    this.host = host;
    this.pool = pool;
    this.owner = LeaseOwner.current(host);
  }

  /**
   * Registers the host (the first lease of a host registers it, the others find it) and checks that it is the
   * only collector of its pool; returns the devices the store knows for it.
   */
  Devices register(Devices inventory) {
    for (Collector other : queue.store().collectors()) {
      if (other.tag().equals(pool) && !other.name().equals(host)) {
        throw new InvalidInputException("pool '" + pool + "' is also served by " + other.name() + "; a lease pool"
            + " holds one host, so give this host a pool of its own with --pool (e.g. --pool " + host + ")");
      }
    }
    RegisterResult r = queue.registerHost(host, pool, inventory);
    Collector c = r.collector();
    if (r.status() == RegisterResult.Status.NAME_TAKEN) {
      throw new InvalidInputException("host " + host + " is registered in pool '" + c.tag() + "', not '" + pool
          + "'; give --pool " + c.tag() + " or another --host name");
    }
    if (r.status() == RegisterResult.Status.RETIRING) {
      throw new InvalidInputException("host " + host + " is being retired (ci-policy fleet retire) and still runs"
          + " jobs; expected no new lease on it");
    }
    return c.devices();
  }

  /** Submits this process's job: a CI run request of its own carrying the run's facts. */
  JobId submit(CiRun run, JobSpec spec) {
    SubmitResult r = queue.submitCiRun(run, List.of(JobSpec.builder().from(spec).args(owner.toArgs()).build()));
    if (r.status() != SubmitResult.Status.CREATED) {
      throw new InvalidInputException("the store did not create the lease's request (" + r.status() + " "
          + r.request().label() + ")");
    }
    request = r.request().id();
    JobId id = queue.store().jobs(r.request().id()).get(0).id();
    job = id;
    return id;
  }

  /**
   * One round of waiting: adopts this process's job when another process claimed it for the host, else claims
   * the host's next jobs in queue order, leaving the others' and cancelling those of gone owners. Reports the
   * job's wait reason when it changed.
   *
   * @return the lease of this process's job once it holds one
   * @throws Ended when the job was cancelled or ended without running
   */
  Optional<Lease> poll(Consumer<String> waitLine) {
    JobId mine = java.util.Objects.requireNonNull(job);
    Optional<Lease> adopted = adopt(mine);
    if (adopted.isPresent()) {
      return adopted;
    }
    for (int i = 0; i <= JobSpec.MAX_GPUS; i++) {
      ClaimResult cr = queue.claim(host, 1);
      if (cr.status() != ClaimResult.Status.OK) {
        throw new Ended("host " + host + " cannot claim: " + cr.status().name().toLowerCase(java.util.Locale.ROOT)
            .replace('_', ' '));
      }
      if (cr.claims().isEmpty()) {
        break;
      }
      Claim c = cr.claims().get(0);
      if (c.job().id().equals(mine)) {
        return Optional.of(c.lease());
      }
      other(c);
    }
    queue.collectorHeartbeat(host);
    adopted = adopt(mine);
    if (adopted.isPresent()) {
      return adopted;
    }
    for (JobWait w : queue.waitingJobs(pool)) {
      if (!w.job().id().equals(mine)) {
        goneWaiter(w.job());
      } else {
        WaitReason r = w.reason();
        String key = r.kind() + "|" + r.host() + "|" + r.otherJob() + "|" + r.free() + "|" + r.held() + "|"
            + r.share().map(Object::toString).orElse("");
        if (!key.equals(lastWait)) {
          lastWait = key;
          waitLine.accept(r.sentence());
        }
      }
    }
    return Optional.empty();
  }

  /** The lease of this process's job if the host holds one (claimed by another process): renewed, it is ours. */
  private Optional<Lease> adopt(JobId mine) {
    Job j = queue.store().job(mine).orElseThrow(() -> new Ended("job " + mine.value() + " is gone from the store"));
    if (j.state().isTerminal()) {
      throw new Ended("job " + mine.value() + " is " + j.state().documentName() + j.lastError().map(e -> " (" + e + ")")
          .orElse(""));
    }
    if (j.state() != dev.cipolicy.queue.model.JobState.LEASED || j.lease().isEmpty()
        || !j.lease().get().collector().equals(host)) {
      return Optional.empty();
    }
    LeaseResult hb = queue.heartbeat(j.lease().get());
    if (hb.status() == LeaseStatus.OK) {
      return Optional.of(hb.job().flatMap(Job::lease).orElse(j.lease().get()));
    }
    if (hb.status() == LeaseStatus.CANCELLED) {
      throw new Ended("job " + mine.value() + " was cancelled");
    }
    return Optional.empty();
  }

  /** A claimed job of another process: left for a live owner, cancelled for a gone one. */
  private void other(Claim c) {
    Optional<LeaseOwner> o = LeaseOwner.read(c.job().spec().args());
    if (o.isEmpty() || !o.get().host().equals(host)) {
      queue.fail(c.lease(), Failure.permanent("job " + c.job().id().value() + " is not a fleet lease of host " + host
          + "; pool '" + pool + "' is the lease pool of that host alone"));
      queue.store().completeIfDone(c.job().requestId());
      return;
    }
    if (!o.get().alive()) {
      queue.cancel(c.job().requestId(), "fleet lease process " + o.get().pid() + " on host " + host + " is gone");
      queue.heartbeat(c.lease()); // ends the flagged job's lease: its devices are free
    }
  }

  /** A waiting job of this host whose lease process is gone: its request is cancelled, it holds no place. */
  private void goneWaiter(Job waiting) {
    Optional<LeaseOwner> o = LeaseOwner.read(waiting.spec().args());
    if (o.isPresent() && o.get().host().equals(host) && !o.get().alive()) {
      queue.cancel(waiting.requestId(), "fleet lease process " + o.get().pid() + " on host " + host
          + " is gone while it waited");
    }
  }

  /** Renews the lease; {@code OK}, or why it is no longer this process's. */
  LeaseStatus renew(Lease lease) {
    return queue.heartbeat(lease).status();
  }

  /** Ends the lease with the command's exit code and completes the request. */
  void finish(Lease lease, int exitCode) {
    if (exitCode == 0) {
      queue.complete(lease);
    } else {
      queue.fail(lease, Failure.permanent("the command exited with code " + exitCode));
    }
    if (request != null) {
      queue.store().completeIfDone(request);
    }
  }

  /** Cancels this process's request and ends its job's lease wherever it is held (a signal, an error). */
  void abandon(String reason) {
    if (request == null || job == null) {
      return;
    }
    queue.cancel(request, reason);
    queue.store().job(job).flatMap(Job::lease).ifPresent(queue::heartbeat);
  }

  /** The poll interval for a lease time: at most half a second, and a quarter of the lease. */
  static Duration pollInterval(Duration lease) {
    Duration quarter = lease.dividedBy(4);
    return quarter.compareTo(Duration.ofMillis(500)) < 0 ? quarter : Duration.ofMillis(500);
  }
}
