package dev.cipolicy.core.load;

import static org.assertj.core.api.Assertions.assertThat;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.longs;

import com.networknt.schema.Schema;
import dev.cipolicy.api.InvalidPolicyException;
import dev.cipolicy.api.PolicyProblem;
import dev.cipolicy.api.RegistrationException;
import dev.cipolicy.core.PolicyResolver;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * The schemas and the loaders agree on generated documents: the examples with random structural mutations
 * (a key or a list item dropped, an unknown key added at any level, a value's type changed, a list where a
 * mapping belongs).
 * When the loader accepts a document the schema accepts it; when the loader rejects it for a structural
 * reason (unknown field, wrong type, missing field, a value outside a fixed set) the schema rejects it too.
 * Rejections for semantic reasons (an undeclared cadence, the stage grammar, ...) are the checks'
 * business and are not compared.
 */
class SchemaAgreementProperties {
  private static final JsonNodeFactory F = JsonNodeFactory.instance;

  /**
   * The loader's messages for problems of structure: DocReader's shape and type problems and the fixed value
   * sets of the sections. A registration problem is prefixed with its test file.
   */
  private static final Pattern STRUCTURAL = Pattern.compile("(?:test file '[^']*': )?(?:"
      + "unknown field '|missing required field '|expected a mapping|expected a list|expected a string"
      + "|expected true or false|expected an integer|expected a number|unknown event source '"
      + "|unknown direction '|unknown event type '|unknown action '|expected last, all or a list"
      + "|unsupported policy_version ).*", Pattern.DOTALL);

  private enum Verdict { ACCEPTED, STRUCTURAL, OTHER }

  /** What the loader said: its verdict, and its problems when it rejected the document. */
  private record Outcome(Verdict verdict, List<PolicyProblem> problems) {}

  private static final Schema POLICY_SCHEMA = SchemaSupport.policySchema();
  private static final Schema REGISTRATIONS_SCHEMA = SchemaSupport.registrationsSchema();
  private static final List<Path> POLICIES = SchemaSupport.examples("policies");
  private static final List<Path> MANIFESTS = SchemaSupport.examples("registrations");
  static final Path EVERY_FIELD = SchemaSupport.ROOT.resolve("ci-policy-core/src/test/resources/schema/every-field.yaml");

  @Test
  void mutatedPoliciesAreRejectedByTheSchemaExactlyWhenTheLoaderRejectsTheirStructure() {
    List<JsonNode> seeds = POLICIES.stream().map(SchemaSupport::tree).toList();
    Map<Verdict, Integer> seen = new EnumMap<>(Verdict.class);
    qt().withExamples(150).forAll(integers().between(0, seeds.size() - 1), longs().all(), integers().between(1, 3))
        .checkAssert((which, seed, count) -> {
          Mutant m = mutate(seeds.get(which), seed, count);
          Outcome v = policyVerdict(m.text());
          seen.merge(v.verdict(), 1, Integer::sum);
          check(v, SchemaSupport.errors(POLICY_SCHEMA, m.tree()), m, POLICIES.get(which));
        });
    assertGeneratorIsNotDegenerate(seen);
  }

  @Test
  void mutatedManifestsAreRejectedByTheSchemaExactlyWhenTheLoaderRejectsTheirStructure() {
    List<JsonNode> seeds = MANIFESTS.stream().map(SchemaSupport::tree).toList();
    List<PolicyResolver> resolvers = MANIFESTS.stream().map(SchemaSupport::policyFor)
        .map(p -> PolicyLoader.load(p.toString(), SchemaSupport.read(p)).resolver()).toList();
    Map<Verdict, Integer> seen = new EnumMap<>(Verdict.class);
    qt().withExamples(400).forAll(integers().between(0, seeds.size() - 1), longs().all(), integers().between(1, 3))
        .checkAssert((which, seed, count) -> {
          Mutant m = mutate(seeds.get(which), seed, count);
          Outcome v = manifestVerdict(m.text(), resolvers.get(which));
          seen.merge(v.verdict(), 1, Integer::sum);
          check(v, SchemaSupport.errors(REGISTRATIONS_SCHEMA, m.tree()), m, MANIFESTS.get(which));
        });
    assertGeneratorIsNotDegenerate(seen);
  }

  /**
   * Every single mutation of a small policy that sets every field the loader reads: each key dropped, an
   * unknown key added to each mapping, each value replaced by one of each other kind. Random mutations of the
   * large examples rarely hit a given key; these hit every one.
   */
  @Test
  void everySingleMutationOfAPolicyWithEveryFieldAgrees() {
    JsonNode doc = SchemaSupport.tree(EVERY_FIELD);
    assertThat(policyVerdict(SchemaSupport.JSON.writeValueAsString(doc)).problems()).isEmpty();
    assertThat(SchemaSupport.errors(POLICY_SCHEMA, doc)).isEmpty();
    Map<Verdict, Integer> seen = new EnumMap<>(Verdict.class);
    List<Place> places = new ArrayList<>();
    collect(doc, null, "", -1, "", places);
    for (int at = 0; at < places.size(); at++) {
      Place p = places.get(at);
      List<JsonNode> replacements = new ArrayList<>();
      for (int kind = 0; kind < 7; kind++) {
        if (kind != kindOf(p.node())) {
          replacements.add(valueOfKind(kind, p.node(), new Random(at * 7L + kind)));
        }
      }
      for (JsonNode r : replacements) {
        single(doc, at, "retype " + p.path() + " to " + r, (root, q) -> replace(root, q, r), seen);
      }
      if (p.parent() != null) {
        single(doc, at, "drop " + p.path(), (root, q) -> {
          if (q.parent() instanceof ObjectNode o) {
            o.remove(q.key());
          } else {
            ((ArrayNode) q.parent()).remove(q.index());
          }
          return root;
        }, seen);
      }
      if (p.node() instanceof ObjectNode) {
        single(doc, at, "add " + p.path() + ".x_unknown", (root, q) -> {
          ((ObjectNode) q.node()).put("x_unknown", "x");
          return root;
        }, seen);
      }
    }
    assertGeneratorIsNotDegenerate(seen);
  }

  /** The mutations of {@link #everySingleMutationOfAPolicyWithEveryFieldAgrees} touch every key of the loader. */
  @Test
  void thePolicyWithEveryFieldHasEveryKeyOfTheLoader() {
    JsonNode doc = SchemaSupport.tree(EVERY_FIELD);
    Map<String, Set<String>> keysByPath = new LinkedHashMap<>();
    List<Place> places = new ArrayList<>();
    collect(doc, null, "", -1, "", places);
    for (Place p : places) {
      if (p.node() instanceof ObjectNode o) {
        keysByPath.put(p.path(), new TreeSet<>(o.propertyNames()));
      }
    }
    for (Map.Entry<String, Set<String>> e : PolicyLoader.fieldSets().entrySet()) {
      Pattern place = Pattern.compile(Pattern.quote(e.getKey()).replace("[]", "\\E\\[[0-9]+\\]\\Q")
          .replace(".*", "\\E\\.[^.\\[]+\\Q"));
      Set<String> found = new TreeSet<>();
      keysByPath.forEach((path, keys) -> {
        if (place.matcher(path).matches()) {
          found.addAll(keys);
        }
      });
      Set<String> expected = new TreeSet<>(e.getValue());
      expected.remove(PolicyLoader.SCHEMA_FIELD);
      assertThat(found).as("keys of %s at '%s'", EVERY_FIELD.getFileName(), e.getKey()).isEqualTo(expected);
    }
  }

  private interface Edit {
    JsonNode apply(JsonNode root, Place at);
  }

  /** Applies one edit to a copy of {@code doc} at the {@code at}-th place and compares the verdicts. */
  private static void single(JsonNode doc, int at, String step, Edit edit, Map<Verdict, Integer> seen) {
    JsonNode copy = doc.deepCopy();
    List<Place> places = new ArrayList<>();
    collect(copy, null, "", -1, "", places);
    JsonNode mutated = edit.apply(copy, places.get(at));
    Mutant m = new Mutant(mutated, SchemaSupport.JSON.writeValueAsString(mutated), List.of(step));
    Outcome v = policyVerdict(m.text());
    seen.merge(v.verdict(), 1, Integer::sum);
    check(v, SchemaSupport.errors(POLICY_SCHEMA, m.tree()), m, EVERY_FIELD);
  }

  private static JsonNode replace(JsonNode root, Place p, JsonNode replacement) {
    if (p.parent() instanceof ObjectNode o) {
      o.set(p.key(), replacement);
      return root;
    }
    if (p.parent() instanceof ArrayNode a) {
      a.set(p.index(), replacement);
      return root;
    }
    return replacement;
  }

  /** The property compares something: both accepted and structurally rejected documents were generated. */
  private static void assertGeneratorIsNotDegenerate(Map<Verdict, Integer> seen) {
    System.err.println("schema agreement: " + seen);
    assertThat(seen.getOrDefault(Verdict.ACCEPTED, 0)).as("accepted mutants %s", seen).isGreaterThan(10);
    assertThat(seen.getOrDefault(Verdict.STRUCTURAL, 0)).as("structurally rejected mutants %s", seen)
        .isGreaterThan(50);
  }

  private static void check(Outcome o, List<String> schemaErrors, Mutant m, Path example) {
    String what = example.getFileName() + " with " + m.steps() + " (loader: " + o.problems() + ")\n" + m.text();
    switch (o.verdict()) {
      case ACCEPTED -> assertThat(schemaErrors).as("the loader accepts %s", what).isEmpty();
      case STRUCTURAL -> assertThat(schemaErrors).as("the loader rejects the structure of %s", what).isNotEmpty();
      case OTHER -> { }
    }
  }

  private static Outcome policyVerdict(String json) {
    try {
      PolicyLoader.load("mutant.json", json, DocumentFormat.JSON);
      return new Outcome(Verdict.ACCEPTED, List.of());
    } catch (InvalidPolicyException e) {
      return classify(e.problems());
    }
  }

  private static Outcome manifestVerdict(String json, PolicyResolver resolver) {
    try {
      RegistrationLoader.load("mutant.json", json, DocumentFormat.JSON, resolver);
      return new Outcome(Verdict.ACCEPTED, List.of());
    } catch (RegistrationException e) {
      return classify(e.problems());
    }
  }

  private static Outcome classify(List<PolicyProblem> problems) {
    return new Outcome(problems.stream().anyMatch(p -> STRUCTURAL.matcher(p.message()).matches())
        ? Verdict.STRUCTURAL : Verdict.OTHER, problems);
  }

  /** A mutated document, its JSON text (what the loader reads) and the mutations applied. */
  record Mutant(JsonNode tree, String text, List<String> steps) {}

  /** A node and where it hangs: its parent mapping's key or its parent list's index (no parent: the root). */
  private record Place(JsonNode node, JsonNode parent, String key, int index, String path) {}

  static Mutant mutate(JsonNode example, long seed, int count) {
    Random rnd = new Random(seed);
    JsonNode root = example.deepCopy();
    List<String> steps = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      List<Place> places = new ArrayList<>();
      collect(root, null, "", -1, "", places);
      int kind = rnd.nextInt(5);
      if (kind == 4) {
        List<Place> items = places.stream().filter(p -> p.parent() instanceof ArrayNode).toList();
        if (!items.isEmpty()) {
          Place p = items.get(rnd.nextInt(items.size()));
          ((ArrayNode) p.parent()).remove(p.index());
          steps.add("drop " + p.path());
        }
      } else if (kind == 0) {
        List<Place> members = places.stream().filter(p -> p.parent() instanceof ObjectNode).toList();
        if (!members.isEmpty()) {
          Place p = members.get(rnd.nextInt(members.size()));
          ((ObjectNode) p.parent()).remove(p.key());
          steps.add("drop " + p.path());
        }
      } else if (kind == 1) {
        List<Place> objects = places.stream().filter(p -> p.node() instanceof ObjectNode).toList();
        if (!objects.isEmpty()) {
          Place p = objects.get(rnd.nextInt(objects.size()));
          ObjectNode o = (ObjectNode) p.node();
          String key = "x_unknown_" + rnd.nextInt(100);
          JsonNode value = rnd.nextInt(3) == 0 && !o.isEmpty()
              ? o.values().stream().skip(rnd.nextInt(o.size())).findFirst().orElseThrow().deepCopy()
              : anyValue(rnd);
          o.set(key, value);
          steps.add("add " + (p.path().isEmpty() ? key : p.path() + "." + key) + " = " + value);
        }
      } else {
        Place p = places.get(rnd.nextInt(places.size()));
        JsonNode replacement = kind == 2 ? otherKind(p.node(), rnd)
            : p.node() instanceof ObjectNode o ? listOf(o) : otherKind(p.node(), rnd);
        steps.add("retype " + (p.path().isEmpty() ? "the root" : p.path()) + " to " + replacement);
        root = replace(root, p, replacement);
      }
    }
    return new Mutant(root, SchemaSupport.JSON.writeValueAsString(root), steps);
  }

  private static void collect(JsonNode node, JsonNode parent, String key, int index, String path, List<Place> out) {
    out.add(new Place(node, parent, key, index, path));
    if (node instanceof ObjectNode o) {
      for (Map.Entry<String, JsonNode> e : o.properties()) {
        collect(e.getValue(), o, e.getKey(), -1, path.isEmpty() ? e.getKey() : path + "." + e.getKey(), out);
      }
    } else if (node instanceof ArrayNode a) {
      for (int i = 0; i < a.size(); i++) {
        collect(a.get(i), a, "", i, path + "[" + i + "]", out);
      }
    }
  }

  /** The kinds of value: string, integer, decimal, boolean, null, list, mapping. */
  private static int kindOf(JsonNode n) {
    if (n.isString()) {
      return 0;
    }
    if (n.isIntegralNumber()) {
      return 1;
    }
    if (n.isNumber()) {
      return 2;
    }
    if (n.isBoolean()) {
      return 3;
    }
    if (n.isNull()) {
      return 4;
    }
    return n.isArray() ? 5 : 6;
  }

  private static JsonNode anyValue(Random rnd) {
    return valueOfKind(rnd.nextInt(7), F.stringNode("x"), rnd);
  }

  /** A value of another kind than {@code n}, made from it where that is natural (7 and "7", a list of a map's values). */
  private static JsonNode otherKind(JsonNode n, Random rnd) {
    int kind = rnd.nextInt(6);
    if (kind >= kindOf(n)) {
      kind++;
    }
    return valueOfKind(kind, n, rnd);
  }

  private static JsonNode valueOfKind(int kind, JsonNode from, Random rnd) {
    return switch (kind) {
      case 0 -> F.stringNode(from.isValueNode() && !from.isNull() ? from.asString() : "x");
      case 1 -> F.numberNode(rnd.nextInt(10));
      // never integral: a decimal with a zero fraction is an integer to JSON Schema but not to the loader
      case 2 -> F.numberNode(rnd.nextInt(10) + 0.5);
      case 3 -> F.booleanNode(rnd.nextBoolean());
      case 4 -> F.nullNode();
      case 5 -> from instanceof ObjectNode o ? listOf(o) : from.isContainer() ? F.arrayNode()
          : F.arrayNode().add(from.deepCopy());
      default -> {
        ObjectNode o = F.objectNode();
        if (from instanceof ArrayNode a) {
          for (int i = 0; i < a.size(); i++) {
            o.set("k" + i, a.get(i).deepCopy());
          }
        } else if (!from.isContainer()) {
          o.set("x_key", from.deepCopy());
        }
        yield o;
      }
    };
  }

  /** A list where a mapping belongs: the mapping's values. */
  private static ArrayNode listOf(ObjectNode o) {
    ArrayNode a = F.arrayNode();
    o.values().forEach(v -> a.add(v.deepCopy()));
    return a;
  }
}
