package dev.cipolicy.workflow.load;

import dev.cipolicy.core.load.Node;
import dev.cipolicy.workflow.Concurrency;
import java.util.Optional;

/**
 * Reads a {@code concurrency:} of the workflow or of a job: a group name, or {@code group} and
 * {@code cancel-in-progress}.
 */
final class ConcurrencySection {
  private final WorkflowReader r;

  ConcurrencySection(WorkflowReader r) {
    this.r = r;
  }

  /** The {@code concurrency} of a workflow or job mapping; absent is empty. */
  Optional<Concurrency> read(Node.MapNode m, String path) {
    Node.Entry c = m.entries().get("concurrency");
    if (c == null) {
      return Optional.empty();
    }
    Node v = c.value();
    if (v instanceof Node.Scalar s && s.kind() == Node.Scalar.Kind.STRING && !s.text().isEmpty()) {
      return r.expression(s.text(), s.location(), path)
          ? Optional.of(new Concurrency(s.text(), "false", c.keyLocation())) : Optional.empty();
    }
    if (v instanceof Node.MapNode cm) {
      Optional<String> group = r.scalar(cm, "group", path + ".group");
      String cancel = "false";
      Node.Entry ci = cm.entries().get("cancel-in-progress");
      if (ci != null) {
        cancel = r.text(ci.value(), path + ".cancel-in-progress").orElse("false");
        r.expression(cancel, ci.value().location(), path + ".cancel-in-progress");
      }
      if (group.isEmpty() || group.get().isEmpty()) {
        r.problem(c.keyLocation(), path, "missing 'group'; expected the concurrency group");
        return Optional.empty();
      }
      return r.expression(group.get(), c.keyLocation(), path + ".group")
          ? Optional.of(new Concurrency(group.get(), cancel, c.keyLocation())) : Optional.empty();
    }
    r.problem(v.location(), path, "expected a group name or a mapping (group, cancel-in-progress), found "
        + v.describe());
    return Optional.empty();
  }
}
