package dev.cipolicy.api;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Why a decision came out as it did: the decision, the rules that fired in order, and hints about what
 * would change the result. Renders as one sentence and as JSON, byte for byte deterministic.
 *
 * @param decision the decision in a few words, e.g. {@code cadence=weekly scope=all}
 * @param reasons the rules that fired, in the order they were applied
 * @param hints what would change the result, e.g. {@code adding run-ci-long would include long}
 */
public record Explanation(String decision, List<Reason> reasons, List<String> hints) {

  /**
   * One rule that contributed to a decision.
   *
   * @param rule a stable rule identifier, e.g. {@code cadence.schedule}
   * @param detail what the rule saw and concluded, as a sentence fragment
   */
  public record Reason(String rule, String detail) {
    /** Validates the components. */
    public Reason {
      if (rule == null || rule.isEmpty() || detail == null) {
        throw new IllegalArgumentException("a reason needs a rule and a detail");
      }
    }
  }

  /** Copies the lists so that the explanation is immutable. */
  public Explanation {
    if (decision == null || reasons == null || hints == null) {
      throw new IllegalArgumentException("an explanation needs a decision, reasons and hints");
    }
    reasons = List.copyOf(reasons);
    hints = List.copyOf(hints);
  }

  /**
   * Renders the explanation as one human sentence.
   *
   * @return e.g. {@code cadence=weekly scope=all included 19 of 19 labels because schedule '0 15 * * 6' maps
   *     to cadence weekly; scope 'all' (every known label) matched: cadence is weekly; ...}
   */
  public String sentence() {
    StringBuilder sb = new StringBuilder(decision);
    if (!reasons.isEmpty()) {
      sb.append(" because ");
      for (int i = 0; i < reasons.size(); i++) {
        if (i > 0) {
          sb.append("; ");
        }
        sb.append(reasons.get(i).detail());
      }
    }
    if (!hints.isEmpty()) {
      sb.append(" (").append(String.join("; ", hints)).append(')');
    }
    return sb.append('.').toString();
  }

  /**
   * Renders the explanation as compact JSON with the keys {@code decision}, {@code reasons} (each
   * {@code rule}, {@code detail}) and {@code hints}.
   *
   * @return compact JSON text
   */
  public String toJson() {
    return CanonicalJson.write(toMap());
  }

  /**
   * The explanation as an ordered tree of maps, lists and strings, ready for any JSON writer.
   *
   * @return an ordered map with {@code decision}, {@code reasons} and {@code hints}
   */
  public Map<String, Object> toMap() {
    Map<String, Object> root = new LinkedHashMap<>();
    root.put("decision", decision);
    List<Object> rs = new ArrayList<>();
    for (Reason r : reasons) {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("rule", r.rule());
      m.put("detail", r.detail());
      rs.add(m);
    }
    root.put("reasons", rs);
    root.put("hints", new ArrayList<Object>(hints));
    return root;
  }
}
