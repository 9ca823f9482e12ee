package dev.cipolicy.core.load;

import dev.cipolicy.api.InvalidGateException;
import dev.cipolicy.api.InvalidPolicyException;
import dev.cipolicy.api.PolicyProblem;
import dev.cipolicy.api.gate.GateDeclaration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Loads a gate declarations document: a YAML or JSON mapping from test file path to the list of gates
 * the test declares. A declaration may leave out {@code steps}, {@code constraint} and {@code better};
 * they then come from the policy's {@code gates.defaults}. Every declared part is checked against the
 * rules here, with its location.
 *
 * <pre>{@code
 * tests/e2e/test_fsdp_short.py:
 *   - metric_key: train/grad_norm                # everything from the defaults
 *   - metric_key: rollout/raw_reward
 *     steps: [0, 10, 20]
 *     constraint: {rel_up: .5, abs_floor_up: .05, rel_down: .2, abs_floor_down: .05}
 *     better: higher
 * }</pre>
 */
public final class GateDeclarationsLoader {
  private GateDeclarationsLoader() {}

  /**
   * Parses and checks a declarations document, picking YAML or JSON from the source name's extension.
   *
   * @param sourceName the name used in messages
   * @param text the document text
   * @return the declarations of each test file, in document order
   * @throws InvalidGateException listing every problem, each with its location
   */
  public static Map<String, List<GateDeclaration>> load(String sourceName, String text) {
    Node root;
    try {
      root = TreeParser.parse(sourceName, text, DocumentFormat.fromFileName(sourceName));
    } catch (InvalidPolicyException e) {
      throw new InvalidGateException(e.problems());
    }
    DocReader r = new DocReader();
    Map<String, List<GateDeclaration>> out = new LinkedHashMap<>();
    r.namedMap(root, "").ifPresent(tests -> {
      for (Node.Entry test : tests.view().values()) {
        List<GateDeclaration> declared = new ArrayList<>();
        r.list(test.value(), test.key()).ifPresent(list -> {
          for (int i = 0; i < list.items().size(); i++) {
            String path = DocReader.index(test.key(), i);
            GatesSection.testDeclaration(r, list.items().get(i), path).ifPresent(d -> {
              for (PolicyProblem p : d.violations()) {
                PolicyProblem rooted = GateDeclaration.under(path, p);
                r.problem(r.locate(rooted.path()).orElse(test.keyLocation()), rooted.path(),
                    rooted.message());
              }
              declared.add(d);
            });
          }
        });
        out.put(test.key(), List.copyOf(declared));
      }
    });
    if (!r.problems().isEmpty()) {
      throw new InvalidGateException(r.problems());
    }
    return Collections.unmodifiableMap(out);
  }
}
