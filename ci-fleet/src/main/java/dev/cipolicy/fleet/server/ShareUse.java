package dev.cipolicy.fleet.server;

import dev.cipolicy.api.policy.FleetShare;
import dev.cipolicy.fleet.server.Api.ShareDto;
import dev.cipolicy.queue.model.Collector;
import dev.cipolicy.queue.model.Job;
import dev.cipolicy.queue.model.Request;
import dev.cipolicy.queue.model.RequestId;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * What each cadence holds of each pool, against its fleet share: the one place the page's share bars are
 * computed. The use is read from the live leases (a job's cadence is the one its spec carries, else its
 * request's: {@code nightly} for a nightly tag, else {@code regular}), the limits from the policy's
 * {@code fleet.shares} (the same shares the fleet gives the store, which enforces them at each claim), the
 * capacity from the live fleet (its hosts' devices, or one runner per collector). A cadence without a share of
 * a pool (the regular one) is shown against the whole pool.
 */
public final class ShareUse {
  private ShareUse() {}

  /**
   * The share bars.
   *
   * @param leased the leased jobs
   * @param requests the requests of those jobs, by id
   * @param collectors the collectors
   * @param shares the policy's shares
   * @return one bar per declared share whose pool has a collector, then one per pool for the regular cadence
   */
  public static List<ShareDto> of(List<Job> leased, Map<RequestId, Request> requests, List<Collector> collectors,
      List<FleetShare> shares) {
    Map<String, int[]> capacity = new TreeMap<>(); // pool -> {gpus, runners}
    for (Collector c : collectors) {
      int[] cap = capacity.computeIfAbsent(c.tag(), t -> new int[2]);
      cap[0] += c.devices().size();
      cap[1] += 1;
    }
    Map<String, int[]> used = new TreeMap<>(); // cadence|pool -> {gpus, runners}
    for (Job j : leased) {
      Request r = requests.get(j.requestId());
      String cadence = j.spec().hasCadence() ? j.spec().cadence() : r == null ? "regular" : FleetView.cadenceOf(r);
      int[] u = used.computeIfAbsent(cadence + "|" + j.spec().pool(), k -> new int[2]);
      u[0] += j.spec().gpus();
      u[1] += 1;
    }
    List<ShareDto> out = new ArrayList<>();
    for (FleetShare s : shares) {
      int[] cap = capacity.get(s.pool());
      if (cap == null) {
        continue;
      }
      int unit = s.unit() == FleetShare.Unit.GPUS ? 0 : 1;
      int[] u = used.getOrDefault(s.cadence() + "|" + s.pool(), new int[2]);
      out.add(new ShareDto(s.cadence(), s.pool(), s.unit().documentName(), u[unit], s.amount(), cap[unit],
          s.borrow(), "policy fleet.shares"));
    }
    for (Map.Entry<String, int[]> e : capacity.entrySet()) {
      String pool = e.getKey();
      int[] cap = e.getValue();
      int unit = cap[0] > 0 ? 0 : 1;
      int[] u = used.getOrDefault("regular|" + pool, new int[2]);
      out.add(new ShareDto("regular", pool, unit == 0 ? "gpus" : "runners", u[unit], cap[unit], cap[unit], true,
          "no share: the whole pool"));
    }
    return out;
  }
}
