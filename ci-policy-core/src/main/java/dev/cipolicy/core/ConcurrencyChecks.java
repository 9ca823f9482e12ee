package dev.cipolicy.core;

import dev.cipolicy.api.concurrency.ConcurrencyAction;
import dev.cipolicy.api.concurrency.ConcurrencyEventType;
import dev.cipolicy.api.concurrency.GroupKeySource;
import dev.cipolicy.api.concurrency.WorkflowConcurrency;
import dev.cipolicy.api.policy.Policy;
import dev.cipolicy.api.policy.ScheduleRule;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.BiConsumer;

/**
 * The static checks of the {@code workflows} section: names, group prefixes that can never
 * produce the same group key for two workflows, and a {@code closed} action that always cancels.
 */
final class ConcurrencyChecks {
  private final Policy policy;
  private final BiConsumer<String, String> problem;
  private final Set<String> crons = new LinkedHashSet<>();

  private ConcurrencyChecks(Policy policy, BiConsumer<String, String> problem) {
    this.policy = policy;
    this.problem = problem;
    policy.schedules().stream().map(ScheduleRule::cron).forEach(crons::add);
  }

  /**
   * Runs the checks and reports each problem as (field path, message).
   *
   * @param policy the policy
   * @param problem receives every problem found
   */
  static void check(Policy policy, BiConsumer<String, String> problem) {
    new ConcurrencyChecks(policy, problem).run();
  }

  private static String path(WorkflowConcurrency w) {
    return "workflows." + w.name();
  }

  private void run() {
    Map<String, WorkflowConcurrency> names = new HashMap<>();
    Map<String, WorkflowConcurrency> prefixes = new HashMap<>();
    List<WorkflowConcurrency> usable = new ArrayList<>();
    for (WorkflowConcurrency w : policy.workflows()) {
      String path = path(w);
      if (!Names.NAME.matcher(w.name()).matches()) {
        problem.accept(path, "workflow name '" + w.name() + "' must match " + Names.NAME.pattern());
      }
      if (names.putIfAbsent(w.name(), w) != null) {
        problem.accept(path, "workflow '" + w.name() + "' is declared twice");
      }
      checkActions(w, path);
      String prefix = w.groupPrefix(); // never empty: the workflow's builder checks it
      if (!Names.PREFIX.matcher(prefix).matches()) {
        problem.accept(path + ".group_prefix", "group prefix '" + prefix
            + "' must use only letters, digits and _ . - so that group keys are shell-safe");
        continue;
      }
      WorkflowConcurrency owner = prefixes.putIfAbsent(prefix, w);
      if (owner != null) {
        problem.accept(path + ".group_prefix", "group prefix '" + prefix + "' is already used by workflow '"
            + owner.name() + "'; concurrency groups are repository-wide, so the two workflows would cancel"
            + " each other's runs");
        continue;
      }
      usable.add(w);
    }
    for (WorkflowConcurrency a : usable) {
      for (WorkflowConcurrency b : usable) {
        if (a != b && b.groupPrefix().startsWith(a.groupPrefix())) {
          checkExtension(a, b);
        }
      }
    }
  }

  private void checkActions(WorkflowConcurrency w, String path) {
    ConcurrencyAction closed = w.action(ConcurrencyEventType.CLOSED);
    if (closed != ConcurrencyAction.CANCEL) {
      problem.accept(path + ".on.closed", "closed must be cancel, not " + closed.documentName()
          + ": closing a pull request must end every run of it in every workflow (a workflow that does not"
          + " cancel on close keeps runners busy for a PR nobody will merge)");
    }
    if (w.action(ConcurrencyEventType.MERGED) == ConcurrencyAction.QUEUE) {
      problem.accept(path + ".on.merged", "merged must be cancel or ignore, not queue: the run a merge"
          + " starts is cancellation-only, so queueing it would only hold the group until older runs finish");
    }
  }

  /**
   * A prefix may extend another only by text that no group key of the shorter one can start with: with
   * {@code a = pr-test-} and {@code b = pr-test-rocm-}, a key of {@code a} would have to continue with
   * {@code rocm-}, which no PR number, run id, declared cron or full git ref does.
   */
  private void checkExtension(WorkflowConcurrency a, WorkflowConcurrency b) {
    String rest = b.groupPrefix().substring(a.groupPrefix().length());
    List<String> candidates = new ArrayList<>();
    candidates.add("1");
    candidates.add("refs/heads/main");
    for (String cron : crons) {
      candidates.add(cron);
      if (cron.startsWith(rest)) {
        candidates.add(cron.substring(rest.length()));
      }
    }
    for (String tail : candidates) {
      Optional<GroupKeySource> asB = source(tail);
      Optional<GroupKeySource> asA = source(rest + tail);
      if (asA.isPresent() && asB.isPresent()) {
        String key = b.groupPrefix() + tail;
        problem.accept(path(b) + ".group_prefix", "group prefix '" + b.groupPrefix() + "' extends the prefix '"
            + a.groupPrefix() + "' of workflow '" + a.name() + "' by '" + rest + "', so group key '" + key
            + "' belongs both to workflow '" + a.name() + "' (" + asA.get().describe(rest + tail)
            + ") and to workflow '" + b.name() + "' (" + asB.get().describe(tail) + "); concurrency groups are"
            + " repository-wide, so their runs would cancel each other. A prefix may extend another only by"
            + " text no key can start with, such as a letter (e.g. 'pr-test-' and 'pr-test-rocm-')");
        return;
      }
    }
  }

  /** What a key suffix can be in this policy: a PR number or run id, a declared cron, or a full ref. */
  private Optional<GroupKeySource> source(String suffix) {
    if (GroupKeySource.PR_NUMBER.accepts(suffix)) {
      return Optional.of(GroupKeySource.PR_NUMBER);
    }
    if (crons.contains(suffix)) {
      return Optional.of(GroupKeySource.CRON);
    }
    if (GroupKeySource.RELEASE_REF.accepts(suffix)) {
      return Optional.of(GroupKeySource.RELEASE_REF);
    }
    return Optional.empty();
  }
}
