package dev.cipolicy.core.load;

import dev.cipolicy.api.policy.RunCommand;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Reads the {@code run} mapping of a backend or a suite: how a job of the suite runs on a host. Types are
 * checked here with locations; the templates, the limits and the variable names are rules of
 * {@link RunCommand}, reported at the template's own path ({@code backends.cuda.run.command[3]}).
 *
 * <pre>{@code
 * run:
 *   command: [python, tests/ci/run_suite.py, --suite, "{suite}"]   # quote placeholders in YAML
 *   image: "radixark/miles:{image_tag}"
 *   env: {CI_RUN_ID: "{run_id}"}
 * }</pre>
 */
final class RunSection {
  /** The field of a backend or suite that holds the section. */
  static final String FIELD = "run";

  /** The field of a backend that lists its device variables. */
  static final String DEVICE_ENV_FIELD = "device_env";

  /** The keys of the section. */
  static final Set<String> RUN_FIELDS = Set.of("command", "image", "env");

  private RunSection() {}

  /**
   * Reads the section of a backend or suite, when present.
   *
   * @param r the reader
   * @param owner the backend's or suite's fields
   * @return the command, absent when the section is missing or has problems
   */
  static Optional<RunCommand> read(DocReader r, DocReader.Fields owner) {
    String path = owner.path(FIELD);
    return owner.node(FIELD).flatMap(n -> r.fields(n, path, RUN_FIELDS)).flatMap(f -> {
      RunCommand.Builder b = RunCommand.builder();
      f.required("command").ifPresent(n -> b.addAllCommand(r.stringList(n, f.path("command"))));
      f.string("image").ifPresent(b::image);
      Map<String, String> keys = new HashMap<>();
      f.node("env").flatMap(n -> r.namedMap(n, f.path("env"))).ifPresent(m -> {
        for (Node.Entry e : m.view().values()) {
          String field = DocReader.child("env", e.key());
          keys.put(field, field);
          r.string(e.value(), DocReader.child(f.path("env"), e.key())).ifPresent(v -> b.putEnv(e.key(), v));
        }
      });
      return r.build(path, keys, b::build);
    });
  }

  /**
   * The keys the loader must keep as written when it reports a rule of a backend: the environment
   * variables of its and its suites' run commands ({@code run.env.CI_RUN_ID} is not snake case).
   *
   * @param backendRun the backend's command
   * @param suiteRuns each suite's command, by suite name
   * @return field to key
   */
  static Map<String, String> backendKeys(Optional<RunCommand> backendRun, Map<String, RunCommand> suiteRuns) {
    Map<String, String> keys = new HashMap<>();
    keys.put("name", "");
    backendRun.ifPresent(run -> run.env().keySet().forEach(k -> keys.put("run.env." + k, "run.env." + k)));
    suiteRuns.forEach((suite, run) -> run.env().keySet().forEach(k -> {
      String field = "suites." + suite + ".run.env." + k;
      keys.put(field, field);
    }));
    return keys;
  }
}
