package dev.cipolicy.cli;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import dev.cipolicy.api.CiPolicyException;
import dev.cipolicy.core.SuiteRegistry;
import dev.cipolicy.core.load.LoadedPolicy;
import dev.cipolicy.core.load.RegistrationLoader;
import dev.cipolicy.core.load.PolicyLoader;
import java.io.IOException;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/** Reading the CLI's inputs: flags first, then environment variables, then files. */
final class Inputs {
  private Inputs() {}

  /** An input problem reported as {@code ::error::}, exit 1. */
  static final class InputException extends CiPolicyException {
    private static final long serialVersionUID = 1L;

    InputException(String message) {
      super(message);
    }
  }

  /** The flag's value if given, else the environment variable's, else empty. */
  static Optional<String> flagOrEnv(@Nullable String flag, Map<String, String> env, String variable) {
    if (flag != null) {
      return Optional.of(flag);
    }
    return Optional.ofNullable(env.get(variable));
  }

  static String readText(Path path, String what) {
    try {
      byte[] bytes = Files.readAllBytes(path);
      return StandardCharsets.UTF_8.newDecoder().decode(java.nio.ByteBuffer.wrap(bytes)).toString();
    } catch (CharacterCodingException e) {
      throw new InputException("cannot read " + what + " " + path + ": the file is not valid UTF-8");
    } catch (IOException e) {
      throw new InputException("cannot read " + what + " " + path + ": " + describe(e));
    }
  }

  static byte[] readBytes(Path path, String what) {
    try {
      return Files.readAllBytes(path);
    } catch (IOException e) {
      throw new InputException("cannot read " + what + " " + path + ": " + describe(e));
    }
  }

  static LoadedPolicy loadPolicy(CiPolicyCli cli, String policyFlag) {
    Path path = cli.resolvePath(policyFlag);
    return PolicyLoader.load(policyFlag, readText(path, "policy file"));
  }

  static SuiteRegistry loadRegistry(CiPolicyCli cli, LoadedPolicy policy, String registrationsFlag) {
    Path path = cli.resolvePath(registrationsFlag);
    return RegistrationLoader.load(registrationsFlag, readText(path, "registrations file"), policy.resolver());
  }

  static void appendOutput(Path file, String text) {
    try {
      Files.write(file, text.getBytes(StandardCharsets.UTF_8), java.nio.file.StandardOpenOption.CREATE,
          java.nio.file.StandardOpenOption.APPEND, java.nio.file.StandardOpenOption.WRITE);
    } catch (IOException e) {
      throw new InputException("cannot append to output file " + file + ": " + describe(e));
    }
  }

  private static final ObjectMapper JSON = JsonMapper.builder()
      .enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION)
      .build();

  /**
   * Parses one JSON value; duplicate keys, trailing content and an empty file are errors naming the file,
   * line and column.
   */
  static JsonNode parseJson(String file, String text) {
    try (JsonParser p = JSON.createParser(text)) {
      JsonNode root = JSON.readTree(p);
      if (root == null || root.isMissingNode()) {
        throw new InputException(file + ": the file is empty; expected JSON");
      }
      if (p.nextToken() != null) {
        JsonLocation l = p.currentTokenLocation();
        throw new InputException(file + ":" + l.getLineNr() + ":" + l.getColumnNr()
            + ": malformed JSON: unexpected content after the end of the value");
      }
      return root;
    } catch (JsonProcessingException e) {
      JsonLocation l = e.getLocation();
      String where = l == null ? "" : ":" + l.getLineNr() + ":" + l.getColumnNr();
      String message = String.valueOf(e.getOriginalMessage());
      int nl = message.indexOf('\n');
      throw new InputException(file + where + ": malformed JSON: "
          + (nl < 0 ? message : message.substring(0, nl)).strip());
    } catch (IOException e) {
      throw new InputException(file + ": unreadable JSON: " + describe(e));
    }
  }

  static String describe(IOException e) {
    String type = e.getClass().getSimpleName();
    return switch (type) {
      case "NoSuchFileException" -> "no such file";
      case "AccessDeniedException" -> "permission denied";
      case "FileSystemException" -> String.valueOf(e.getMessage());
      default -> type + (e.getMessage() == null ? "" : ": " + e.getMessage());
    };
  }
}
