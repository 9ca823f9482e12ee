package dev.cipolicy.core.load;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import com.networknt.schema.Error;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SpecificationVersion;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The repository's JSON Schemas ({@code schemas/*.schema.json}) and example documents, for the schema tests.
 * Examples are read with the loaders' own YAML engine (Jackson 2 over SnakeYAML, YAML 1.1) and handed to the
 * validator as Jackson 3 trees, which is what it reads.
 */
final class SchemaSupport {
  static final JsonMapper JSON = JsonMapper.builder().build();
  private static final YAMLMapper YAML = new YAMLMapper();
  private static final ObjectMapper JSON2 = new ObjectMapper();

  /** The repository root: the nearest ancestor of the working directory with a {@code schemas} folder. */
  static final Path ROOT = findRoot();

  static final Path POLICY_SCHEMA = ROOT.resolve("schemas/policy.schema.json");
  static final Path REGISTRATIONS_SCHEMA = ROOT.resolve("schemas/registrations.schema.json");

  private SchemaSupport() {}

  private static Path findRoot() {
    Path p = Path.of("").toAbsolutePath();
    while (p != null) {
      if (Files.isRegularFile(p.resolve("schemas/policy.schema.json")) && Files.isDirectory(p.resolve("examples"))) {
        return p;
      }
      p = p.getParent();
    }
    throw new IllegalStateException("no schemas/policy.schema.json above " + Path.of("").toAbsolutePath());
  }

  static String read(Path p) {
    try {
      return Files.readString(p);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** A schema file as a tree. */
  static JsonNode schemaTree(Path schema) {
    return JSON.readTree(read(schema));
  }

  /** A validator for a schema tree (draft 2020-12). */
  static Schema schema(JsonNode tree) {
    return SchemaRegistry.withDefaultDialect(SpecificationVersion.DRAFT_2020_12).getSchema(tree);
  }

  static Schema policySchema() {
    return schema(schemaTree(POLICY_SCHEMA));
  }

  static Schema registrationsSchema() {
    return schema(schemaTree(REGISTRATIONS_SCHEMA));
  }

  /** The errors of a document against a schema, one line each. */
  static List<String> errors(Schema schema, JsonNode document) {
    return schema.validate(document).stream().map(Error::toString).toList();
  }

  /** Every file of an examples folder ({@code examples/policies}, {@code examples/registrations}), sorted. */
  static List<Path> examples(String folder) {
    Path dir = ROOT.resolve("examples").resolve(folder);
    try (Stream<Path> files = Files.list(dir)) {
      List<Path> found = files.filter(Files::isRegularFile)
          .filter(f -> f.toString().endsWith(".yaml") || f.toString().endsWith(".yml")
              || f.toString().endsWith(".json"))
          .sorted().toList();
      if (found.isEmpty()) {
        throw new IllegalStateException("no examples in " + dir);
      }
      return found;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** A YAML or JSON document as a Jackson 3 tree, read by the YAML 1.1 engine the loaders use. */
  static JsonNode tree(String text) {
    try {
      return JSON.readTree(JSON2.writeValueAsString(YAML.readTree(text)));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static JsonNode tree(Path file) {
    return tree(read(file));
  }

  /** The example policy that an example manifest goes with: the one of the same file name, else miles.yaml. */
  static Path policyFor(Path registrations) {
    Path same = ROOT.resolve("examples/policies").resolve(registrations.getFileName());
    return Files.exists(same) ? same : ROOT.resolve("examples/policies/miles.yaml");
  }
}
