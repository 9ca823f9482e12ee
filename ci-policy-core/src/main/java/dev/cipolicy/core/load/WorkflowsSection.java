package dev.cipolicy.core.load;

import dev.cipolicy.api.concurrency.ConcurrencyAction;
import dev.cipolicy.api.concurrency.ConcurrencyEventType;
import dev.cipolicy.api.concurrency.WorkflowConcurrency;
import dev.cipolicy.api.policy.Policy;
import dev.cipolicy.api.policy.WorkflowRoles;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Reads the {@code workflows} section of a policy document:
 *
 * <pre>{@code
 * workflows:
 *   pr-test:
 *     group_prefix: pr-test-
 *     on: {superseded: cancel, closed: cancel, merged: cancel, scheduled: cancel, dispatched: cancel}
 *   pr-test-rocm:
 *     group_prefix: pr-test-rocm-
 * }</pre>
 */
final class WorkflowsSection {
  /** The root field of the section. */
  static final String FIELD = "workflows";

  /** The keys of one workflow's entry. */
  static final Set<String> WORKFLOW_FIELDS = Set.of("group_prefix", "on", "description", "roles");

  /** The keys of a workflow's {@code roles}. */
  static final Set<String> ROLE_FIELDS = Set.of("file", "policy_job", "gate_job", "stage_jobs", "outputs",
      "throttled_cadences");

  /** The keys of {@code roles.outputs}: the policy job's output names. */
  static final Set<String> OUTPUT_FIELDS = Set.of("cadence", "labels", "bypass", "skipped_stages");

  private WorkflowsSection() {}

  static void read(DocReader r, DocReader.Fields root, Policy.Builder policy) {
    root.node(FIELD).flatMap(n -> r.namedMap(n, FIELD))
        .ifPresent(m -> m.view().values().forEach(e -> {
          readWorkflow(r, e).ifPresent(policy::addWorkflows);
          readRoles(r, e).ifPresent(policy::addWorkflowRoles);
        }));
  }

  private static Optional<WorkflowRoles> readRoles(DocReader r, Node.Entry e) {
    if (!(e.value() instanceof Node.MapNode m) || !m.view().containsKey("roles")) {
      return Optional.empty();
    }
    Node.Entry roles = m.view().get("roles");
    String path = DocReader.child(DocReader.child(FIELD, e.key()), "roles");
    return r.fields(roles.value(), path, ROLE_FIELDS).flatMap(f -> {
      WorkflowRoles.Builder b = WorkflowRoles.builder().workflow(e.key()).location(roles.keyLocation());
      f.string("file").ifPresent(b::file);
      Optional<String> policyJob = f.requiredString("policy_job");
      f.string("gate_job").ifPresent(b::gateJob);
      f.node("stage_jobs").flatMap(n -> r.namedMap(n, f.path("stage_jobs"))).ifPresent(sm -> {
        for (Node.Entry j : sm.view().values()) {
          r.string(j.value(), DocReader.child(f.path("stage_jobs"), j.key())).ifPresent(s -> b.putStageJobs(j.key(), s));
        }
      });
      f.node("outputs").flatMap(n -> r.fields(n, f.path("outputs"), OUTPUT_FIELDS)).ifPresent(o -> {
        o.string("cadence").ifPresent(b::cadenceOutput);
        o.string("labels").ifPresent(b::labelsOutput);
        o.string("bypass").ifPresent(b::bypassOutput);
        o.string("skipped_stages").ifPresent(b::skippedStagesOutput);
      });
      b.addAllThrottledCadences(f.stringList("throttled_cadences"));
      return policyJob.flatMap(p -> r.build(path, Map.of("workflow", "", "location", ""), b.policyJob(p)::build));
    });
  }

  private static Optional<WorkflowConcurrency> readWorkflow(DocReader r, Node.Entry e) {
    String path = DocReader.child(FIELD, e.key());
    return r.fields(e.value(), path, WORKFLOW_FIELDS).flatMap(f -> {
      WorkflowConcurrency.Builder b = WorkflowConcurrency.builder().name(e.key());
      Optional<String> prefix = f.requiredString("group_prefix");
      f.string("description").ifPresent(b::description);
      f.node("on").flatMap(n -> r.namedMap(n, f.path("on"))).ifPresent(m -> {
        for (Node.Entry a : m.view().values()) {
          String actionPath = DocReader.child(f.path("on"), a.key());
          Optional<ConcurrencyEventType> type = ConcurrencyEventType.fromDocumentName(a.key());
          if (type.isEmpty()) {
            r.problem(a.keyLocation(), actionPath, "unknown event type '" + a.key() + "'; expected one of "
                + ConcurrencyEventType.documentNames());
          }
          Optional<String> name = r.string(a.value(), actionPath);
          Optional<ConcurrencyAction> action = name.flatMap(ConcurrencyAction::fromDocumentName);
          if (name.isPresent() && action.isEmpty()) {
            r.problem(a.value().location(), actionPath, "unknown action '" + name.get() + "'; expected one of "
                + ConcurrencyAction.documentNames());
          }
          if (type.isPresent() && action.isPresent()) {
            b.putActions(type.get(), action.get());
          }
        }
      });
      return prefix.flatMap(p -> r.build(path, Map.of("name", ""), b.groupPrefix(p)::build));
    });
  }
}
