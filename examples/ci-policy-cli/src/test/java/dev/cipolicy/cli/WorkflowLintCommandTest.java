package dev.cipolicy.cli;

import static dev.cipolicy.cli.CliTestSupport.run;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import dev.cipolicy.cli.CliTestSupport.Result;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class WorkflowLintCommandTest {
  static final String BUGGY = "examples/workflows/model/buggy";
  static final String FIXED = "examples/workflows/model/fixed";
  static final String MILES = "examples/policies/miles.yaml";
  static final String FLEET = "examples/workflows/fleet";
  static final String FLEET_POLICY = "examples/policies/fleet.yaml";
  static final String FLEET_REGISTRATIONS = "examples/registrations/fleet.yaml";
  static final String FLEET_LEASE = "examples/workflows/fleet-lease";

  @Test
  void theBuggySetFailsWithOneAnnotationPerFinding() {
    Result r = run("workflow", "lint", "--workflows", BUGGY, "--policy", MILES);
    assertThat(r.code()).isEqualTo(1);
    List<String> annotations = r.err().lines().toList();
    assertThat(annotations).hasSize(4).allSatisfy(l -> assertThat(l).matches(
        "::error file=examples/workflows/model/buggy/pr-test(-rocm)?\\.yml,line=\\d+,col=\\d+,title=[a-z-]+::.+"));
    assertThat(annotations).anySatisfy(l -> assertThat(l).startsWith(
        "::error file=examples/workflows/model/buggy/pr-test.yml,line=78,col=3,title=bypass-keeps-stages::with"
            + " needs.resolve-ci-policy.outputs.bypass_fastfail true and the fast-fail gate stage-a-cpu failed,"
            + " resolve-ci-image is skipped"));
    assertThat(r.out()).isEqualTo("Linted 2 workflow(s) in examples/workflows/model/buggy: 4 error(s), 0 warning(s)\n");
  }

  @Test
  void theFixedSetPasses() {
    Result r = run("workflow", "lint", "--workflows", FIXED, "--policy", MILES);
    assertThat(r.code()).as(r.err()).isZero();
    assertThat(r.err()).isEmpty();
    assertThat(r.out()).isEqualTo("Linted 2 workflow(s) in examples/workflows/model/fixed: 0 error(s), 0 warning(s)\n");
  }

  @Test
  void theFleetExampleWorkflowPassesAndItsGuardsAreWhatTheRulesCheck(@TempDir Path tmp) throws Exception {
    Result r = run("workflow", "lint", "--workflows", FLEET, "--policy", FLEET_POLICY, "--registrations",
        FLEET_REGISTRATIONS);
    assertThat(r.code()).as(r.err()).isZero();
    assertThat(r.err()).isEmpty();
    assertThat(r.out()).isEqualTo("Linted 1 workflow(s) in examples/workflows/fleet: 0 error(s), 0 warning(s)\n");
    Result crons = run("check", "--policy", FLEET_POLICY, "--workflow", FLEET + "/gpu-tests.yml");
    assertThat(crons.code()).as(crons.err()).isZero();
    assertThat(crons.out()).contains("schedules 2 cron(s), each with a policy.");
    // the rules read the guards: without them the same file fails
    String text = Files.readString(CliTestSupport.REPO.resolve(FLEET).resolve("gpu-tests.yml"), StandardCharsets.UTF_8);
    Map<String, String> broken = Map.of(
        "closed-runs-nothing", text.replace(" && github.event.action != 'closed'", ""),
        "skip-list-honoured", text.replace("'stage-b-2-gpu') }}", "'stage-b-2-gpu-x') }}"),
        "stage-consumes-policy", text.replace("      CI_CADENCE: ${{ needs.policy.outputs.cadence }}\n", ""),
        "suite-has-one-job", text.replace("  stage-c-4-gpu:\n", "  stage-c-4-gpus:\n"));
    for (Map.Entry<String, String> b : broken.entrySet()) {
      Path dir = Files.createDirectories(tmp.resolve(b.getKey()));
      assertThat(b.getValue()).isNotEqualTo(text);
      Files.writeString(dir.resolve("gpu-tests.yml"), b.getValue(), StandardCharsets.UTF_8);
      Result f = run("workflow", "lint", "--workflows", dir.toString(), "--policy", FLEET_POLICY);
      assertThat(f.code()).as(b.getKey()).isEqualTo(1);
      assertThat(f.err()).as(b.getKey()).contains("title=" + b.getKey() + "::");
    }
  }

  @Test
  void theLeaseExampleWorkflowPassesAndEachStageLeasesItsSuitesGpusForEachShard(@TempDir Path tmp)
      throws Exception {
    Result r = run("workflow", "lint", "--workflows", FLEET_LEASE, "--policy", FLEET_POLICY, "--registrations",
        FLEET_REGISTRATIONS);
    assertThat(r.code()).as(r.err()).isZero();
    assertThat(r.err()).isEmpty();
    assertThat(r.out()).isEqualTo(
        "Linted 1 workflow(s) in examples/workflows/fleet-lease: 0 error(s), 0 warning(s)\n");
    // every stage job leases its suite's GPUs and runs each of its shards once, as the policy says
    YAMLMapper yaml = new YAMLMapper();
    JsonNode suites = yaml.readTree(CliTestSupport.REPO.resolve(FLEET_POLICY).toFile()).at("/backends/cuda/suites");
    JsonNode jobs = yaml.readTree(CliTestSupport.REPO.resolve(FLEET_LEASE).resolve("gpu-tests.yml").toFile())
        .get("jobs");
    Pattern lease = Pattern.compile("fleet lease --gpus (\\d+) --cadence \"\\$CI_CADENCE\".*-- bash ci/run_suite\\.sh"
        + " --suite (\\S+) --shard (.+?) --shards (\\d+)", Pattern.DOTALL);
    List<String> leased = new ArrayList<>();
    for (Map.Entry<String, JsonNode> suite : suites.properties()) {
      JsonNode job = jobs.get(suite.getKey());
      assertThat(job).as("the stage job of %s", suite.getKey()).isNotNull();
      assertThat(job.get("runs-on").toString()).isEqualTo("[\"self-hosted\",\"gpu\"]");
      String step = job.at("/steps/1/run").asText().replace("\\\n", "");
      Matcher m = lease.matcher(step);
      assertThat(m.find()).as(step).isTrue();
      int shards = suite.getValue().path("shards").asInt(1);
      assertThat(Integer.parseInt(m.group(1))).as(suite.getKey()).isEqualTo(suite.getValue().get("gpus").asInt());
      assertThat(m.group(2)).isEqualTo(suite.getKey());
      assertThat(Integer.parseInt(m.group(4))).isEqualTo(shards);
      if (shards == 1) {
        assertThat(m.group(3)).isEqualTo("0");
      } else {
        assertThat(m.group(3)).isEqualTo("${{ matrix.shard }}");
        assertThat(job.at("/strategy/matrix/shard").toString())
            .isEqualTo(new ObjectMapper().writeValueAsString(java.util.stream.IntStream.range(0, shards).boxed()
                .toList()));
      }
      leased.add(suite.getKey());
    }
    assertThat(leased).containsExactly("stage-a-1-gpu", "stage-b-2-gpu", "stage-c-4-gpu");
    // the rules read it too: without its skip guard the same file fails
    String text = Files.readString(CliTestSupport.REPO.resolve(FLEET_LEASE).resolve("gpu-tests.yml"),
        StandardCharsets.UTF_8);
    String broken = text.replace("'stage-b-2-gpu') }}", "'stage-b-2-gpu-x') }}");
    assertThat(broken).isNotEqualTo(text);
    Path dir = Files.createDirectories(tmp.resolve("broken"));
    Files.writeString(dir.resolve("gpu-tests.yml"), broken, StandardCharsets.UTF_8);
    Result f = run("workflow", "lint", "--workflows", dir.toString(), "--policy", FLEET_POLICY);
    assertThat(f.code()).isEqualTo(1);
    assertThat(f.err()).contains("title=skip-list-honoured::");
  }

  @Test
  void jsonListsEveryFindingWithItsFields() throws Exception {
    Result r = run("workflow", "lint", "--workflows", BUGGY, "--policy", MILES, "--json");
    assertThat(r.code()).isEqualTo(1);
    JsonNode findings = new ObjectMapper().readTree(r.out()).get("findings");
    assertThat(findings).hasSize(4);
    List<String> rules = new ArrayList<>();
    for (JsonNode f : findings) {
      rules.add(f.get("rule").asText());
      assertThat(f.get("severity").asText()).isEqualTo("error");
      assertThat(f.get("file").asText()).startsWith(BUGGY + "/");
      assertThat(f.get("line").asInt()).isPositive();
      assertThat(f.get("column").asInt()).isPositive();
      assertThat(f.has("job")).isTrue();
      assertThat(f.get("message").asText()).isNotEmpty();
    }
    assertThat(rules).containsExactly("closed-runs-nothing", "cron-table", "bypass-keeps-stages", "pool-share");
    assertThat(findings.get(0).get("job").isNull()).isTrue();
    assertThat(findings.get(2).get("job").asText()).isEqualTo("resolve-ci-image");
  }

  @Test
  void withoutAPolicyOnlyTheRulesThatNeedNoneRun() {
    Result r = run("workflow", "lint", "--workflows", BUGGY);
    assertThat(r.code()).as(r.err()).isZero();
    assertThat(r.out()).contains("0 error(s)").contains("no --policy");
  }

  @Test
  void registrationsNarrowTheSuitesThatNeedAJob() {
    Result r = run("workflow", "lint", "--workflows", FIXED, "--policy", MILES, "--registrations",
        "examples/registrations/miles.yaml");
    assertThat(r.code()).as(r.err()).isZero();
    Result alone = run("workflow", "lint", "--workflows", FIXED, "--registrations", "examples/registrations/miles.yaml");
    assertThat(alone.code()).isEqualTo(1);
    assertThat(alone.err()).isEqualTo("::error::--registrations needs --policy: registrations are read against a"
        + " policy\n");
  }

  @Test
  void aWorkflowThatDoesNotLoadIsReportedAndTheOthersAreStillLinted(@TempDir Path dir) throws Exception {
    Files.writeString(dir.resolve("broken.yml"), "on: push\njobs:\n  a:\n    needs: [nope]\n    runs-on: x\n",
        StandardCharsets.UTF_8);
    Files.writeString(dir.resolve("closed.yml"), "on:\n  pull_request:\n    types: [closed]\njobs:\n  a:\n"
        + "    runs-on: x\n    steps:\n      - run: echo\n", StandardCharsets.UTF_8);
    Files.writeString(dir.resolve("notes.txt"), "not a workflow", StandardCharsets.UTF_8);
    Result r = run("workflow", "lint", "--workflows", dir.toString());
    assertThat(r.code()).isEqualTo(1);
    assertThat(r.err().lines()).anySatisfy(l -> assertThat(l).startsWith("::error file=" + dir + "/broken.yml,line=4,"))
        .anySatisfy(l -> assertThat(l).startsWith("::error file=" + dir + "/closed.yml,line=5,col=3,"
            + "title=closed-runs-nothing::on pull_request closed, job a runs"));
    assertThat(r.out()).isEmpty();
    Result json = run("workflow", "lint", "--workflows", dir.toString(), "--json");
    assertThat(json.code()).isEqualTo(1);
    assertThat(json.out()).isEmpty();
  }

  @Test
  void aDirectoryThatIsNotThereIsOneClearError() {
    Result r = run("workflow", "lint", "--workflows", "no/such/dir");
    assertThat(r.code()).isEqualTo(1);
    assertThat(r.err()).isEqualTo("::error::--workflows no/such/dir: not a directory; expected the workflows"
        + " directory, e.g. .github/workflows\n");
  }

  @Test
  void aLocalReusableWorkflowOfTheDirectoryIsReadNotWarnedAbout() {
    Result r = run("workflow", "lint", "--workflows", "examples/workflows");
    assertThat(r.code()).as(r.err()).isZero();
    assertThat(r.err()).doesNotContain("ci-policy-resolve.yml");
    Result s = run("workflow", "simulate", "--workflow", "examples/workflows/pr-release.yml", "--event",
        "pull_request", "--action", "opened");
    assertThat(s.code()).as(s.err()).isZero();
    assertThat(s.err()).isEmpty();
  }

  @Test
  void theSummarySaysWhichWorkflowsThePolicyGivesNoRoles(@TempDir Path tmp) throws Exception {
    for (String f : List.of("pr-test.yml", "pr-test-rocm.yml")) {
      Files.copy(CliTestSupport.REPO.resolve(FIXED).resolve(f), tmp.resolve(f));
    }
    Files.writeString(tmp.resolve("docs.yml"), "on: push\njobs:\n  build:\n    runs-on: x\n", StandardCharsets.UTF_8);
    Result r = run("workflow", "lint", "--workflows", tmp.toString(), "--policy", MILES);
    assertThat(r.code()).as(r.err()).isZero();
    assertThat(r.err()).startsWith("::warning file=" + tmp.resolve("docs.yml") + ",line=1,col=1,title=workflow-roles::"
        + "the policy declares no roles for workflow docs.yml");
    assertThat(r.out()).isEqualTo("Linted 3 workflow(s) in " + tmp + ": 0 error(s), 1 warning(s); the policy declares"
        + " no roles for [docs.yml], so its rules that need roles were not checked on it\n");
  }

  /** A repository {@code repo/.github/workflows} with one workflow calling {@code callee.yml}. */
  private static Path repository(Path tmp) throws Exception {
    Path dir = Files.createDirectories(tmp.resolve("repo/.github/workflows"));
    Files.writeString(dir.resolve("w.yml"), "on: push\njobs:\n  call:\n    uses: ./.github/workflows/callee.yml\n",
        StandardCharsets.UTF_8);
    return dir;
  }

  @Test
  void aCalledWorkflowThatLinksOutOfTheRepositoryIsRefused(@TempDir Path tmp) throws Exception {
    Path dir = repository(tmp);
    Path outside = Files.writeString(tmp.resolve("outside.yml"), "on: workflow_call\njobs:\n  TOPSECRET: {runs-on: x}\n",
        StandardCharsets.UTF_8);
    Files.createSymbolicLink(tmp.resolve("elsewhere.yml"), outside);
    // the link is not in the workflows directory, so the lint's listing does not see it: only the call reads it
    Path link = dir.resolve("callee.yml");
    Files.createSymbolicLink(link, tmp.resolve("elsewhere.yml"));
    for (String[] args : List.of(new String[] {"workflow", "lint", "--workflows", dir.toString()},
        new String[] {"workflow", "simulate", "--workflow", dir.resolve("w.yml").toString(), "--event", "push"})) {
      Result r = run(args);
      assertThat(r.code()).as(r.err()).isEqualTo(1);
      assertThat(r.out()).isEmpty();
      assertThat(r.err().lines()).singleElement().satisfies(l -> assertThat(l).startsWith("::error::")
          .contains("is a link to a file outside the repository " + tmp.resolve("repo").toRealPath())
          .doesNotContain("TOPSECRET"));
    }
    // a link inside the repository is read
    Files.delete(link);
    Path shared = Files.writeString(Files.createDirectories(tmp.resolve("repo/shared")).resolve("callee.yml"),
        "on: workflow_call\njobs:\n  inner: {runs-on: x}\n", StandardCharsets.UTF_8);
    Files.createSymbolicLink(link, shared);
    Result ok = run("workflow", "simulate", "--workflow", dir.resolve("w.yml").toString(), "--event", "push");
    assertThat(ok.code()).as(ok.err()).isZero();
    assertThat(ok.err()).isEmpty();
  }

  @Test
  void aFifoIsRefusedAtOnceAsACalledWorkflowAndAsTheWorkflow(@TempDir Path tmp) throws Exception {
    Path dir = repository(tmp);
    Path fifo = dir.resolve("callee.yml");
    Process p = new ProcessBuilder("mkfifo", fifo.toString()).start();
    assertThat(p.waitFor()).isZero();
    Result r = org.junit.jupiter.api.Assertions.assertTimeoutPreemptively(java.time.Duration.ofSeconds(30),
        () -> run("workflow", "simulate", "--workflow", dir.resolve("w.yml").toString(), "--event", "push"));
    assertThat(r.code()).isEqualTo(1);
    assertThat(r.err().lines()).singleElement().satisfies(l -> assertThat(l)
        .contains("cannot read reusable workflow ./.github/workflows/callee.yml: not a regular file"));
    Result direct = org.junit.jupiter.api.Assertions.assertTimeoutPreemptively(java.time.Duration.ofSeconds(30),
        () -> run("workflow", "simulate", "--workflow", fifo.toString(), "--event", "push"));
    assertThat(direct.code()).isEqualTo(1);
    assertThat(direct.err().lines()).singleElement().satisfies(l -> assertThat(l).contains("not a regular file"));
  }

  @Test
  void aWorkflowFileOfTheDirectoryThatLinksOutOfTheRepositoryIsRefused(@TempDir Path tmp) throws Exception {
    Path dir = Files.createDirectories(tmp.resolve("repo/.github/workflows"));
    Path outside = Files.writeString(tmp.resolve("shadow"), "root:TOPSECRET:19000::::::\n", StandardCharsets.UTF_8);
    Files.createSymbolicLink(dir.resolve("evil.yml"), outside);
    Result r = run("workflow", "lint", "--workflows", dir.toString());
    assertThat(r.code()).isEqualTo(1);
    assertThat(r.out()).isEmpty();
    assertThat(r.err().lines()).singleElement().satisfies(l -> assertThat(l)
        .contains("is a link to a file outside the repository").doesNotContain("TOPSECRET"));
  }
}
