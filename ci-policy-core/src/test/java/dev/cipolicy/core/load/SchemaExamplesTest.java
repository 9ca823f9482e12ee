package dev.cipolicy.core.load;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.networknt.schema.Schema;
import com.networknt.schema.SchemaLocation;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SpecificationVersion;
import dev.cipolicy.api.InvalidPolicyException;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/** Every example document validates against its schema, and the schemas are valid draft 2020-12 schemas. */
class SchemaExamplesTest {
  private static final Schema POLICY = SchemaSupport.policySchema();
  private static final Schema REGISTRATIONS = SchemaSupport.registrationsSchema();

  @TestFactory
  Stream<DynamicTest> everyExamplePolicyValidatesAndLoads() {
    return SchemaSupport.examples("policies").stream().map(p -> DynamicTest.dynamicTest(p.getFileName().toString(),
        () -> {
          assertThat(SchemaSupport.errors(POLICY, SchemaSupport.tree(p))).as(p.toString()).isEmpty();
          PolicyLoader.load(p.toString(), SchemaSupport.read(p));
        }));
  }

  @TestFactory
  Stream<DynamicTest> everyExampleManifestValidatesAndLoads() {
    return SchemaSupport.examples("registrations").stream().map(p -> DynamicTest.dynamicTest(
        p.getFileName().toString(), () -> {
          assertThat(SchemaSupport.errors(REGISTRATIONS, SchemaSupport.tree(p))).as(p.toString()).isEmpty();
          Path policy = SchemaSupport.policyFor(p);
          RegistrationLoader.load(p.toString(), SchemaSupport.read(p),
              PolicyLoader.load(policy.toString(), SchemaSupport.read(policy)).resolver());
        }));
  }

  /** Editors find the schema through the yaml-language-server comment at the top of each YAML example. */
  @TestFactory
  Stream<DynamicTest> everyYamlExampleNamesItsSchema() {
    return Stream.of("policies", "registrations").flatMap(folder -> SchemaSupport.examples(folder).stream()
        .filter(p -> !p.toString().endsWith(".json"))
        .map(p -> DynamicTest.dynamicTest(folder + "/" + p.getFileName(), () -> {
          String schemaFile = folder.equals("policies") ? "policy.schema.json" : "registrations.schema.json";
          String first = SchemaSupport.read(p).lines().findFirst().orElse("");
          assertThat(first).isEqualTo("# yaml-language-server: $schema=../../schemas/" + schemaFile);
          assertThat(p.getParent().resolve("../../schemas/" + schemaFile).normalize()).isRegularFile();
        })));
  }

  @Test
  void theSchemasAreValidDraft202012Schemas() {
    Schema meta = SchemaRegistry.withDefaultDialect(SpecificationVersion.DRAFT_2020_12)
        .getSchema(SchemaLocation.of(SpecificationVersion.DRAFT_2020_12.getDialectId()));
    for (Path schema : List.of(SchemaSupport.POLICY_SCHEMA, SchemaSupport.REGISTRATIONS_SCHEMA)) {
      JsonNode tree = SchemaSupport.schemaTree(schema);
      assertThat(SchemaSupport.errors(meta, tree)).as(schema.toString()).isEmpty();
      assertThat(tree.get("$schema").asString()).isEqualTo("https://json-schema.org/draft/2020-12/schema");
    }
    // the meta-schema is live: a schema with a wrong keyword type is rejected
    assertThat(SchemaSupport.errors(meta, SchemaSupport.JSON.readTree("{\"type\": 5}"))).isNotEmpty();
  }

  @Test
  void aJsonPolicyMayNameItsSchema() {
    ObjectNode doc = (ObjectNode) SchemaSupport.tree(SchemaSupport.read(SchemaSupport.ROOT.resolve(
        "examples/policies/miles.yaml")));
    doc.put("$schema", "../../schemas/policy.schema.json");
    String text = SchemaSupport.JSON.writeValueAsString(doc);
    assertThat(PolicyLoader.load("miles.json", text).policy().name()).isEqualTo("miles");
    assertThat(SchemaSupport.errors(POLICY, doc)).isEmpty();

    doc.put("$schema", 5);
    String bad = SchemaSupport.JSON.writeValueAsString(doc);
    assertThatThrownBy(() -> PolicyLoader.load("miles.json", bad)).isInstanceOf(InvalidPolicyException.class)
        .hasMessageContaining("$schema: expected a string, found an integer (5)");
    assertThat(SchemaSupport.errors(POLICY, doc)).isNotEmpty();
  }

  @Test
  void theSchemaRejectsWhatTheLoaderRejectsStructurally() {
    String base = "{\"name\": \"p\", \"cadences\": {\"regular\": {\"admit_nightly_tests\": false,"
        + " \"bypass_fastfail\": false, \"write_baseline\": false}}";
    assertThat(SchemaSupport.errors(POLICY, SchemaSupport.JSON.readTree(base + "}"))).isEmpty();
    for (String bad : List.of(
        ", \"nmae\": 1",
        ", \"events\": {\"schedule\": {\"source\": \"schedule_table\", \"cadence\": \"regular\"}}",
        ", \"events\": {\"pr\": {\"source\": \"pull_request_labels\"}}",
        ", \"events\": {\"pr\": {\"source\": \"sometimes\", \"cadence\": \"regular\"}}",
        ", \"workflows\": {\"w\": {\"group_prefix\": \"w-\", \"on\": {\"pushed\": \"cancel\"}}}",
        ", \"workflows\": {\"w\": {\"group_prefix\": \"w-\", \"on\": {\"closed\": \"abort\"}}}",
        ", \"gates\": {\"defaults\": {\"m\": {\"steps\": \"first\"}}}",
        ", \"gates\": {\"defaults\": {\"m\": {\"constraint\": {\"rel_sideways\": 1}}}}",
        ", \"gates\": {\"fail_on\": {\"regular\": \"sometimes\"}}",
        ", \"gates\": {\"fail_on\": {\"regular\": 1}}",
        ", \"gates\": {\"fail_on\": [\"regular\"]}",
        ", \"policy_version\": 2")) {
      String doc = base + bad + "}";
      assertThat(SchemaSupport.errors(POLICY, SchemaSupport.JSON.readTree(doc))).as(doc).isNotEmpty();
      assertThatThrownBy(() -> PolicyLoader.load("bad.json", doc)).as(doc).isInstanceOf(InvalidPolicyException.class);
    }
    // a blocking level per cadence is accepted by both
    String blocking = base + ", \"gates\": {\"fail_on\": {\"regular\": \"regression\"}}}";
    assertThat(SchemaSupport.errors(POLICY, SchemaSupport.JSON.readTree(blocking))).isEmpty();
    PolicyLoader.load("blocking.json", blocking);
    // event sources are read regardless of case, by the loader and the schema alike
    String upper = base + ", \"events\": {\"schedule\": {\"source\": \"SCHEDULE_TABLE\"}}}";
    assertThat(SchemaSupport.errors(POLICY, SchemaSupport.JSON.readTree(upper))).isEmpty();
    PolicyLoader.load("upper.json", upper);
  }
}
