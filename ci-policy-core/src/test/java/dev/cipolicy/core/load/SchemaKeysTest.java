package dev.cipolicy.core.load;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * The keys of every mapping the loaders read are exactly the properties of the matching closed object of the
 * schema, and the schema has no closed object the loaders do not read: neither can gain or lose a key alone.
 */
class SchemaKeysTest {
  @Test
  void everyPolicyKeySetOfTheLoaderIsASchemaObjectWithTheSameKeys() {
    JsonNode schema = SchemaSupport.schemaTree(SchemaSupport.POLICY_SCHEMA);
    Map<String, Set<String>> closed = closedObjects(schema);
    Map<String, Set<String>> loader = PolicyLoader.fieldSets();
    for (Map.Entry<String, Set<String>> e : loader.entrySet()) {
      String at = e.getKey();
      assertThat(closed).as("the schema has a closed object (additionalProperties: false) at '%s'", at)
          .containsKey(at);
      Set<String> expected = new TreeSet<>(e.getValue());
      Set<String> inSchema = new TreeSet<>(closed.get(at));
      assertThat(inSchema).as("the properties of the schema object at '%s' are the loader's keys", at)
          .isEqualTo(expected);
    }
    for (String at : closed.keySet()) {
      assertThat(loader).as("the loader reads the schema's closed object at '%s' (register its keys in"
          + " PolicyLoader.fieldSets())", at).containsKey(at);
    }
  }

  @Test
  void theManifestEntryKeysOfTheLoaderAreTheSchemaItemKeys() {
    JsonNode schema = SchemaSupport.schemaTree(SchemaSupport.REGISTRATIONS_SCHEMA);
    Map<String, Set<String>> closed = closedObjects(schema);
    assertThat(closed.keySet()).containsExactly("[]");
    assertThat(new TreeSet<>(closed.get("[]"))).isEqualTo(new TreeSet<>(RegistrationLoader.fields()));
  }

  @Test
  void theWalkFindsEveryKindOfPlace() {
    // guards the walk itself: a broken walk would find nothing and compare nothing
    Map<String, Set<String>> closed = closedObjects(SchemaSupport.schemaTree(SchemaSupport.POLICY_SCHEMA));
    assertThat(closed).containsKeys("", "cadences.*", "schedules[]", "backends.*.suites.*", "retry",
        "gates.defaults.*.constraint");
    assertThat(closed.get("cadences.*")).contains("admit_nightly_tests");
  }

  /**
   * The closed objects of a schema by place, in the notation of {@link PolicyLoader#fieldSets()}: {@code ""} the
   * root, {@code a.b} a property, {@code a.*} the values of an open map, {@code a[]} the items of a list.
   */
  static Map<String, Set<String>> closedObjects(JsonNode root) {
    Map<String, Set<String>> out = new LinkedHashMap<>();
    walk(root, root, "", out, 0);
    return out;
  }

  private static void walk(JsonNode root, JsonNode node, String at, Map<String, Set<String>> out, int depth) {
    if (depth > 20 || node == null || !node.isObject()) {
      return;
    }
    JsonNode ref = node.get("$ref");
    if (ref != null) {
      walk(root, resolve(root, ref.asString()), at, out, depth + 1);
    }
    for (String combinator : new String[] {"anyOf", "oneOf", "allOf"}) {
      JsonNode alternatives = node.get(combinator);
      if (alternatives != null) {
        alternatives.values().forEach(a -> walk(root, a, at, out, depth + 1));
      }
    }
    JsonNode props = node.get("properties");
    JsonNode additional = node.get("additionalProperties");
    if (additional != null && additional.isBoolean() && !additional.asBoolean()) {
      out.computeIfAbsent(at, k -> new TreeSet<>()).addAll(props == null ? Set.of() : props.propertyNames());
    }
    if (props != null) {
      for (Map.Entry<String, JsonNode> p : props.properties()) {
        walk(root, p.getValue(), at.isEmpty() ? p.getKey() : at + "." + p.getKey(), out, depth + 1);
      }
    }
    if (additional != null && additional.isObject()) {
      walk(root, additional, at + ".*", out, depth + 1);
    }
    JsonNode items = node.get("items");
    if (items != null) {
      walk(root, items, at + "[]", out, depth + 1);
    }
  }

  private static JsonNode resolve(JsonNode root, String ref) {
    if (!ref.startsWith("#/")) {
      throw new IllegalArgumentException("only local references are expected: " + ref);
    }
    JsonNode n = root.at(ref.substring(1));
    if (n.isMissingNode()) {
      throw new IllegalArgumentException("dangling reference " + ref);
    }
    return n;
  }
}
