package dev.cipolicy.core;

import dev.cipolicy.api.InvalidPolicyException;
import dev.cipolicy.api.PolicyProblem;
import dev.cipolicy.api.Warning;
import dev.cipolicy.api.pattern.NameMatch;
import dev.cipolicy.api.policy.Backend;
import dev.cipolicy.api.policy.CadenceDefinition;
import dev.cipolicy.api.policy.DomainLabel;
import dev.cipolicy.api.policy.EventRule;
import dev.cipolicy.api.policy.FileRunRules;
import dev.cipolicy.api.policy.HostLayout;
import dev.cipolicy.api.policy.Policy;
import dev.cipolicy.api.policy.ScheduleRule;
import dev.cipolicy.api.policy.ScopeRule;
import dev.cipolicy.api.policy.Suite;
import dev.cipolicy.api.policy.SuiteNaming;
import dev.cipolicy.api.policy.WorkflowLabel;
import dev.cipolicy.api.policy.WorkflowRoles;
import dev.cipolicy.core.schedule.CronSchedule;
import dev.cipolicy.core.schedule.InvalidCronException;
import dev.cipolicy.core.schedule.ScheduleOverlaps;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;

/**
 * The static checks, run once when a policy is turned into a resolver: the rules of the policy as a
 * whole (name grammars, names declared once, references between its parts, crons and globs that parse).
 * The rules of each part alone (a name is not empty, a count is at least 1) are checked by the part's own
 * builder.
 */
final class PolicyChecker {
  private final Policy policy;
  private final ProblemLocator locator;
  private final List<PolicyProblem> problems = new ArrayList<>();
  private final List<Warning> warnings = new ArrayList<>();
  private final Map<String, CronSchedule> schedules = new LinkedHashMap<>();

  private PolicyChecker(Policy policy, ProblemLocator locator) {
    this.policy = policy;
    this.locator = locator;
  }

  /** The outcome of a successful check. */
  record Checked(List<Warning> warnings, Map<String, ScheduleRule> scheduleTable) {}

  static Checked check(Policy policy, ProblemLocator locator) {
    PolicyChecker c = new PolicyChecker(policy, locator);
    c.run();
    if (!c.problems.isEmpty()) {
      throw new InvalidPolicyException(c.problems);
    }
    Map<String, ScheduleRule> table = new LinkedHashMap<>();
    policy.schedules().forEach(s -> table.put(s.cron(), s));
    return new Checked(List.copyOf(c.warnings), table);
  }

  private void problem(String path, String message) {
    problems.add(new PolicyProblem(locator.locate(path), path, message));
  }

  private void warn(String code, String path, String message) {
    warnings.add(new Warning(code, path + ": " + message, locator.locate(path)));
  }

  private void run() {
    if (!Names.PREFIX.matcher(policy.labelPrefix()).matches()) {
      problem("label_prefix", "label prefix '" + policy.labelPrefix()
          + "' must be non-empty and use only letters, digits and _ . -");
    }
    Set<String> cadences = checkCadences();
    Set<String> known = checkDomainLabels();
    checkWorkflowLabels(cadences);
    checkEvents(cadences);
    checkSchedules(cadences, known);
    checkScopes(cadences, known);
    Set<String> suites = checkBackends();
    checkPrStages(suites);
    checkWorkflowRoles(cadences, suites);
    checkPaths();
    checkFileRun();
    ConcurrencyChecks.check(policy, this::problem);
    GateChecks.check(policy, this::problem);
    FleetChecks.check(policy, cadences, this::problem);
    policy.containerImageRepository().ifPresent(repo -> {
      if (!Names.IMAGE_REPOSITORY.matcher(repo).matches()) {
        problem("container_image.repository", "'" + repo
            + "' is not a container image repository; expected e.g. radixark/miles");
      }
    });
  }

  private Set<String> checkCadences() {
    Set<String> names = new HashSet<>();
    if (policy.cadences().isEmpty()) {
      problem("cadences", "at least one cadence must be declared");
    }
    for (CadenceDefinition c : policy.cadences()) {
      String path = "cadences." + c.name();
      if (!Names.NAME.matcher(c.name()).matches()) {
        problem(path, "cadence name '" + c.name() + "' must match " + Names.NAME.pattern());
      }
      if (!names.add(c.name())) {
        problem(path, "cadence '" + c.name() + "' is declared twice");
      }
    }
    return names;
  }

  private Set<String> checkDomainLabels() {
    Set<String> names = new HashSet<>();
    Set<String> scopeLabelNames = new HashSet<>();
    for (ScopeRule s : policy.scopes()) {
      for (String l : s.whenLabels()) {
        if (l.startsWith(policy.labelPrefix())) {
          scopeLabelNames.add(l.substring(policy.labelPrefix().length()));
        }
      }
    }
    for (DomainLabel l : policy.domainLabels()) {
      String path = "labels." + l.name();
      if (!Names.NAME.matcher(l.name()).matches()) {
        problem(path, "label '" + l.name() + "' must match " + Names.NAME.pattern()
            + " so that '" + policy.labelPrefix() + l.name() + "' is a canonical PR label");
      }
      if (!names.add(l.name())) {
        problem(path, "label '" + l.name() + "' is declared twice");
      }
      if (scopeLabelNames.contains(l.name())) {
        problem(path, "'" + l.name() + "' is a scope label ('" + policy.labelPrefix() + l.name()
            + "') and can never be a domain label");
      }
    }
    return names;
  }

  private void checkWorkflowLabels(Set<String> cadences) {
    Set<String> names = new HashSet<>();
    for (WorkflowLabel w : policy.workflowLabels()) {
      String path = "workflow_labels." + w.name();
      if (!Names.NAME.matcher(w.name()).matches()) {
        problem(path, "workflow label '" + w.name() + "' must match " + Names.NAME.pattern());
      }
      if (!names.add(w.name())) {
        problem(path, "workflow label '" + w.name() + "' is declared twice");
      }
      if (w.name().startsWith(policy.labelPrefix())) {
        problem(path, "workflow label '" + w.name() + "' must not start with the label prefix '"
            + policy.labelPrefix() + "'");
      }
      w.switchesCadence().filter(c -> !cadences.contains(c)).ifPresent(c ->
          problem(path + ".switches_cadence", "unknown cadence '" + c + "'; expected one of "
              + new TreeSet<>(cadences)));
    }
  }

  private void checkEvents(Set<String> cadences) {
    Set<String> names = new HashSet<>();
    for (EventRule e : policy.events()) {
      String path = "events." + e.event();
      if (!Names.NAME.matcher(e.event()).matches()) {
        problem(path, "event name '" + e.event() + "' must match " + Names.NAME.pattern());
      }
      if (!names.add(e.event())) {
        problem(path, "event '" + e.event() + "' is declared twice");
      }
      // an event rule itself guarantees that it has a cadence exactly when it does not use the table
      if (e.source() == EventRule.Source.SCHEDULE_TABLE) {
        if (policy.schedules().isEmpty()) {
          warn("schedule-table-empty", path, "event '" + e.event()
              + "' uses the schedule table, but no schedules are declared: every scheduled run will fail");
        }
      } else if (!cadences.contains(e.cadence().orElseThrow())) {
        problem(path + ".cadence", "unknown cadence '" + e.cadence().orElseThrow() + "'; expected one of "
            + new TreeSet<>(cadences));
      }
    }
  }

  private void checkSchedules(Set<String> cadences, Set<String> known) {
    if (policy.schedules().size() > ScheduleRule.MAX_SCHEDULES) {
      problem("schedules", "the schedule table has " + policy.schedules().size() + " schedules; at most "
          + ScheduleRule.MAX_SCHEDULES + " are accepted");
      return;
    }
    Map<String, Integer> seen = new HashMap<>();
    List<Integer> parsedIndex = new ArrayList<>();
    List<CronSchedule> parsed = new ArrayList<>();
    for (int i = 0; i < policy.schedules().size(); i++) {
      ScheduleRule s = policy.schedules().get(i);
      String path = "schedules[" + i + "]";
      if (!cadences.contains(s.cadence())) {
        problem(path + ".cadence", "unknown cadence '" + s.cadence() + "'; expected one of "
            + new TreeSet<>(cadences));
      }
      Integer first = seen.putIfAbsent(s.cron(), i);
      if (first != null) {
        problem(path + ".cron", "cron '" + s.cron() + "' is already mapped by schedules[" + first
            + "]; each exact cron maps to exactly one cadence");
        continue;
      }
      for (int j = 0; j < s.labels().size(); j++) {
        final int index = j;
        String label = s.labels().get(j);
        if (!isCanonical(label)) {
          problem(path + ".labels[" + j + "]", "'" + label + "' is not a canonical raw label; expected a "
              + "workflow label or '" + policy.labelPrefix() + "<label>'");
        } else if (label.startsWith(policy.labelPrefix()) && !isScopeLabel(label)
            && !known.contains(label.substring(policy.labelPrefix().length()))) {
          problem(path + ".labels[" + j + "]", "'" + label + "' names no known label or scope label; expected"
              + " one of " + new TreeSet<>(known) + " after the prefix '" + policy.labelPrefix() + "'");
        }
        policy.workflowLabels().stream()
            .filter(w -> w.name().equals(label) && w.switchesCadence().isPresent()
                && !w.switchesCadence().get().equals(s.cadence()))
            .findFirst()
            .ifPresent(w -> problem(path + ".labels[" + index + "]", "The " + w.name()
                + " workflow label requires cadence='" + w.switchesCadence().get() + "', but this schedule's"
                + " cadence is '" + s.cadence() + "'"));
      }
      try {
        CronSchedule cron = CronSchedule.parse(s.cron());
        if (cron.minutesOfDay().isEmpty()) {
          problem(path + ".cron", "cron '" + s.cron() + "' never fires between "
              + CronSchedule.CYCLE_START + " and " + CronSchedule.CYCLE_END);
          continue;
        }
        schedules.put(s.cron(), cron);
        parsed.add(cron);
        parsedIndex.add(i);
      } catch (InvalidCronException e) {
        problem(path + ".cron", e.getMessage());
      }
    }
    for (ScheduleOverlaps.Overlap o : ScheduleOverlaps.overlaps(parsed)) {
      ScheduleRule a = policy.schedules().get(parsedIndex.get(o.first()));
      ScheduleRule b = policy.schedules().get(parsedIndex.get(o.second()));
      String path = "schedules[" + parsedIndex.get(o.second()) + "].cron";
      if (!a.cadence().equals(b.cadence())) {
        problem(path, "crons '" + a.cron() + "' (" + a.cadence() + ") and '" + b.cron() + "' ("
            + b.cadence() + ") both fire at " + o.at()
            + "; a firing minute must map to exactly one cadence");
      } else {
        warn("schedule-overlap", path, "crons '" + a.cron() + "' and '" + b.cron() + "' (both "
            + a.cadence() + ") both fire at " + o.at() + ", starting two runs");
      }
    }
  }

  private boolean isScopeLabel(String label) {
    return policy.scopes().stream().anyMatch(s -> s.whenLabels().contains(label));
  }

  private boolean isCanonical(String label) {
    return policy.workflowLabels().stream().anyMatch(w -> w.name().equals(label))
        || (label.startsWith(policy.labelPrefix())
            && Names.NAME.matcher(label.substring(policy.labelPrefix().length())).matches());
  }

  private void checkScopes(Set<String> cadences, Set<String> known) {
    Set<String> names = new HashSet<>();
    Set<String> coveredLabels = new HashSet<>();
    Set<String> coveredCadences = new HashSet<>();
    boolean unconditional = false;
    for (int i = 0; i < policy.scopes().size(); i++) {
      ScopeRule s = policy.scopes().get(i);
      String path = "scopes[" + i + "]";
      if (!names.add(s.name())) {
        problem(path + ".name", "scope rule '" + s.name() + "' is declared twice");
      }
      for (int j = 0; j < s.whenLabels().size(); j++) {
        String l = s.whenLabels().get(j);
        if (!isCanonical(l)) {
          problem(path + ".when_labels[" + j + "]", "'" + l + "' is not a canonical raw label; expected a"
              + " workflow label or '" + policy.labelPrefix() + "<name>'");
        }
      }
      for (int j = 0; j < s.whenCadences().size(); j++) {
        String c = s.whenCadences().get(j);
        if (!cadences.contains(c)) {
          problem(path + ".when_cadences[" + j + "]", "unknown cadence '" + c + "'; expected one of "
              + new TreeSet<>(cadences));
        }
      }
      for (int j = 0; j < s.except().size(); j++) {
        String l = s.except().get(j);
        if (!known.contains(l)) {
          problem(path + ".except[" + j + "]", "unknown label '" + l + "'; expected one of "
              + new TreeSet<>(known));
        }
      }
      boolean empty = s.whenLabels().isEmpty() && s.whenCadences().isEmpty();
      if (unconditional || (!empty && coveredLabels.containsAll(s.whenLabels())
          && coveredCadences.containsAll(s.whenCadences()))) {
        problem(path, "scope rule '" + s.name() + "' can never match: every label and cadence it names"
            + " is matched by an earlier rule (first match wins)");
      }
      coveredLabels.addAll(s.whenLabels());
      coveredCadences.addAll(s.whenCadences());
      // a rule is unconditional when it names nothing, or names every declared cadence
      unconditional |= empty || coveredCadences.containsAll(cadences);
    }
  }

  private Set<String> checkBackends() {
    Set<String> backendNames = new HashSet<>();
    Map<String, HostLayout> hosts = new HashMap<>();
    for (HostLayout h : policy.hosts()) {
      String path = "hosts." + h.name();
      if (!Names.NAME.matcher(h.name()).matches()) {
        problem(path, "host layout name '" + h.name() + "' must match " + Names.NAME.pattern());
      }
      if (hosts.put(h.name(), h) != null) {
        problem(path, "host layout '" + h.name() + "' is declared twice");
      }
    }
    Map<String, String> suiteOwner = new HashMap<>();
    for (Backend b : policy.backends()) {
      String bpath = "backends." + b.name();
      if (!Names.NAME.matcher(b.name()).matches()) {
        problem(bpath, "backend name '" + b.name() + "' must match " + Names.NAME.pattern());
      }
      if (!backendNames.add(b.name())) {
        problem(bpath, "backend '" + b.name() + "' is declared twice");
      }
      for (Suite s : b.suites()) {
        String path = bpath + ".suites." + s.name();
        String owner = suiteOwner.putIfAbsent(s.name(), b.name());
        if (owner != null) {
          problem(path, "suite '" + s.name() + "' is already declared for backend '" + owner + "'");
        }
        checkSuite(b, s, path, hosts);
      }
    }
    return suiteOwner.keySet();
  }

  private void checkSuite(Backend b, Suite s, String path, Map<String, HostLayout> hosts) {
    int gpus = s.gpus();
    if (b.gpu() && gpus == 0) {
      problem(path + ".gpus", "suite '" + s.name() + "' of GPU backend '" + b.name() + "' declares no GPUs;"
          + " declare gpus: <n> (at least 1), or move it to a CPU backend");
    } else if (!b.gpu() && gpus > 0) {
      problem(path + ".gpus", "suite '" + s.name() + "' declares gpus: " + gpus + " but backend '" + b.name()
          + "' is a CPU backend (declare gpu: true on GPU backends, gpus: 0 on CPU suites)");
    }
    if (s.runnerLabels().isEmpty() && !s.githubHosted()) {
      problem(path, "suite '" + s.name() + "' has no runner mapping; declare runner_labels or "
          + "github_hosted: true");
    }
    s.hardware().ifPresent(hw -> {
      if (!s.runnerLabels().isEmpty() && !s.runnerLabels().contains(hw)) {
        problem(path + ".runner_labels", "runner labels " + s.runnerLabels() + " do not name the hardware '"
            + hw + "' of suite '" + s.name() + "' (hardware: " + hw + ")");
      }
    });
    for (String label : s.runnerLabels()) {
      if (GPU_LABEL.matcher(label).matches() && !label.equals(gpus + "gpu")) {
        problem(path + ".runner_labels", "runner label '" + label + "' contradicts the " + gpus
            + " GPUs of suite '" + s.name() + "' (gpus: " + gpus + ")");
      }
    }
    if (gpus > 0) {
      s.host().ifPresent(h -> {
        HostLayout host = hosts.get(h);
        if (host == null) {
          problem(path + ".host", "unknown host layout '" + h + "'; expected one of "
              + new TreeSet<>(hosts.keySet()));
        } else if (gpus > host.gpus() || (!host.partitions().isEmpty() && !host.partitions().contains(gpus))) {
          problem(path + ".host", "suite '" + s.name() + "' needs " + gpus + " GPUs (gpus: " + gpus
              + "), which host layout '" + h + "' " + (host.partitions().isEmpty() ? "with " + host.gpus()
              + " GPUs" : "partitioned " + host.partitions()) + " cannot provide");
        }
      });
    } else if (s.host().isPresent()) {
      problem(path + ".host", "a CPU suite (gpus: 0) has no host layout");
    }
    policy.suiteNaming().ifPresent(naming -> checkName(naming, s, path));
  }

  /** A {@code <n>gpu} runner label, which states a GPU count. */
  private static final Pattern GPU_LABEL = Pattern.compile("[0-9]{1,9}gpu");

  private void checkName(SuiteNaming naming, Suite s, String path) {
    String rule = naming.description().isEmpty() ? naming.pattern()
        : naming.description() + " (" + naming.pattern() + ")";
    Optional<NameMatch> matched = naming.matchWhole(s.name());
    if (matched.isEmpty()) {
      problem(path, "suite name '" + s.name() + "' does not follow the policy's suite naming rule " + rule);
      return;
    }
    NameMatch m = matched.get();
    if (naming.groups().contains("gpus")) {
      Optional<String> group = m.group("gpus");
      String said = group.orElse("");
      if (group.isEmpty()) {
        if (s.gpus() != 0) {
          problem(path + ".gpus", "suite '" + s.name() + "' declares gpus: " + s.gpus() + " but its name says"
              + " it is a CPU suite (the suite_naming group 'gpus' did not match)");
        }
      } else if (!said.matches("[0-9]{1,9}")) {
        problem(path, "the suite_naming group 'gpus' matched '" + said + "' in suite name '" + s.name()
            + "', which is not a GPU count");
      } else if (Integer.parseInt(said) != s.gpus()) {
        problem(path + ".gpus", "suite '" + s.name() + "' declares gpus: " + s.gpus() + " but its name says "
            + Integer.parseInt(said) + " (suite_naming group 'gpus')");
      }
    }
    if (naming.groups().contains("hardware")) {
      Optional<String> said = m.group("hardware");
      if (said.isPresent() && !s.hardware().equals(said)) {
        problem(path + ".hardware", "suite '" + s.name() + "' declares " + s.hardware().map(h -> "hardware: " + h)
            .orElse("no hardware") + " but its name says '" + said.get() + "' (suite_naming group 'hardware')");
      }
    }
  }

  private void checkWorkflowRoles(Set<String> cadences, Set<String> suites) {
    Set<String> files = new HashSet<>();
    for (WorkflowRoles roles : policy.workflowRoles()) {
      String path = "workflows." + roles.workflow() + ".roles";
      if (!files.add(roles.file())) {
        problem(path + ".file", "workflow file '" + roles.file() + "' has roles declared twice; expected one"
            + " workflow entry per file");
      }
      for (int i = 0; i < roles.throttledCadences().size(); i++) {
        String c = roles.throttledCadences().get(i);
        if (!cadences.contains(c)) {
          problem(path + ".throttled_cadences[" + i + "]", "unknown cadence '" + c + "'; expected one of "
              + new TreeSet<>(cadences));
        }
      }
      roles.stageJobs().forEach((job, suite) -> {
        if (!suites.contains(suite)) {
          problem(path + ".stage_jobs." + job, "stage job '" + job + "' runs unknown suite '" + suite
              + "'; expected one of " + new TreeSet<>(suites));
        }
      });
    }
  }

  private void checkPrStages(Set<String> suites) {
    Set<String> seen = new HashSet<>();
    for (int i = 0; i < policy.prStages().size(); i++) {
      String stage = policy.prStages().get(i);
      String path = "pr_stages[" + i + "]";
      if (!seen.add(stage)) {
        problem(path, "stage '" + stage + "' is listed twice");
      }
      if (!suites.contains(stage)) {
        problem(path, "unknown stage '" + stage + "'; expected one of " + new TreeSet<>(suites));
        continue;
      }
      policy.backends().stream().flatMap(b -> b.suites().stream())
          .filter(s -> s.name().equals(stage) && s.externallyScheduled())
          .findFirst()
          .ifPresent(s -> problem(path, "stage '" + stage + "' is scheduled only externally and cannot be a"
              + " PR stage"));
    }
  }

  private void checkFileRun() {
    FileRunRules fr = policy.fileRun();
    if (!fr.command().matches("/[A-Za-z0-9][A-Za-z0-9_-]*")) {
      problem("file_run.command", "'" + fr.command() + "' must look like /rerun-test");
    }
    for (int i = 0; i < fr.testRoots().size(); i++) {
      if (!Names.NAME.matcher(fr.testRoots().get(i)).matches()) {
        problem("file_run.test_roots[" + i + "]", "test root '" + fr.testRoots().get(i) + "' must match "
            + Names.NAME.pattern());
      }
    }
    String[] segments = fr.testDirectory().split("/", -1);
    for (String segment : segments) {
      if (!segment.matches("[A-Za-z0-9_][A-Za-z0-9_.-]*")) {
        problem("file_run.test_directory", "test directory '" + fr.testDirectory() + "' must be relative '/'-separated"
            + " segments matching [A-Za-z0-9_][A-Za-z0-9_.-]*, e.g. tests or src/test/java");
        break;
      }
    }
    if (!fr.filePrefix().matches("[A-Za-z0-9_.-]*")) {
      problem("file_run.file_prefix", "file prefix '" + fr.filePrefix() + "' must use only letters, digits and"
          + " _ . -");
    }
    if (!fr.fileSuffix().matches("[A-Za-z0-9_.-]*")) {
      problem("file_run.file_suffix", "file suffix '" + fr.fileSuffix() + "' must use only letters, digits and"
          + " _ . -");
    }
    Set<String> backends = new HashSet<>();
    policy.backends().forEach(b -> backends.add(b.name()));
    for (int i = 0; i < fr.backends().size(); i++) {
      String b = fr.backends().get(i);
      if (!backends.contains(b)) {
        problem("file_run.backends[" + i + "]", "unknown backend '" + b + "'; expected one of "
            + new TreeSet<>(backends));
      }
    }
    if (!fr.defaultImageTag().matches("[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}")) {
      problem("file_run.default_image_tag", "invalid CI image tag: '" + fr.defaultImageTag() + "'");
    }
  }

  private void checkPaths() {
    for (int i = 0; i < policy.nonGpuPaths().size(); i++) {
      String glob = policy.nonGpuPaths().get(i);
      try {
        dev.cipolicy.core.paths.GlobSet.compile(List.of(glob));
      } catch (dev.cipolicy.core.paths.InvalidGlobException e) {
        problem("non_gpu_paths[" + i + "]", "invalid glob '" + glob + "' at position " + e.position() + ": "
            + e.detail());
      }
    }
  }

}
