package dev.cipolicy.fleet.server;

import dev.cipolicy.queue.JobQueue;
import dev.cipolicy.queue.QueueOrder;
import dev.cipolicy.queue.model.Collector;
import dev.cipolicy.queue.model.Job;
import dev.cipolicy.queue.model.JobState;
import dev.cipolicy.queue.model.Lease;
import dev.cipolicy.queue.model.Request;
import dev.cipolicy.queue.model.RequestId;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * The ETAs of the open requests from per-(group, tag) duration history: the queue's remaining work placed on
 * the live fleet by {@link EtaPlanner}, each job expected to run the median of its recent successes (its
 * estimate until it has one). The status page and the ETA-error harness use this same code.
 */
public final class QueueEtas {
  private QueueEtas() {}

  /**
   * The predicted completion of each open request, in seconds from {@code now}.
   *
   * @param queue the queue
   * @param order its order now
   * @param now the store's now
   * @param jobsByRequest the jobs of the requests in progress and of their parents, by request
   * @param collectors the collectors
   * @param live which collectors count (live, or holding a live lease)
   * @param claimedAt when a lease was claimed
   * @param durations the duration history
   * @return the seconds until completion, by request id; absent for a request that cannot be placed
   */
  public static Map<RequestId, Double> compute(JobQueue queue, QueueOrder order, Instant now,
      Map<RequestId, List<Job>> jobsByRequest, List<Collector> collectors, Predicate<Collector> live,
      Function<Lease, Instant> claimedAt, DurationHistory durations) {
    EtaPlanner planner = new EtaPlanner();
    for (Collector c : collectors) {
      if (live.test(c)) {
        planner.host(c.name(), c.tag(), c.devices().isEmpty() ? 2 : c.devices().size());
      }
    }
    Map<RequestId, Double> runningUntil = new HashMap<>();
    for (List<Job> jobs : jobsByRequest.values()) {
      for (Job j : jobs) {
        if (j.state() != JobState.LEASED || j.lease().isEmpty()) {
          continue;
        }
        Lease l = j.lease().get();
        double elapsed = DurationHistory.seconds(Duration.between(claimedAt.apply(l), now));
        double expected = durations.expectedSeconds(j.spec());
        double remaining = elapsed < expected ? expected - elapsed : 0.1 * expected;
        planner.running(new EtaPlanner.Running(l.collector(), Math.max(1, l.devices().size()), remaining));
        runningUntil.merge(j.requestId(), remaining, Math::max);
      }
    }
    List<EtaPlanner.Work> work = new ArrayList<>();
    for (QueueOrder.Placed p : order.placed()) {
      Request r = p.request();
      String id = Long.toString(r.id().value());
      if (p.section() == QueueOrder.Section.IN_PROGRESS) {
        List<Job> own = new ArrayList<>(jobsByRequest.getOrDefault(r.id(), List.of()));
        double until = runningUntil.getOrDefault(r.id(), 0.0);
        if (r.parentRequest().isPresent()) {
          RequestId parent = r.parentRequest().get();
          own.addAll(jobsByRequest.getOrDefault(parent, List.of()));
          until = Math.max(until, runningUntil.getOrDefault(parent, 0.0));
        }
        own.sort(Comparator.comparing(Job::id));
        work.add(new EtaPlanner.Work(id, true, own.stream()
            .filter(j -> j.state() == JobState.QUEUED && !j.spec().optional()).map(Job::spec).toList(), until));
      } else {
        work.add(new EtaPlanner.Work(id, false, queue.jobsFor(r).stream().filter(x -> !x.optional()).toList(), 0));
      }
    }
    Map<String, Double> byKey = planner.plan(work, queue.settings().maxInProgress(), durations::expectedSeconds);
    Map<RequestId, Double> out = new HashMap<>();
    byKey.forEach((k, v) -> out.put(RequestId.of(Long.parseLong(k)), v));
    return out;
  }
}
