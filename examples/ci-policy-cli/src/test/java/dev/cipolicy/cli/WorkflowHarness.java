package dev.cipolicy.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;

/**
 * Runs an example workflow for one event the way the Actions runner does, on this machine.
 *
 * <ul>
 *   <li>The trigger: the event must be under {@code on:}; its {@code types}, {@code branches} (of a pull
 *       request's base) and {@code schedule} crons must admit the payload, else the workflow does not run.
 *   <li>Jobs in file order, a job after the jobs it {@code needs}; a job whose needed job did not succeed is
 *       skipped (GitHub's implicit {@code success()}); its {@code if:} is evaluated by
 *       {@link WorkflowExpressions} (anything it does not support fails the test).
 *   <li>A job {@code uses: ./.github/workflows/X} runs {@code examples/workflows/X} as a called workflow,
 *       with the caller's event name and payload and its {@code with:} as {@code inputs}.
 *   <li>Steps: {@code actions/checkout} clones the scenario's ref from a real repository with
 *       {@code git clone --depth <fetch-depth>} (1 by default, no depth for 0) into an empty
 *       {@code $GITHUB_WORKSPACE}; {@code actions/setup-java} is a no-op (the JDK running the test is first on
 *       {@code PATH}); {@code uses: ./} runs the checked-out {@code action.yml}'s composite steps with
 *       {@code $GITHUB_ACTION_PATH}, its input defaults, the step's {@code with:}, then the harness's input
 *       overrides; inside it, {@code actions/cache} restores its {@code path} from a cache directory kept under
 *       the scratch directory (so runs of one test share it) when its {@code key} is there, and saves the path
 *       under the key after the action's steps succeeded, as the action's post step does on a successful job;
 *       any other {@code uses:} fails the test. A {@code run:} step is written to a file and run
 *       by {@code bash --noprofile --norc -eo pipefail}, in the workspace, with only the runner's variables
 *       ({@code GITHUB_EVENT_NAME}, {@code GITHUB_EVENT_PATH}, {@code GITHUB_WORKSPACE}, {@code RUNNER_TEMP},
 *       a fresh {@code GITHUB_OUTPUT} and {@code GITHUB_STEP_SUMMARY} per step, ...) and the workflow's,
 *       job's and step's {@code env:} with their expressions substituted. The first failing step fails its
 *       job and the steps after it do not run.
 * </ul>
 */
final class WorkflowHarness {
  private static final YAMLMapper YAML = new YAMLMapper();
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

  /** One step that ran (a composite action's inner steps are recorded as {@code <step>/<inner>}). */
  record StepRun(String job, String step, int exitCode, String log, String githubOutput, String summary) {}

  /** One job: {@code success}, {@code failure} or {@code skipped}, and its outputs. */
  record JobRun(String id, String result, Map<String, String> outputs) {}

  /** A workflow run: whether it was triggered, its concurrency group, its jobs and every step that ran. */
  record WorkflowRun(boolean triggered, String concurrencyGroup, Map<String, JobRun> jobs, List<StepRun> steps,
      Map<String, String> outputs) {
    List<StepRun> failures() {
      return steps.stream().filter(s -> s.exitCode() != 0).toList();
    }

    StepRun step(String name) {
      return steps.stream().filter(s -> s.step().equals(name)).findFirst()
          .orElseThrow(() -> new AssertionError("no step " + name + " ran; steps: " + steps));
    }
  }

  private final Path workflows;
  private final String originUrl;
  private final String ref;
  private final Path scratch;
  private final Map<String, String> actionInputOverrides;
  private final Map<String, String> extraEnv;
  private final List<String> cacheEvents = new ArrayList<>();
  private Map<String, String> vars = Map.of();
  private Map<String, String> secrets = Map.of();
  private int counter;

  /**
   * A harness.
   *
   * @param workflows the directory the example workflows are read from
   * @param originUrl the repository actions/checkout clones
   * @param ref the branch checked out (the PR's merge commit for a pull request)
   * @param scratch a directory for workspaces, runner temp directories and step files
   * @param actionInputOverrides inputs of {@code uses: ./} set after the step's {@code with:}
   * @param extraEnv variables added to every step (to reproduce a workflow that sets them)
   */
  WorkflowHarness(Path workflows, String originUrl, String ref, Path scratch, Map<String, String> actionInputOverrides,
      Map<String, String> extraEnv) {
    this.workflows = workflows;
    this.originUrl = originUrl;
    this.ref = ref;
    this.scratch = scratch;
    this.actionInputOverrides = actionInputOverrides;
    this.extraEnv = extraEnv;
  }

  static JsonNode readYaml(Path file) throws IOException {
    return YAML.readTree(file.toFile());
  }

  /** The {@code on:} mapping; YAML 1.1 may read the key {@code on} as {@code true}. */
  static JsonNode triggers(JsonNode workflow) {
    JsonNode on = workflow.has("on") ? workflow.get("on") : workflow.get("true");
    if (on == null || !on.isObject()) {
      throw new AssertionError("on: must be a mapping of events in the example workflows");
    }
    return on;
  }

  /**
   * Sets the repository's configuration variables and secrets, the {@code vars} and {@code secrets} contexts
   * (empty unless set: a workflow that reads them fails the test).
   *
   * @return this harness
   */
  WorkflowHarness withVariables(Map<String, String> vars, Map<String, String> secrets) {
    this.vars = Map.copyOf(vars);
    this.secrets = Map.copyOf(secrets);
    return this;
  }

  private static ObjectNode mapping(Map<String, String> values) {
    ObjectNode node = NODES.objectNode();
    values.forEach(node::put);
    return node;
  }

  /** Runs the workflow file for the event whose payload is {@code payload}. */
  WorkflowRun run(Path workflowFile, String eventName, Path payload) throws Exception {
    JsonNode wf = readYaml(workflowFile);
    JsonNode event = JSON.readTree(payload.toFile());
    if (!triggered(triggers(wf), eventName, event)) {
      return new WorkflowRun(false, "", Map.of(), List.of(), Map.of());
    }
    JsonNode declared = triggers(wf).path(eventName).path("inputs");
    ObjectNode inputs = NODES.objectNode();
    if (eventName.equals("workflow_dispatch")) {
      declared.properties().forEach(e -> inputs.set(e.getKey(), e.getValue().path("default")));
      event.path("inputs").properties().forEach(e -> inputs.set(e.getKey(), e.getValue()));
    }
    List<StepRun> steps = new ArrayList<>();
    Map<String, JobRun> jobs = runJobs(wf, eventName, event, payload, inputs, steps);
    String group = "";
    JsonNode concurrency = wf.path("concurrency");
    if (!concurrency.isMissingNode()) {
      String text = concurrency.isTextual() ? concurrency.asText() : concurrency.path("group").asText();
      group = new WorkflowExpressions(Map.of("github", github(eventName, event, null), "inputs", inputs))
          .substitute(text);
    }
    return new WorkflowRun(true, group, jobs, steps, Map.of());
  }

  private static boolean triggered(JsonNode on, String eventName, JsonNode event) {
    if (!on.has(eventName)) {
      return false;
    }
    JsonNode spec = on.get(eventName);
    if (eventName.equals("schedule")) {
      for (JsonNode c : spec) {
        if (c.path("cron").asText().equals(event.path("schedule").asText())) {
          return true;
        }
      }
      return false;
    }
    JsonNode types = spec.path("types");
    if (types.isArray()) {
      boolean found = false;
      for (JsonNode t : types) {
        found |= t.asText().equals(event.path("action").asText());
      }
      if (!found) {
        return false;
      }
    }
    JsonNode branches = spec.path("branches");
    if (branches.isArray() && eventName.startsWith("pull_request")) {
      String base = event.path("pull_request").path("base").path("ref").asText();
      boolean found = false;
      for (JsonNode b : branches) {
        found |= glob(b.asText()).matcher(base).matches();
      }
      return found;
    }
    return true;
  }

  /** GitHub's branch filter: {@code **} matches anything, {@code *} anything but {@code /}. */
  private static Pattern glob(String pattern) {
    StringBuilder re = new StringBuilder();
    for (int i = 0; i < pattern.length(); i++) {
      char c = pattern.charAt(i);
      if (c == '*' && i + 1 < pattern.length() && pattern.charAt(i + 1) == '*') {
        re.append(".*");
        i++;
      } else if (c == '*') {
        re.append("[^/]*");
      } else if ("?+[]!".indexOf(c) >= 0) {
        throw new AssertionError("unsupported branch filter character '" + c + "' in " + pattern);
      } else {
        re.append(Pattern.quote(String.valueOf(c)));
      }
    }
    return Pattern.compile(re.toString());
  }

  private ObjectNode github(String eventName, JsonNode event, Path actionPath) {
    ObjectNode g = NODES.objectNode();
    g.put("event_name", eventName);
    g.set("event", event);
    g.put("run_id", "4200000001");
    g.put("repository", "example-org/widget");
    if (eventName.startsWith("pull_request")) {
      g.put("base_ref", event.path("pull_request").path("base").path("ref").asText());
      g.put("ref", "refs/pull/" + event.path("number").asText() + "/merge");
    } else {
      g.put("ref", "refs/heads/main");
    }
    if (actionPath != null) {
      g.put("action_path", actionPath.toString());
    }
    return g;
  }

  private Map<String, JobRun> runJobs(JsonNode wf, String eventName, JsonNode event, Path payload, ObjectNode inputs,
      List<StepRun> steps) throws Exception {
    JsonNode jobsNode = wf.path("jobs");
    Map<String, JobRun> done = new LinkedHashMap<>();
    List<String> pending = new ArrayList<>();
    jobsNode.properties().forEach(e -> pending.add(e.getKey()));
    while (!pending.isEmpty()) {
      boolean progressed = false;
      for (Iterator<String> it = pending.iterator(); it.hasNext(); ) {
        String id = it.next();
        JsonNode job = jobsNode.get(id);
        List<String> needs = needs(job);
        if (!done.keySet().containsAll(needs)) {
          continue;
        }
        it.remove();
        progressed = true;
        done.put(id, runJob(wf, id, job, needs, done, eventName, event, payload, inputs, steps));
      }
      if (!progressed) {
        throw new AssertionError("jobs with needs that never finish: " + pending);
      }
    }
    return done;
  }

  private static List<String> needs(JsonNode job) {
    JsonNode n = job.path("needs");
    List<String> out = new ArrayList<>();
    if (n.isTextual()) {
      out.add(n.asText());
    } else {
      n.forEach(x -> out.add(x.asText()));
    }
    return out;
  }

  private JobRun runJob(JsonNode wf, String id, JsonNode job, List<String> needs, Map<String, JobRun> done,
      String eventName, JsonNode event, Path payload, ObjectNode inputs, List<StepRun> steps) throws Exception {
    ObjectNode needsContext = NODES.objectNode();
    boolean needsOk = true;
    for (String n : needs) {
      JobRun r = done.get(n);
      needsOk &= r.result().equals("success");
      ObjectNode entry = needsContext.putObject(n);
      entry.put("result", r.result());
      ObjectNode outputs = entry.putObject("outputs");
      r.outputs().forEach(outputs::put);
    }
    Map<String, JsonNode> contexts = new HashMap<>();
    contexts.put("github", github(eventName, event, null));
    contexts.put("inputs", inputs);
    contexts.put("needs", needsContext);
    if (!vars.isEmpty() || !secrets.isEmpty()) {
      contexts.put("vars", mapping(vars));
      contexts.put("secrets", mapping(secrets));
    }
    JsonNode condition = job.path("if");
    if (!needsOk) {
      if (condition.isTextual() && condition.asText().matches("(?s).*\\b(always|failure|cancelled)\\s*\\(.*")) {
        throw new AssertionError("job " + id + ": status functions in if: are not supported");
      }
      return new JobRun(id, "skipped", Map.of());
    }
    if (!condition.isMissingNode() && !new WorkflowExpressions(contexts).condition(condition.asText())) {
      return new JobRun(id, "skipped", Map.of());
    }
    if (job.has("uses")) {
      return callWorkflow(id, job, contexts, eventName, event, payload, steps);
    }
    if (job.has("strategy") || job.has("services") || job.has("container")) {
      throw new AssertionError("job " + id + ": strategy, services and container are not supported");
    }
    Path dir = Files.createTempDirectory(scratch, "job-" + id + "-");
    Path workspace = Files.createDirectories(dir.resolve("workspace"));
    Path temp = Files.createDirectories(dir.resolve("temp"));
    Map<String, String> env = new LinkedHashMap<>();
    env.put("CI", "true");
    env.put("GITHUB_ACTIONS", "true");
    env.put("GITHUB_EVENT_NAME", eventName);
    env.put("GITHUB_EVENT_PATH", payload.toString());
    env.put("GITHUB_WORKSPACE", workspace.toString());
    env.put("GITHUB_JOB", id);
    env.put("GITHUB_RUN_ID", "4200000001");
    env.put("GITHUB_REPOSITORY", "example-org/widget");
    env.put("RUNNER_TEMP", temp.toString());
    env.put("RUNNER_OS", "Linux");
    WorkflowExpressions ex = new WorkflowExpressions(contexts);
    putEnv(env, wf.path("env"), ex);
    putEnv(env, job.path("env"), ex);
    ObjectNode stepsContext = NODES.objectNode();
    contexts.put("steps", stepsContext);
    int index = 0;
    for (JsonNode step : job.path("steps")) {
      index++;
      String name = step.has("id") ? step.get("id").asText() : "step-" + index;
      StepRun r = runStep(id, name, step, contexts, env, workspace, temp, null);
      if (step.has("uses") && step.get("uses").asText().equals("./")) {
        // a composite action is recorded as the steps it ran
        steps.addAll(lastInner);
      } else if (r != null) {
        steps.add(r);
      }
      if (r != null && r.exitCode() != 0) {
        return new JobRun(id, "failure", Map.of());
      }
    }
    Map<String, String> outputs = new LinkedHashMap<>();
    WorkflowExpressions out = new WorkflowExpressions(contexts);
    job.path("outputs").properties().forEach(e -> outputs.put(e.getKey(), out.substitute(e.getValue().asText())));
    return new JobRun(id, "success", outputs);
  }

  private List<StepRun> lastInner = List.of();

  private JobRun callWorkflow(String id, JsonNode job, Map<String, JsonNode> contexts, String eventName, JsonNode event,
      Path payload, List<StepRun> steps) throws Exception {
    String uses = job.get("uses").asText();
    String prefix = "./.github/workflows/";
    if (!uses.startsWith(prefix)) {
      throw new AssertionError("job " + id + ": only a local called workflow (" + prefix + "X) is supported: " + uses);
    }
    Path called = workflows.resolve(uses.substring(prefix.length()));
    JsonNode wf = readYaml(called);
    JsonNode call = triggers(wf).path("workflow_call");
    if (call.isMissingNode()) {
      throw new AssertionError(called + " has no on.workflow_call");
    }
    ObjectNode inputs = NODES.objectNode();
    call.path("inputs").properties().forEach(e -> inputs.set(e.getKey(), e.getValue().path("default")));
    WorkflowExpressions ex = new WorkflowExpressions(contexts);
    for (Map.Entry<String, JsonNode> e : job.path("with").properties()) {
      if (!call.path("inputs").has(e.getKey())) {
        throw new AssertionError("job " + id + ": " + called.getFileName() + " has no input " + e.getKey());
      }
      inputs.put(e.getKey(), ex.substitute(e.getValue().asText()));
    }
    List<StepRun> inner = new ArrayList<>();
    Map<String, JobRun> jobs = runJobs(wf, eventName, event, payload, inputs, inner);
    for (StepRun s : inner) {
      steps.add(new StepRun(id + "/" + s.job(), s.step(), s.exitCode(), s.log(), s.githubOutput(), s.summary()));
    }
    boolean ok = jobs.values().stream().noneMatch(j -> j.result().equals("failure"));
    if (!ok) {
      return new JobRun(id, "failure", Map.of());
    }
    ObjectNode jobsContext = NODES.objectNode();
    jobs.forEach((k, v) -> {
      ObjectNode o = jobsContext.putObject(k);
      o.put("result", v.result());
      ObjectNode outs = o.putObject("outputs");
      v.outputs().forEach(outs::put);
    });
    WorkflowExpressions out = new WorkflowExpressions(Map.of("jobs", jobsContext, "inputs", inputs));
    Map<String, String> outputs = new LinkedHashMap<>();
    call.path("outputs").properties().forEach(e -> outputs.put(e.getKey(),
        out.substitute(e.getValue().path("value").asText())));
    return new JobRun(id, "success", outputs);
  }

  private static void putEnv(Map<String, String> env, JsonNode block, WorkflowExpressions ex) {
    block.properties().forEach(e -> env.put(e.getKey(), ex.substitute(e.getValue().asText())));
  }

  /** Runs one step; a {@code uses: ./} step leaves its inner steps in {@link #lastInner}. */
  private StepRun runStep(String job, String name, JsonNode step, Map<String, JsonNode> contexts,
      Map<String, String> jobEnv, Path workspace, Path temp, Path actionPath) throws Exception {
    lastInner = List.of();
    WorkflowExpressions ex = new WorkflowExpressions(contexts);
    if (step.has("if") && !ex.condition(step.get("if").asText())) {
      return null;
    }
    ObjectNode stepsContext = (ObjectNode) contexts.get("steps");
    if (step.has("uses")) {
      String uses = step.get("uses").asText();
      if (uses.startsWith("actions/checkout@")) {
        int depth = step.path("with").path("fetch-depth").asInt(1);
        List<String> clone = new ArrayList<>(List.of("git", "clone", "-q"));
        if (depth > 0) {
          clone.addAll(List.of("--depth", Integer.toString(depth)));
        }
        clone.addAll(List.of("--branch", ref, originUrl, workspace.toString()));
        git(scratch, clone);
        return null;
      }
      if (uses.startsWith("actions/setup-java@")) {
        return null;
      }
      if (uses.equals("./")) {
        List<StepRun> inner = new ArrayList<>();
        Map<String, String> outputs = composite(job, name, step, contexts, jobEnv, workspace, temp, inner);
        lastInner = inner;
        boolean failed = inner.stream().anyMatch(s -> s.exitCode() != 0);
        ObjectNode entry = stepsContext.putObject(name);
        ObjectNode outs = entry.putObject("outputs");
        outputs.forEach(outs::put);
        entry.put("outcome", failed ? "failure" : "success");
        return new StepRun(job, name, failed ? 1 : 0, "", "", "");
      }
      throw new AssertionError("step " + name + " of job " + job + ": unsupported action " + uses);
    }
    if (!step.has("run")) {
      throw new AssertionError("step " + name + " of job " + job + " has neither uses nor run");
    }
    String shell = step.path("shell").asText("bash");
    if (!shell.equals("bash")) {
      throw new AssertionError("step " + name + ": only shell bash is supported, found " + shell);
    }
    Map<String, String> env = new LinkedHashMap<>(jobEnv);
    putEnv(env, step.path("env"), ex);
    env.putAll(extraEnv);
    if (actionPath != null) {
      env.put("GITHUB_ACTION_PATH", actionPath.toString());
    }
    int n = ++counter;
    Path output = temp.resolve("output-" + n);
    Path summary = temp.resolve("summary-" + n);
    Files.writeString(output, "");
    Files.writeString(summary, "");
    env.put("GITHUB_OUTPUT", output.toString());
    env.put("GITHUB_STEP_SUMMARY", summary.toString());
    // the script text is the run: value with its expressions substituted, as the runner does
    String text = ex.substitute(step.get("run").asText());
    Path script = temp.resolve("step-" + n + ".sh");
    Files.writeString(script, text);
    Path cwd = step.has("working-directory") ? workspace.resolve(step.get("working-directory").asText()) : workspace;
    ProcessBuilder pb = new ProcessBuilder("bash", "--noprofile", "--norc", "-eo", "pipefail", script.toString())
        .directory(cwd.toFile()).redirectErrorStream(true);
    pb.environment().clear();
    pb.environment().put("PATH", Path.of(System.getProperty("java.home"), "bin") + ":"
        + System.getenv().getOrDefault("PATH", "/usr/bin:/bin"));
    pb.environment().put("HOME", temp.getParent().toString());
    pb.environment().putAll(env);
    Process p = pb.start();
    byte[] log = p.getInputStream().readAllBytes();
    if (!p.waitFor(120, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new AssertionError("step " + name + " of job " + job + " did not finish");
    }
    String githubOutput = Files.readString(output);
    ObjectNode entry = stepsContext.putObject(name);
    ObjectNode outs = entry.putObject("outputs");
    parseOutputs(githubOutput).forEach(outs::put);
    entry.put("outcome", p.exitValue() == 0 ? "success" : "failure");
    return new StepRun(job, name, p.exitValue(), new String(log, StandardCharsets.UTF_8), githubOutput,
        Files.readString(summary));
  }

  private Map<String, String> composite(String job, String name, JsonNode step, Map<String, JsonNode> contexts,
      Map<String, String> jobEnv, Path workspace, Path temp, List<StepRun> inner) throws Exception {
    Path actionFile = workspace.resolve("action.yml");
    JsonNode action = readYaml(actionFile);
    if (!action.path("runs").path("using").asText().equals("composite")) {
      throw new AssertionError(actionFile + " is not a composite action");
    }
    WorkflowExpressions outer = new WorkflowExpressions(contexts);
    ObjectNode inputs = NODES.objectNode();
    action.path("inputs").properties().forEach(e -> inputs.put(e.getKey(), e.getValue().path("default").asText("")));
    for (Map.Entry<String, JsonNode> e : step.path("with").properties()) {
      if (!inputs.has(e.getKey())) {
        throw new AssertionError("step " + name + ": the action has no input " + e.getKey());
      }
      inputs.put(e.getKey(), outer.substitute(e.getValue().asText()));
    }
    actionInputOverrides.forEach(inputs::put);
    for (Map.Entry<String, JsonNode> e : action.path("inputs").properties()) {
      if (e.getValue().path("required").asBoolean(false) && inputs.path(e.getKey()).asText().isEmpty()) {
        throw new AssertionError("step " + name + ": required input " + e.getKey() + " is not given");
      }
    }
    Map<String, String> env = new LinkedHashMap<>(jobEnv);
    putEnv(env, step.path("env"), outer);
    Map<String, JsonNode> own = new HashMap<>();
    own.put("github", github(jobEnv.get("GITHUB_EVENT_NAME"), contexts.get("github").get("event"), workspace));
    own.put("inputs", inputs);
    ObjectNode innerSteps = NODES.objectNode();
    own.put("steps", innerSteps);
    int index = 0;
    Map<Path, Path> cacheSaves = new LinkedHashMap<>();
    for (JsonNode s : action.path("runs").path("steps")) {
      index++;
      String id = s.has("id") ? s.get("id").asText() : "step-" + index;
      if (s.path("uses").asText().startsWith("actions/cache@")) {
        WorkflowExpressions ex = new WorkflowExpressions(own);
        if (!s.has("if") || ex.condition(s.get("if").asText())) {
          cache(name + "/" + id, s, ex, cacheSaves);
        }
        continue;
      }
      if (!s.has("run") || !s.has("shell")) {
        throw new AssertionError("composite step " + id + ": only run: steps with a shell and actions/cache are"
            + " supported");
      }
      StepRun r = runStep(job, name + "/" + id, s, own, env, workspace, temp, workspace);
      // runStep recorded it under the qualified name; the composite's own steps context uses the bare id
      innerSteps.set(id, innerSteps.remove(name + "/" + id));
      if (r != null) {
        inner.add(r);
        if (r.exitCode() != 0) {
          return Map.of();
        }
      }
    }
    // the post step of actions/cache: the job succeeded, so each missed key is saved
    for (Map.Entry<Path, Path> save : cacheSaves.entrySet()) {
      if (Files.isDirectory(save.getValue()) && !Files.exists(save.getKey())) {
        copyTree(save.getValue(), save.getKey());
      }
    }
    Map<String, String> outputs = new LinkedHashMap<>();
    WorkflowExpressions out = new WorkflowExpressions(own);
    action.path("outputs").properties().forEach(e -> outputs.put(e.getKey(),
        out.substitute(e.getValue().path("value").asText())));
    return outputs;
  }

  /**
   * {@code actions/cache} in a composite action: its {@code path} (one directory) is restored from the cache
   * directory when its {@code key} was saved there, else the key is saved after the action (see
   * {@code saves}). Only {@code path} and {@code key} are supported; each {@code key} is a directory name.
   */
  private void cache(String name, JsonNode step, WorkflowExpressions ex, Map<Path, Path> saves) throws IOException {
    Iterator<String> keys = step.path("with").fieldNames();
    while (keys.hasNext()) {
      String k = keys.next();
      if (!k.equals("path") && !k.equals("key")) {
        throw new AssertionError("step " + name + ": actions/cache input " + k + " is not supported");
      }
    }
    String key = ex.substitute(step.path("with").path("key").asText());
    String path = ex.substitute(step.path("with").path("path").asText());
    if (!key.matches("[A-Za-z0-9._-]+") || path.isEmpty() || path.contains("\n")) {
      throw new AssertionError("step " + name + ": actions/cache needs a key and one path, got '" + key + "', '"
          + path + "'");
    }
    Path stored = scratch.resolve("actions-cache").resolve(key);
    Path target = Path.of(path);
    cacheEvents.add((Files.isDirectory(stored) ? "hit " : "miss ") + key);
    if (Files.isDirectory(stored)) {
      copyTree(stored, target);
    } else {
      saves.put(stored, target);
    }
  }

  /** What {@code actions/cache} did, in order: {@code hit <key>} or {@code miss <key>}. */
  List<String> cacheEvents() {
    return List.copyOf(cacheEvents);
  }

  private static void copyTree(Path from, Path to) throws IOException {
    try (java.util.stream.Stream<Path> files = Files.walk(from)) {
      for (Path f : files.toList()) {
        Path t = to.resolve(from.relativize(f).toString());
        if (Files.isDirectory(f)) {
          Files.createDirectories(t);
        } else {
          Files.copy(f, t, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        }
      }
    }
  }

  /** The {@code name=value} and {@code name<<DELIMITER} forms of a {@code $GITHUB_OUTPUT} file. */
  static Map<String, String> parseOutputs(String text) {
    Map<String, String> out = new LinkedHashMap<>();
    String[] lines = text.split("\n", -1);
    for (int i = 0; i < lines.length; i++) {
      String line = lines[i];
      if (line.isEmpty()) {
        continue;
      }
      int heredoc = line.indexOf("<<");
      int eq = line.indexOf('=');
      if (heredoc > 0 && (eq < 0 || heredoc < eq)) {
        String delimiter = line.substring(heredoc + 2);
        StringBuilder value = new StringBuilder();
        int j = i + 1;
        while (j < lines.length && !lines[j].equals(delimiter)) {
          value.append(value.length() == 0 && j == i + 1 ? "" : "\n").append(lines[j]);
          j++;
        }
        if (j == lines.length) {
          throw new AssertionError("unterminated " + delimiter + " in GITHUB_OUTPUT: " + text);
        }
        out.put(line.substring(0, heredoc), value.toString());
        i = j;
      } else if (eq > 0) {
        out.put(line.substring(0, eq), line.substring(eq + 1));
      } else {
        throw new AssertionError("a GITHUB_OUTPUT line the runner rejects: '" + line + "'");
      }
    }
    return out;
  }

  static String git(Path dir, List<String> command) throws Exception {
    ProcessBuilder pb = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true);
    Map<String, String> env = pb.environment();
    env.put("GIT_CONFIG_NOSYSTEM", "1");
    env.put("GIT_CONFIG_GLOBAL", "/dev/null");
    env.put("GIT_AUTHOR_NAME", "Test");
    env.put("GIT_AUTHOR_EMAIL", "test@example.invalid");
    env.put("GIT_COMMITTER_NAME", "Test");
    env.put("GIT_COMMITTER_EMAIL", "test@example.invalid");
    Process p = pb.start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
      throw new AssertionError(String.join(" ", command) + " failed: " + out);
    }
    return out;
  }
}
