package dev.cipolicy.cli;

import dev.cipolicy.api.CiPolicyException;
import dev.cipolicy.api.PolicyProblem;
import dev.cipolicy.api.SourceLocation;
import dev.cipolicy.api.suite.Registration;
import dev.cipolicy.core.SuiteRegistry;
import dev.cipolicy.core.load.LoadedPolicy;
import dev.cipolicy.workflow.load.WorkflowLoader;
import dev.cipolicy.workflow.InvalidWorkflowException;
import dev.cipolicy.workflow.lint.LintFinding;
import dev.cipolicy.workflow.Workflow;
import dev.cipolicy.workflow.lint.WorkflowLint;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Callable;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;

/**
 * {@code ci-policy workflow lint}: reads every workflow file of a directory ({@code *.yml} and
 * {@code *.yaml}, not recursive, as GitHub reads {@code .github/workflows}) and proves on them the invariants
 * the policy declares (see {@code docs/workflow-lint.md}). Human output is one GitHub annotation per finding
 * on standard output, {@code ::error file=…,line=…,col=…,title=RULE::…}, then a summary line (which names the
 * workflows the policy declares no roles for: the rules that need roles did not check them); {@code --json}
 * prints {@code {"findings":[{"rule","severity","file","line","column","job","message"},…]}}. Exit 0 when no
 * finding is an error, 1 otherwise or for an input error (a workflow that does not load is an input error:
 * its problems and the other files' findings are annotations on standard error, and nothing is printed on
 * standard output, with or without {@code --json}), 2 for a usage error.
 */
@Command(
    name = "lint",
    mixinStandardHelpOptions = true,
    description = "Proves the policy's invariants on a directory of workflow files by simulating them.")
final class WorkflowLintCommand implements Callable<Integer> {
  @ParentCommand
  private @Nullable WorkflowCommand parent;

  @Option(names = "--workflows", required = true, paramLabel = "DIR",
      description = "The workflows directory, e.g. .github/workflows.")
  private @Nullable String workflows;

  @Option(names = "--policy", paramLabel = "FILE",
      description = "The policy whose workflows.<name>.roles declare what the jobs are for.")
  private @Nullable String policy;

  @Option(names = "--registrations", paramLabel = "FILE",
      description = "The test registrations: a suite without any needs no stage job (needs --policy).")
  private @Nullable String registrations;

  @Option(names = "--json", description = "Print the findings as JSON instead of annotations.")
  private boolean json;

  @Override
  public Integer call() {
    CiPolicyCli c = Objects.requireNonNull(parent).cli();
    try {
      if (registrations != null && policy == null) {
        throw new Inputs.InputException("--registrations needs --policy: registrations are read against a policy");
      }
      WorkflowLint lint = WorkflowLint.withoutPolicy();
      if (policy != null) {
        LoadedPolicy loaded = Inputs.loadPolicy(c, policy);
        lint = WorkflowLint.of(loaded.policy(), loaded.locator());
        if (registrations != null) {
          SuiteRegistry registry = Inputs.loadRegistry(c, loaded, registrations);
          Set<String> suites = new LinkedHashSet<>();
          registry.registrations().stream().map(Registration::suite).forEach(suites::add);
          lint = lint.withRegisteredSuites(suites);
        }
      }
      String dir = Objects.requireNonNull(workflows);
      boolean loadFailed = false;
      List<Workflow> loadedWorkflows = new ArrayList<>();
      Map<String, String> paths = new LinkedHashMap<>();
      Map<String, String> texts = new LinkedHashMap<>();
      List<Path> listed = files(c, dir);
      Path root = c.resolvePath(dir);
      Path repository = repositoryRoot(root);
      for (Path file : listed) {
        texts.put(file.getFileName().toString(), readContained(repository, file, "workflow file " + file));
      }
      for (Map.Entry<String, String> file : texts.entrySet()) {
        String name = file.getKey();
        String shown = dir.endsWith("/") ? dir + name : dir + "/" + name;
        try {
          loadedWorkflows.add(WorkflowLoader.load(name, file.getValue(), uses -> localWorkflow(root, texts, uses)));
          paths.put(name, shown);
        } catch (InvalidWorkflowException e) {
          loadFailed = true;
          Annotations.report(c, relocated(e, shown));
        }
      }
      List<LintFinding> findings = lint.lint(loadedWorkflows);
      boolean failed = findings.stream().anyMatch(f -> f.severity() == LintFinding.Severity.ERROR);
      if (loadFailed) {
        // an input error: the problems and the other files' findings as annotations, nothing on standard output
        for (LintFinding f : findings) {
          SourceLocation at = f.location();
          Annotations.finding(c, f.severity().word(), new SourceLocation(paths.getOrDefault(at.source(), at.source()),
              at.line(), at.column()), f.rule().id(), f.message());
        }
        return CiPolicyCli.EXIT_ERROR;
      }
      if (json) {
        List<Object> list = new ArrayList<>();
        for (LintFinding f : findings) {
          Map<String, Object> m = new LinkedHashMap<>();
          m.put("rule", f.rule().id());
          m.put("severity", f.severity().word());
          m.put("file", paths.getOrDefault(f.location().source(), f.location().source()));
          m.put("line", f.location().line());
          m.put("column", f.location().column());
          m.put("job", f.job().orElse(null));
          m.put("message", f.message());
          list.add(m);
        }
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("findings", list);
        PolicyCommand.printJson(c, out);
      } else {
        for (LintFinding f : findings) {
          SourceLocation at = f.location();
          Annotations.finding(c, f.severity().word(), new SourceLocation(paths.getOrDefault(at.source(), at.source()),
              at.line(), at.column()), f.rule().id(), f.message());
        }
        long errors = findings.stream().filter(f -> f.severity() == LintFinding.Severity.ERROR).count();
        List<String> withoutRoles = lint.withoutRoles(loadedWorkflows);
        c.console().line("Linted " + loadedWorkflows.size() + " workflow(s) in " + dir + ": " + errors + " error(s), "
            + (findings.size() - errors) + " warning(s)" + (policy == null ? " (no --policy: only the rules that"
            + " need none)" : withoutRoles.isEmpty() ? "" : "; the policy declares no roles for " + withoutRoles
            + ", so its rules that need roles were not checked on " + (withoutRoles.size() == 1 ? "it" : "them")));
      }
      return failed ? CiPolicyCli.EXIT_ERROR : 0;
    } catch (CiPolicyException e) {
      Annotations.report(c, e);
      return CiPolicyCli.EXIT_ERROR;
    } catch (IOException e) {
      c.console().error("cannot print JSON: " + Inputs.describe(e));
      return CiPolicyCli.EXIT_ERROR;
    }
  }

  /** The workflow files of the directory, by name; at most {@link WorkflowLint#MAX_WORKFLOWS}. */
  private static List<Path> files(CiPolicyCli c, String dir) {
    Path root = c.resolvePath(dir);
    if (!Files.isDirectory(root)) {
      throw new Inputs.InputException("--workflows " + dir + ": not a directory; expected the workflows directory,"
          + " e.g. .github/workflows");
    }
    List<Path> out = new ArrayList<>();
    try (DirectoryStream<Path> s = Files.newDirectoryStream(root)) {
      for (Path p : s) {
        String name = p.getFileName().toString();
        if ((name.endsWith(".yml") || name.endsWith(".yaml")) && Files.isRegularFile(p)) {
          out.add(p);
          if (out.size() > WorkflowLint.MAX_WORKFLOWS) {
            throw new Inputs.InputException("--workflows " + dir + ": more than " + WorkflowLint.MAX_WORKFLOWS
                + " workflow files; expected at most " + WorkflowLint.MAX_WORKFLOWS);
          }
        }
      }
    } catch (IOException e) {
      throw new Inputs.InputException("cannot read directory " + dir + ": " + Inputs.describe(e));
    }
    out.sort((a, b) -> a.getFileName().toString().compareTo(b.getFileName().toString()));
    return out;
  }

  /**
   * The repository a workflows directory belongs to: the directory holding its {@code .github} when it is a
   * {@code .github/workflows} directory, else the directory itself (a directory of example workflows).
   */
  static Path repositoryRoot(Path workflowsDir) {
    Path real;
    try {
      real = workflowsDir.toRealPath();
    } catch (IOException e) {
      throw new Inputs.InputException("cannot read directory " + workflowsDir + ": " + Inputs.describe(e));
    }
    Path parent = real.getParent();
    Path name = real.getFileName();
    Path parentName = parent == null ? null : parent.getFileName();
    if (name != null && parentName != null && name.toString().equals("workflows")
        && parentName.toString().equals(".github") && parent.getParent() != null) {
      return Objects.requireNonNull(parent.getParent());
    }
    return real;
  }

  /**
   * The text of a local reusable workflow: {@code ./.github/workflows/x.yml} is {@code x.yml} of the workflows
   * directory (the loader accepts no other local reference). Empty when there is no such file; an input error
   * when it is a link to a file outside the repository or not a regular file.
   */
  static Optional<String> localWorkflow(Path workflowsDir, Map<String, String> texts, String uses) {
    String prefix = "./.github/workflows/";
    if (!uses.startsWith(prefix)) {
      return Optional.empty();
    }
    String name = uses.substring(prefix.length());
    if (name.isEmpty() || name.contains("/") || name.contains("\\") || name.equals(".") || name.equals("..")
        || !(name.endsWith(".yml") || name.endsWith(".yaml"))) {
      return Optional.empty();
    }
    String known = texts.get(name);
    if (known != null) {
      return Optional.of(known);
    }
    Path file = workflowsDir.resolve(name);
    if (!Files.exists(file, LinkOption.NOFOLLOW_LINKS)) {
      return Optional.empty();
    }
    return Optional.of(readContained(repositoryRoot(workflowsDir), file, "reusable workflow " + uses));
  }

  /**
   * Reads a workflow file that must be a regular file inside the repository (after following every link), of
   * at most {@link Inputs#MAX_WORKFLOW_BYTES}: a link out of the repository, a FIFO, a device or a directory is
   * an input error, refused before anything is read.
   */
  static String readContained(Path repository, Path file, String what) {
    Path real;
    try {
      real = file.toRealPath();
    } catch (IOException e) {
      throw new Inputs.InputException("cannot read " + what + ": " + Inputs.describe(e));
    }
    if (!real.startsWith(repository)) {
      throw new Inputs.InputException("cannot read " + what + ": it is a link to a file outside the repository "
          + repository + "; expected a workflow file inside it");
    }
    return readRegular(real, what);
  }

  /**
   * Reads a regular file of at most {@link Inputs#MAX_WORKFLOW_BYTES}; anything else that exists is refused unread
   * (a missing file is the reader's "no such file").
   */
  static String readRegular(Path file, String what) {
    if (Files.exists(file) && !Files.isRegularFile(file)) {
      throw new Inputs.InputException("cannot read " + what + ": not a regular file (a directory, a FIFO or a"
          + " device); expected a workflow file");
    }
    return Inputs.readText(file, "workflow file", Inputs.MAX_WORKFLOW_BYTES);
  }

  /** The problems of a workflow that does not load, located in the file as given on the command line. */
  private static InvalidWorkflowException relocated(InvalidWorkflowException e, String shown) {
    List<PolicyProblem> problems = new ArrayList<>();
    for (PolicyProblem p : e.problems()) {
      problems.add(new PolicyProblem(p.location().map(l -> new SourceLocation(shown, l.line(), l.column())), p.path(),
          p.message()));
    }
    return new InvalidWorkflowException(problems);
  }
}
