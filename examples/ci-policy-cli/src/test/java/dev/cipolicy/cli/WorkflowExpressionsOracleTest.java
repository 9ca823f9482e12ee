package dev.cipolicy.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.cipolicy.workflow.ExprValue;
import dev.cipolicy.workflow.Expression;
import dev.cipolicy.workflow.ExpressionEnvironment;
import dev.cipolicy.workflow.StatusCheck;
import dev.cipolicy.workflow.StatusFunction;
import dev.cipolicy.workflow.Tri;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * {@link WorkflowExpressions}, the harness's own evaluator, is an independent oracle of the product's
 * {@link Expression}: on every {@code if:} (of a job or a step) of every example workflow, in a range of
 * contexts, the two agree on the truth wherever the oracle supports the expression, and the oracle refuses
 * the rest rather than guess.
 */
class WorkflowExpressionsOracleTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  /** Every {@code if:} text of a workflow tree: each job's and each of its steps'. */
  private static List<String> conditions(JsonNode workflow) {
    List<String> out = new ArrayList<>();
    for (JsonNode job : workflow.path("jobs")) {
      if (job.has("if")) {
        out.add(job.get("if").asText());
      }
      for (JsonNode step : job.path("steps")) {
        if (step.has("if")) {
          out.add(step.get("if").asText());
        }
      }
    }
    return out;
  }

  /**
   * Contexts: events, needs results and policy outputs, step outputs and inputs in a few combinations (the
   * skipped stages always JSON, as the policy job writes them).
   */
  private static List<Map<String, JsonNode>> contexts(JsonNode workflow) throws IOException {
    List<Map<String, JsonNode>> out = new ArrayList<>();
    String[][] events = {{"push", null}, {"pull_request", "opened"}, {"pull_request", "closed"},
        {"pull_request", "labeled"}, {"schedule", null}, {"workflow_dispatch", null}};
    String[][] outputs = {{"true", "[]", "nightly", "success"}, {"false", "[\"stage-c-4-gpu-h200\"]", "regular",
        "failure"}, {"", "[\"x\"]", "", "skipped"}};
    for (String[] e : events) {
      for (String[] o : outputs) {
        ObjectNode github = JSON.createObjectNode().put("event_name", e[0]);
        ObjectNode event = github.putObject("event");
        if (e[1] != null) {
          event.put("action", e[1]);
        } else {
          event.putNull("action");
        }
        event.putObject("pull_request").putArray("labels").addObject().put("name", "run-ci");
        ObjectNode needs = JSON.createObjectNode();
        ObjectNode steps = JSON.createObjectNode();
        for (Map.Entry<String, JsonNode> job : workflow.path("jobs").properties()) {
          ObjectNode need = needs.putObject(job.getKey()).put("result", o[3]);
          ObjectNode values = need.putObject("outputs");
          for (String key : List.of("bypass_fastfail", "skipped_stages", "cadence", "raw_labels", "labels", "image")) {
            values.put(key, key.equals("skipped_stages") ? o[1] : key.equals("cadence") ? o[2] : o[0]);
          }
          for (JsonNode step : job.getValue().path("steps")) {
            if (step.has("id")) {
              steps.putObject(step.get("id").asText()).set("outputs", values.deepCopy());
            }
          }
        }
        ObjectNode inputs = JSON.createObjectNode().put("cadence", o[2]).put("run-gpu", o[0]);
        Map<String, JsonNode> c = new LinkedHashMap<>();
        c.put("github", github);
        c.put("needs", needs);
        c.put("steps", steps);
        c.put("inputs", inputs);
        out.add(c);
      }
    }
    return out;
  }

  /** The product's evaluator over the same contexts; {@code success()} true, as the oracle has it. */
  private static boolean product(String condition, Map<String, JsonNode> contexts) {
    Expression e = Expression.parseCondition(condition);
    ExprValue v = e.evaluate(new ExpressionEnvironment() {
      @Override
      public ExprValue context(String name) {
        JsonNode n = contexts.get(name);
        return n == null ? ExprValue.NULL : ExprValue.fromTree(JSON.convertValue(n, Object.class));
      }

      @Override
      public StatusCheck status(StatusFunction f) {
        return new StatusCheck(f == StatusFunction.CANCELLED ? Tri.FALSE : Tri.TRUE, "the oracle's success()");
      }
    });
    return v.truth() == Tri.TRUE;
  }

  @Test
  void theOracleAgreesWithTheProductOnEveryIfOfEveryExampleWorkflow() throws IOException {
    List<Path> files;
    try (Stream<Path> s = Files.walk(CliTestSupport.REPO.resolve("examples/workflows"))) {
      files = s.filter(p -> p.toString().endsWith(".yml") || p.toString().endsWith(".yaml")).sorted().toList();
    }
    int compared = 0;
    int refused = 0;
    for (Path file : files) {
      JsonNode workflow = WorkflowHarness.readYaml(file);
      for (String condition : conditions(workflow)) {
        for (Map<String, JsonNode> contexts : contexts(workflow)) {
          boolean oracle;
          try {
            oracle = new WorkflowExpressions(contexts).condition(condition);
          } catch (AssertionError unsupported) {
            assertThat(unsupported.getMessage()).as(file + ": " + condition).startsWith("unsupported expression");
            refused++;
            continue;
          }
          assertThat(product(condition, contexts)).as(file + ": `" + condition + "` in " + contexts).isEqualTo(oracle);
          compared++;
        }
      }
    }
    assertThat(compared).as("conditions compared (%d refused by the oracle)", refused).isGreaterThan(100);
  }
}
