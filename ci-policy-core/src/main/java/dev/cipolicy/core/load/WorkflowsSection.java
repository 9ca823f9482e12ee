package dev.cipolicy.core.load;

import dev.cipolicy.api.concurrency.ConcurrencyAction;
import dev.cipolicy.api.concurrency.ConcurrencyEventType;
import dev.cipolicy.api.concurrency.WorkflowConcurrency;
import dev.cipolicy.api.policy.Policy;
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
  static final Set<String> WORKFLOW_FIELDS = Set.of("group_prefix", "on", "description");

  private WorkflowsSection() {}

  static void read(DocReader r, DocReader.Fields root, Policy.Builder policy) {
    root.node(FIELD).flatMap(n -> r.namedMap(n, FIELD))
        .ifPresent(m -> m.view().values().forEach(e -> readWorkflow(r, e).ifPresent(policy::addWorkflows)));
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
