package dev.cipolicy.workflow.lint;

import dev.cipolicy.api.SourceLocation;
import dev.cipolicy.workflow.Expression;
import dev.cipolicy.workflow.InvalidExpressionException;
import dev.cipolicy.workflow.Job;
import dev.cipolicy.workflow.Workflow;
import dev.cipolicy.workflow.lint.LintFinding.Severity;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The rule {@link LintRule#NEEDS_DIRECT}: a job reads {@code needs.X} only for a job it needs directly.
 */
final class NeedsDirect implements LintCheck {
  private final LintRun run;

  NeedsDirect(LintRun run) {
    this.run = run;
  }

  @Override
  public void check(List<LintFinding> out) {
    for (Workflow w : run.workflows()) {
      needsDirect(w, out);
    }
  }

  /** The jobs an expression reads through {@code needs} that the job does not need directly. */
  private static Set<String> notDirect(Job j, Expression e) {
    Set<String> out = new LinkedHashSet<>();
    for (String ref : e.neededJobs()) {
      if (j.needs().stream().noneMatch(n -> n.equalsIgnoreCase(ref))) {
        out.add(ref);
      }
    }
    return out;
  }

  /** Whether a job's {@code if} reads {@code needs} of a job it does not need directly. */
  static boolean readsNotDirect(Job j) {
    return j.condition().map(c -> !notDirect(j, c.expression()).isEmpty()).orElse(false);
  }

  private static void needsDirect(Workflow w, List<LintFinding> out) {
    Set<String> ids = new LinkedHashSet<>();
    w.jobs().forEach(j -> ids.add(j.id()));
    for (Job j : w.jobs()) {
      Map<String, SourceLocation> refs = new LinkedHashMap<>();
      j.condition().ifPresent(c -> notDirect(j, c.expression()).forEach(r -> refs.putIfAbsent(r, c.location())));
      for (String text : j.texts()) {
        if (!text.contains("${{")) {
          continue;
        }
        try {
          notDirect(j, Expression.parseTemplate(text)).forEach(r -> refs.putIfAbsent(r, j.location()));
        } catch (InvalidExpressionException e) {
          // a text that is no valid template reads nothing the lint can see
        }
      }
      refs.forEach((ref, at) -> {
        String fix = ids.contains(ref) ? "add " + ref + " to its needs, or read what it needs through a job it needs"
            : "no job of " + w.file() + " is named " + ref + closest(ref, j.needs()).map(c -> " (did you mean "
                + c + "?)").orElse("") + "; name a job of its needs";
        out.add(new LintFinding(LintRule.NEEDS_DIRECT, Severity.ERROR, at, Optional.of(j.id()), "job " + j.id()
            + " reads needs." + ref + ", but " + ref + " is not a job it needs directly (its needs: " + j.needs()
            + "); GitHub sets needs.<job> only for direct dependencies, so needs." + ref + " is null and every test"
            + " of it is decided by that null; " + fix));
      });
    }
  }

  /** The name of {@code candidates} closest to {@code ref} by edit distance, when one is within 3 edits. */
  private static Optional<String> closest(String ref, List<String> candidates) {
    String best = null;
    int bestDistance = 4;
    for (String c : candidates) {
      int d = distance(ref, c);
      if (d < bestDistance) {
        best = c;
        bestDistance = d;
      }
    }
    return Optional.ofNullable(best);
  }

  private static int distance(String a, String b) {
    int[] prev = new int[b.length() + 1];
    int[] cur = new int[b.length() + 1];
    for (int j = 0; j <= b.length(); j++) {
      prev[j] = j;
    }
    for (int i = 1; i <= a.length(); i++) {
      cur[0] = i;
      for (int j = 1; j <= b.length(); j++) {
        int sub = prev[j - 1] + (a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1);
        cur[j] = Math.min(sub, Math.min(prev[j] + 1, cur[j - 1] + 1));
      }
      int[] t = prev;
      prev = cur;
      cur = t;
    }
    return prev[b.length()];
  }
}
