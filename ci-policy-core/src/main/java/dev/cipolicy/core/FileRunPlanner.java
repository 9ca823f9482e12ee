package dev.cipolicy.core;

import dev.cipolicy.api.InvalidInputException;
import dev.cipolicy.api.policy.FileRunRules;
import dev.cipolicy.api.policy.Policy;
import dev.cipolicy.api.policy.Suite;
import dev.cipolicy.api.suite.FileRunDecision;
import dev.cipolicy.api.suite.FileRunPlan;
import dev.cipolicy.api.suite.Permission;
import dev.cipolicy.api.suite.Registration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * Plans single-file reruns requested by a {@code /rerun-test <file>} comment. Every refusal
 * is a {@link FileRunDecision} value with the check that failed and its message; nothing here throws on
 * bad input. Immutable and thread-safe.
 */
public final class FileRunPlanner {
  /**
   * The longest comment read, in characters: 65,536, GitHub's own limit on a comment body. A longer
   * comment is rejected before it is scanned.
   */
  public static final int MAX_COMMENT_CHARS = 65_536;

  private static final Pattern IMAGE_TAG = Pattern.compile("[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}");

  private final SuiteRegistry registry;
  private final Policy policy;
  private final FileRunRules rules;
  private final List<String> backends;

  private FileRunPlanner(SuiteRegistry registry) {
    this.registry = registry;
    this.policy = registry.resolver().policy();
    this.rules = policy.fileRun();
    this.backends = rules.backends().isEmpty()
        ? policy.backends().stream().map(b -> b.name()).toList() : rules.backends();
  }

  /**
   * A planner over a checked registry.
   *
   * @param registry the registrations and policy
   * @return the planner
   */
  public static FileRunPlanner of(SuiteRegistry registry) {
    return new FileRunPlanner(registry);
  }

  /**
   * Parses a comment: the whole trimmed comment must be the command, spaces, and a test path under the
   * test directory and one of the test roots ({@code DIR/ROOT(/SEG)*}{@code /PREFIX NAME SUFFIX}, e.g.
   * {@code tests/e2e/test_NAME.py} for the reference policy; SEG and NAME starting with {@code [A-Za-z0-9_]}
   * and continuing with {@code [A-Za-z0-9_.-]}), so {@code ..}, absolute
   * paths, extra arguments and shell metacharacters are rejected. The scan is linear in the comment's
   * length (no regular expression, no backtracking) and reads at most {@link #MAX_COMMENT_CHARS}.
   *
   * @param text the comment body
   * @return the test file, when the comment is a well-formed request
   * @throws InvalidInputException when the comment is longer than {@link #MAX_COMMENT_CHARS}
   */
  public Optional<String> parseComment(String text) {
    if (text.length() > MAX_COMMENT_CHARS) {
      throw new InvalidInputException(tooLong(text));
    }
    String t = text.strip();
    String command = rules.command();
    if (!t.startsWith(command)) {
      return Optional.empty();
    }
    int i = command.length();
    int spaces = i;
    while (i < t.length() && t.charAt(i) == ' ') {
      i++;
    }
    if (i == spaces) {
      return Optional.empty();
    }
    String path = t.substring(i);
    List<String> roots = rules.testRoots().isEmpty() ? List.of("") : rules.testRoots();
    for (String root : roots) {
      String prefix = rules.testDirectory() + "/" + (root.isEmpty() ? "" : root + "/");
      if (path.startsWith(prefix) && isTestPath(path, prefix.length())) {
        return Optional.of(path);
      }
    }
    return Optional.empty();
  }

  /** {@code (SEG/)*PREFIX SEG SUFFIX} from {@code from} to the end of {@code path}, in one pass. */
  private boolean isTestPath(String path, int from) {
    int start = from;
    for (int i = from; i <= path.length(); i++) {
      if (i < path.length() && path.charAt(i) != '/') {
        continue;
      }
      if (!isSegment(path, start, i)) {
        return false;
      }
      if (i == path.length()) {
        String last = path.substring(start, i);
        String head = rules.filePrefix();
        String tail = rules.fileSuffix();
        return last.length() > head.length() + tail.length() && last.startsWith(head) && last.endsWith(tail)
            && isSegment(last, head.length(), last.length() - tail.length());
      }
      start = i + 1;
    }
    return false;
  }

  /** {@code [A-Za-z0-9_][A-Za-z0-9_.-]*} over {@code s[from, to)}. */
  private static boolean isSegment(String s, int from, int to) {
    if (to <= from || !isSegmentStart(s.charAt(from))) {
      return false;
    }
    for (int i = from + 1; i < to; i++) {
      char c = s.charAt(i);
      if (!isSegmentStart(c) && c != '.' && c != '-') {
        return false;
      }
    }
    return true;
  }

  private static boolean isSegmentStart(char c) {
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
  }

  private String tooLong(String text) {
    return "the " + rules.command() + " comment is " + text.length() + " characters long; at most "
        + MAX_COMMENT_CHARS + " are read";
  }

  /**
   * Decides a rerun requested by a comment: permission first (only write access may trigger it), then
   * the comment grammar, then the checks of {@link #planFile}.
   *
   * @param text the comment body
   * @param permission the commenter's permission, as the host read it
   * @param prNumber the pull request
   * @param imageTag the CI image tag, or empty for the policy's default tag
   * @return the plan or the rejection
   */
  public FileRunDecision decideComment(String text, Permission permission, long prNumber,
      Optional<String> imageTag) {
    if (!permission.canWrite()) {
      return FileRunDecision.rejected("permission", rules.command() + " requires write access to the repository;"
          + " the commenter has '" + permission.githubName() + "'");
    }
    if (text.length() > MAX_COMMENT_CHARS) {
      return FileRunDecision.rejected("comment", tooLong(text));
    }
    if (!text.strip().startsWith(rules.command())) {
      return FileRunDecision.rejected("comment", "the comment is not a " + rules.command() + " command");
    }
    Optional<String> file = parseComment(text);
    if (file.isEmpty()) {
      return FileRunDecision.rejected("comment", "usage: " + rules.command() + " " + rules.testDirectory() + "/"
          + (rules.testRoots().isEmpty() ? "" : "<" + String.join("|", rules.testRoots()) + ">/") + ".../"
          + rules.filePrefix() + "<name>" + rules.fileSuffix() + " (one registered test file, nothing else)");
    }
    return planFile(file.get(), imageTag, Optional.of(prNumber));
  }

  /**
   * Plans a rerun of one file, checks in this order: image tag, registered, a CPU/CUDA registration,
   * exactly one, enabled, runner mapping. Labels and the nightly gate do not apply to an explicit run.
   *
   * @param file the repository-relative test file
   * @param imageTag the CI image tag, or empty for the policy's default tag
   * @param prNumber the pull request, used for the concurrency group
   * @return the plan or the rejection
   */
  public FileRunDecision planFile(String file, Optional<String> imageTag, Optional<Long> prNumber) {
    String tag = imageTag.filter(t -> !t.isEmpty()).orElse(rules.defaultImageTag());
    if (!IMAGE_TAG.matcher(tag).matches()) {
      return FileRunDecision.rejected("image-tag", "invalid CI image tag: '" + tag + "'");
    }
    List<Registration> all = registry.registrationsOf(file);
    if (all.isEmpty()) {
      return FileRunDecision.rejected("registered", file + " has no CI registration; " + rules.command()
          + " runs only registered test files");
    }
    List<Registration> usable = new ArrayList<>();
    for (Registration r : all) {
      if (backends.contains(r.backend())) {
        usable.add(r);
      }
    }
    String supported = backends.stream().map(FileRunPlanner::display).collect(Collectors.joining(" and "));
    if (usable.isEmpty()) {
      String others = all.stream().map(Registration::backend).distinct().map(FileRunPlanner::display)
          .collect(Collectors.joining(", "));
      return FileRunDecision.rejected("backend", file + " is registered only for " + others + " ("
          + all.stream().map(Registration::suite).collect(Collectors.joining(", ")) + "); " + rules.command()
          + " supports " + supported);
    }
    if (usable.size() > 1) {
      return FileRunDecision.rejected("unique", file + " has multiple " + backends.stream()
          .map(FileRunPlanner::display).collect(Collectors.joining("/")) + " registrations ("
          + usable.stream().map(r -> r.backend() + ":" + r.suite()).collect(Collectors.joining(", "))
          + "); expected exactly one");
    }
    Registration r = usable.get(0);
    if (r.disabled().isPresent()) {
      return FileRunDecision.rejected("disabled", file + " is disabled: " + r.disabled().get());
    }
    Suite suite = registry.suite(r.backend(), r.suite());
    boolean gpu = registry.isGpuBackend(r.backend());
    if (gpu && suite.runnerLabels().isEmpty()) {
      return FileRunDecision.rejected("runner", file + " is registered in " + r.suite()
          + ", which has no runner mapping");
    }
    if (!gpu && suite.gpus() != 0) {
      return FileRunDecision.rejected("runner", file + " is registered in " + r.suite() + ", which is not a CPU suite");
    }
    String image = policy.containerImageRepository().map(repo -> repo + ":" + tag).orElse(tag);
    String group = rules.command().substring(1) + "-" + prNumber.map(String::valueOf).orElse("manual") + "-" + file;
    return FileRunDecision.planned(new FileRunPlan(file, r.backend(), r.suite(),
        gpu ? suite.runnerLabels() : List.of(), image, policy.timeouts().timeoutFor(r.estTimeSeconds()), group));
  }

  private static String display(String backend) {
    return switch (backend) {
      case "cpu" -> "CPU";
      case "cuda" -> "CUDA";
      case "rocm" -> "ROCm";
      default -> backend.toUpperCase(Locale.ROOT);
    };
  }
}
