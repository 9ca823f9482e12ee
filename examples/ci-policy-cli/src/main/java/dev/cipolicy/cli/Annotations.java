package dev.cipolicy.cli;

import dev.cipolicy.api.CiPolicyException;
import dev.cipolicy.api.InvalidGateException;
import dev.cipolicy.api.InvalidPolicyException;
import dev.cipolicy.api.PolicyProblem;
import dev.cipolicy.api.RegistrationException;
import dev.cipolicy.api.SourceLocation;
import dev.cipolicy.api.Warning;
import dev.cipolicy.workflow.InvalidWorkflowException;
import dev.cipolicy.workflow.WorkflowWarning;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * The GitHub annotations of the CLI: a policy problem or a warning becomes one workflow command that names
 * the file, line and column it is about, and a short rule id as its title, so that the runner shows it on
 * that line of the pull request's diff.
 *
 * <ul>
 *   <li>A located problem: {@code ::error file=<f>,line=<l>,col=<c>,title=<rule>::<message>}; without a
 *       location: {@code ::error title=<rule>::<path>: <message>}.</li>
 *   <li>A located warning: {@code ::warning file=<f>,line=<l>,col=<c>,title=<code>::<message>}; without a
 *       location: {@code ::warning title=<code>::<message>}.</li>
 * </ul>
 *
 * <p>Property values are escaped with {@link Console#escapeProperty} ({@code %}, CR, LF, {@code :} and
 * {@code ,}), so the file name reaches the runner exactly; the data with {@link Console#escapeData}, after a
 * line break quoted from an input is written {@code \n} or {@code \r} (as in every message of ours), so
 * the annotation is one line. The file is the document's name as given on the command line; an absolute
 * name inside {@code $GITHUB_WORKSPACE} is made relative to it, as the runner expects.
 *
 * <p>The rule of a problem is the kind of thing it is about, taken from the document and from the first
 * section of the problem's field path:
 *
 * <table>
 *   <caption>Rule ids</caption>
 *   <tr><th>document, path</th><th>rule</th></tr>
 *   <tr><td>any document, the empty path (it does not parse, its root is of the wrong kind)</td><td>{@code syntax}</td></tr>
 *   <tr><td>any document, the empty path, {@code missing required field '<f>'}</td><td>the rule of the
 *       path {@code <f>}</td></tr>
 *   <tr><td>registrations, any other path</td><td>{@code registrations}</td></tr>
 *   <tr><td>gate declarations, any other path</td><td>{@code gates}</td></tr>
 *   <tr><td>workflow file, any other path</td><td>{@code workflow}</td></tr>
 *   <tr><td>policy, {@code backends.<b>.suites...}</td><td>{@code suites}</td></tr>
 *   <tr><td>policy, a top-level section ({@code labels}, {@code workflow_labels}, {@code cadences},
 *       {@code events}, {@code schedules}, {@code scopes}, {@code hosts}, {@code backends},
 *       {@code container_image}, {@code pr_stages}, {@code non_gpu_paths}, {@code retry},
 *       {@code timeouts}, {@code file_run}, {@code suite_naming}, {@code workflows}, {@code gates}, {@code fleet},
 *       {@code policy_version},
 *       {@code name}, {@code label_prefix})</td><td>the section in kebab case: {@code labels},
 *       {@code workflow-labels}, ..., {@code pr-stages}, {@code non-gpu-paths}, {@code file-run}</td></tr>
 *   <tr><td>policy, any other path (an unknown top-level field)</td><td>{@code policy}</td></tr>
 * </table>
 */
final class Annotations {
  private Annotations() {}

  /** The document a problem was found in. */
  enum Document {
    /** A policy document. */
    POLICY,
    /** A test registration manifest. */
    REGISTRATIONS,
    /** Gate declarations. */
    GATES,
    /** A GitHub Actions workflow file. */
    WORKFLOW
  }

  private static final List<String> POLICY_SECTIONS = List.of("policy_version", "name", "label_prefix", "labels",
      "workflow_labels", "cadences", "events", "schedules", "scopes", "hosts", "backends", "container_image",
      "pr_stages", "non_gpu_paths", "retry", "timeouts", "file_run", "suite_naming", "workflows", "gates",
      "fleet");

  /**
   * The rule id of a problem: see the table of the class.
   *
   * @param document the document the problem was found in
   * @param path the problem's field path
   * @return a short kebab-case id
   */
  static String rule(Document document, String path) {
    if (path.isEmpty()) {
      return "syntax";
    }
    return switch (document) {
      case REGISTRATIONS -> "registrations";
      case GATES -> "gates";
      case WORKFLOW -> "workflow";
      case POLICY -> {
        String section = section(path);
        if (section.equals("backends") && path.matches("backends\\.[^.\\[]+\\.suites([.\\[].*)?")) {
          yield "suites";
        }
        yield POLICY_SECTIONS.contains(section) ? section.replace('_', '-') : "policy";
      }
    };
  }

  /** The rule of a problem: that of its path, or of the top-level field it says is missing. */
  static String rule(Document document, PolicyProblem p) {
    String missing = "missing required field '";
    if (p.path().isEmpty() && p.message().startsWith(missing)) {
      int end = p.message().indexOf('\'', missing.length());
      if (end > missing.length()) {
        return rule(document, p.message().substring(missing.length(), end));
      }
    }
    return rule(document, p.path());
  }

  private static String section(String path) {
    int end = path.length();
    for (int i = 0; i < path.length(); i++) {
      char ch = path.charAt(i);
      if (ch == '.' || ch == '[') {
        end = i;
        break;
      }
    }
    return path.substring(0, end);
  }

  /**
   * Reports a library error: one annotation per problem for an exception that lists them, else one
   * {@code ::error::<message>} line.
   *
   * @param cli the CLI, its console and environment
   * @param e the error
   */
  static void report(CiPolicyCli cli, CiPolicyException e) {
    Optional<Document> document = Optional.empty();
    List<PolicyProblem> problems = List.of();
    if (e instanceof InvalidPolicyException p) {
      document = Optional.of(Document.POLICY);
      problems = p.problems();
    } else if (e instanceof RegistrationException r) {
      document = Optional.of(Document.REGISTRATIONS);
      problems = r.problems();
    } else if (e instanceof InvalidGateException g) {
      document = Optional.of(Document.GATES);
      problems = g.problems();
    } else if (e instanceof InvalidWorkflowException w) {
      document = Optional.of(Document.WORKFLOW);
      problems = w.problems();
    }
    if (document.isEmpty() || problems.isEmpty()) {
      cli.console().error(e.getMessage());
      return;
    }
    for (PolicyProblem p : problems) {
      cli.console().command("error", properties(cli, p.location(), rule(document.get(), p)),
          data(p.location().isPresent() || p.path().isEmpty() ? p.message() : p.path() + ": " + p.message()));
    }
  }

  /**
   * Prints what a workflow's model does not follow as a located warning titled {@code workflow-model}.
   *
   * @param cli the CLI
   * @param file the workflow file as given on the command line
   * @param w the warning
   */
  static void workflowWarning(CiPolicyCli cli, String file, WorkflowWarning w) {
    SourceLocation at = new SourceLocation(file, w.location().line(), w.location().column());
    cli.console().command("warning", properties(cli, Optional.of(at), "workflow-model"),
        data((w.job().isEmpty() ? "" : "job '" + w.job() + "': ") + w.message()));
  }

  /**
   * Prints a located finding as an annotation: {@code ::<severity> file=…,line=…,col=…,title=<rule>::<message>}.
   *
   * @param cli the CLI
   * @param severity {@code error} or {@code warning}
   * @param at where the finding is, its source as given on the command line
   * @param rule the rule, the annotation's title
   * @param message the message
   */
  static void finding(CiPolicyCli cli, String severity, SourceLocation at, String rule, String message) {
    cli.console().command(severity, properties(cli, Optional.of(at), rule), data(message));
  }

  /**
   * Prints a warning as an annotation titled with its code, located when the warning is.
   *
   * @param cli the CLI
   * @param w the warning
   */
  static void warning(CiPolicyCli cli, Warning w) {
    cli.console().command("warning", properties(cli, w.location(), w.code()), data(w.message()));
  }

  /**
   * Prints a finding about a whole file (no line) as an error annotation titled with its code:
   * {@code ::error file=<f>,title=<code>::<message>}.
   *
   * @param cli the CLI
   * @param file the file as given on the command line
   * @param w the finding
   */
  static void fileError(CiPolicyCli cli, String file, Warning w) {
    Map<String, String> props = new LinkedHashMap<>();
    props.put("file", file(file, cli.environment().get("GITHUB_WORKSPACE")));
    props.put("title", w.code());
    cli.console().command("error", props, data(w.message()));
  }

  /** The data of an annotation: a line break quoted from an input becomes {@code \n} or {@code \r}. */
  private static String data(String message) {
    return message.replace("\r", "\\r").replace("\n", "\\n");
  }

  private static Map<String, String> properties(CiPolicyCli cli, Optional<SourceLocation> location, String title) {
    Map<String, String> props = new LinkedHashMap<>();
    location.ifPresent(l -> {
      props.put("file", file(l.source(), cli.environment().get("GITHUB_WORKSPACE")));
      props.put("line", Integer.toString(l.line()));
      props.put("col", Integer.toString(l.column()));
    });
    props.put("title", title);
    return props;
  }

  /**
   * The file of an annotation: the name as given, or, for an absolute name inside the workspace, the
   * name relative to it with {@code /} separators.
   */
  static String file(String source, @Nullable String workspace) {
    if (workspace == null || workspace.isEmpty()) {
      return source;
    }
    try {
      Path file = Path.of(source);
      Path root = Path.of(workspace);
      if (file.isAbsolute() && root.isAbsolute()) {
        Path f = file.normalize();
        Path w = root.normalize();
        if (f.startsWith(w) && !f.equals(w)) {
          return w.relativize(f).toString().replace('\\', '/');
        }
      }
    } catch (InvalidPathException e) {
      // not a path this file system can name: give the runner the name as it is
    }
    return source;
  }
}
