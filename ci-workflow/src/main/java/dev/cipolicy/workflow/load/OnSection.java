package dev.cipolicy.workflow.load;

import dev.cipolicy.core.load.Node;
import dev.cipolicy.workflow.Trigger;
import dev.cipolicy.workflow.WorkflowInput;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Reads {@code on:}: an event name, a list or a mapping of events, with {@code types}, the {@code schedule}
 * crons and the {@code workflow_dispatch}/{@code workflow_call} inputs.
 */
final class OnSection {
  private final WorkflowReader r;

  OnSection(WorkflowReader r) {
    this.r = r;
  }

  /** The triggers of the workflow mapping; a missing {@code on:} is a problem. */
  List<Trigger> read(Node.MapNode root) {
    List<Trigger> out = new ArrayList<>();
    Node.Entry on = root.entries().get("on");
    if (on == null) {
      r.problem(root.location(), "", "missing 'on:'; expected the events the workflow runs on");
      return out;
    }
    Node v = on.value();
    if (v instanceof Node.Scalar s && s.kind() == Node.Scalar.Kind.STRING) {
      out.add(new Trigger(s.text(), List.of(), s.location()));
    } else if (v instanceof Node.ListNode l) {
      for (int i = 0; i < l.items().size(); i++) {
        Node item = l.items().get(i);
        if (item instanceof Node.Scalar s && s.kind() == Node.Scalar.Kind.STRING && !s.text().isEmpty()) {
          out.add(new Trigger(s.text(), List.of(), s.location()));
        } else {
          r.problem(item.location(), "on[" + i + "]", "expected an event name, found " + item.describe());
        }
      }
    } else if (v instanceof Node.MapNode m) {
      for (Node.Entry e : m.entries().values()) {
        trigger(e).ifPresent(out::add);
      }
    } else {
      r.problem(v.location(), "on", "expected an event name, a list or a mapping of events, found " + v.describe());
    }
    return out;
  }

  private Optional<Trigger> trigger(Node.Entry e) {
    String path = "on." + e.key();
    Node v = e.value();
    List<String> types = new ArrayList<>();
    List<String> crons = new ArrayList<>();
    List<WorkflowInput> inputs = new ArrayList<>();
    if (e.key().equals("schedule")) {
      crons.addAll(crons(v, path));
    } else if (v instanceof Node.MapNode m) {
      Node.Entry t = m.entries().get("types");
      if (t != null) {
        types.addAll(r.strings(t.value(), path + ".types"));
      }
      Node.Entry in = m.entries().get("inputs");
      if (in != null && (e.key().equals("workflow_dispatch") || e.key().equals("workflow_call"))) {
        inputs.addAll(inputs(in, path));
      }
    } else if (!WorkflowReader.isNull(v)) {
      r.problem(v.location(), path, "expected a mapping (types, branches, inputs...) or nothing, found "
          + v.describe());
    }
    if (e.key().isEmpty()) {
      r.problem(e.keyLocation(), "on", "an event name must not be empty");
      return Optional.empty();
    }
    return Optional.of(new Trigger(e.key(), types, crons, inputs, e.keyLocation()));
  }

  private List<String> crons(Node v, String path) {
    List<String> crons = new ArrayList<>();
    if (!(v instanceof Node.ListNode l)) {
      r.problem(v.location(), path, "expected a list of {cron: '...'}, found " + v.describe());
      return crons;
    }
    for (int i = 0; i < l.items().size(); i++) {
      Node item = l.items().get(i);
      Optional<String> cron = item instanceof Node.MapNode cm ? r.scalar(cm, "cron", path + "[" + i + "].cron")
          : Optional.empty();
      if (cron.isPresent()) {
        crons.add(cron.get());
      } else {
        r.problem(item.location(), path + "[" + i + "]", "expected {cron: '...'}, found " + item.describe());
      }
    }
    return crons;
  }

  private List<WorkflowInput> inputs(Node.Entry in, String path) {
    List<WorkflowInput> inputs = new ArrayList<>();
    if (in.value() instanceof Node.MapNode im) {
      for (Node.Entry i : im.entries().values()) {
        inputs.add(input(i, path + ".inputs." + i.key()));
      }
    } else if (!WorkflowReader.isNull(in.value())) {
      r.problem(in.value().location(), path + ".inputs", "expected a mapping of inputs, found "
          + in.value().describe());
    }
    return inputs;
  }

  private WorkflowInput input(Node.Entry e, String path) {
    Optional<String> type = Optional.empty();
    boolean required = false;
    Optional<String> def = Optional.empty();
    if (e.value() instanceof Node.MapNode m) {
      type = r.scalar(m, "type", path + ".type");
      Node.Entry req = m.entries().get("required");
      if (req != null) {
        required = r.bool(req.value(), path + ".required").orElse(false);
      }
      Node.Entry d = m.entries().get("default");
      if (d != null) {
        def = r.text(d.value(), path + ".default");
      }
    } else if (!WorkflowReader.isNull(e.value())) {
      r.problem(e.value().location(), path, "expected a mapping (type, required, default...), found "
          + e.value().describe());
    }
    return new WorkflowInput(e.key(), type, required, def, e.keyLocation());
  }
}
