package dev.cipolicy.cli;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import dev.cipolicy.api.CiPolicyException;
import dev.cipolicy.core.SuiteRegistry;
import dev.cipolicy.core.load.DocumentLimits;
import dev.cipolicy.core.load.LoadedPolicy;
import dev.cipolicy.core.load.PolicyLoader;
import dev.cipolicy.core.load.RegistrationLoader;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.Map;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/** Reading the CLI's inputs: flags first, then environment variables, then files. */
final class Inputs {
  private Inputs() {}

  /** An input problem reported as {@code ::error::}, exit 1. */
  static final class InputException extends CiPolicyException {
    private static final long serialVersionUID = 1L;

    /** The message is made single-line by {@link CiPolicyException} itself. */
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

  /** The value if it is neither null nor empty. */
  static Optional<String> nonEmpty(@Nullable String value) {
    return value == null || value.isEmpty() ? Optional.empty() : Optional.of(value);
  }

  /** The largest file read when an input names no limit of its own: 64 MiB. */
  static final long DEFAULT_MAX_BYTES = 64L * 1024 * 1024;
  /** The largest policy, registrations or gates document: the loaders' own limit. */
  static final long MAX_DOCUMENT_BYTES = DocumentLimits.MAX_DOCUMENT_CHARS;
  /** The largest GitHub event payload: 25 MiB, GitHub's own limit on a webhook payload. */
  static final long MAX_EVENT_BYTES = 25L * 1024 * 1024;
  /** The largest in-flight runs file: 8 MiB. */
  static final long MAX_IN_FLIGHT_BYTES = 8L * 1024 * 1024;
  /** The largest changed-files ({@code git diff --name-status -z}) file: 16 MiB. */
  static final long MAX_CHANGED_FILES_BYTES = 16L * 1024 * 1024;
  /** The largest workflow file: 1 MiB. */
  static final long MAX_WORKFLOW_BYTES = 1024L * 1024;

  static String readText(Path path, String what) {
    return readText(path, what, DEFAULT_MAX_BYTES);
  }

  /** Reads a UTF-8 file of at most {@code maxBytes} bytes; never more than {@code maxBytes + 1} are read. */
  static String readText(Path path, String what, long maxBytes) {
    byte[] bytes = readBytes(path, what, maxBytes);
    try {
      return StandardCharsets.UTF_8.newDecoder().decode(java.nio.ByteBuffer.wrap(bytes)).toString();
    } catch (CharacterCodingException e) {
      throw new InputException("cannot read " + what + " " + path + ": the file is not valid UTF-8");
    }
  }

  /**
   * Reads a regular file of at most {@code maxBytes} bytes, failing before parsing when the file is larger: only
   * {@code maxBytes + 1} bytes are ever read, so a huge file fails fast; a FIFO, device or directory is refused
   * before it is opened ({@link #requireRegularFile}).
   */
  static byte[] readBytes(Path path, String what, long maxBytes) {
    requireRegularFile(path, what, maxBytes);
    int cap = (int) Math.min(Integer.MAX_VALUE - 16, maxBytes + 1);
    try (InputStream in = Files.newInputStream(path)) {
      byte[] bytes = in.readNBytes(cap);
      if (bytes.length > maxBytes) {
        throw new InputException("cannot read " + what + " " + path + ": the file is larger than " + maxBytes
            + " bytes, the limit for a " + what);
      }
      return bytes;
    } catch (IOException e) {
      throw new InputException("cannot read " + what + " " + path + ": " + describe(e));
    }
  }

  /**
   * Refuses, before opening it, a path that is not a regular file (after following links): opening a FIFO
   * blocks until a writer comes, and a device such as {@code /dev/zero} or a terminal never ends, so every file
   * input of the CLI is a regular file read within its limit. A missing file is left to the read, which names
   * it.
   */
  static void requireRegularFile(Path path, String what, long maxBytes) {
    BasicFileAttributes attributes;
    try {
      attributes = Files.readAttributes(path, BasicFileAttributes.class);
    } catch (IOException e) {
      return; // the read itself reports the missing or unreadable file
    }
    if (!attributes.isRegularFile()) {
      String kind = attributes.isDirectory() ? "a directory" : attributes.isOther()
          ? "not a regular file (a FIFO, socket or device)" : "not a regular file";
      throw new InputException("cannot read " + what + " " + path + ": it is " + kind + "; expected a regular file"
          + " of at most " + maxBytes + " bytes, the limit for a " + what);
    }
  }

  static LoadedPolicy loadPolicy(CiPolicyCli cli, String policyFlag) {
    Path path = cli.resolvePath(policyFlag);
    return PolicyLoader.load(policyFlag, readText(path, "policy file", MAX_DOCUMENT_BYTES));
  }

  static SuiteRegistry loadRegistry(CiPolicyCli cli, LoadedPolicy policy, String registrationsFlag) {
    Path path = cli.resolvePath(registrationsFlag);
    return RegistrationLoader.load(registrationsFlag, readText(path, "registrations file", MAX_DOCUMENT_BYTES),
        policy.resolver());
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
      if (message.startsWith("Unrecognized token")) {
        // the parser quotes the whole token, which in a file that is not JSON may be anything (a secret too)
        throw new InputException(file + where + ": not JSON: an unrecognized token where a JSON value was expected"
            + " (an object, array, string, number, true, false or null); the token is not shown");
      }
      int nl = message.indexOf('\n');
      throw new InputException(file + where + ": malformed JSON: "
          + (nl < 0 ? message : message.substring(0, nl)).strip());
    } catch (IOException e) {
      throw new InputException(file + ": unreadable JSON: " + describe(e));
    }
  }

  static String describe(IOException e) {
    String type = e.getClass().getSimpleName();
    String message = String.valueOf(e.getMessage());
    if (message.startsWith("Cannot run program \"")) {
      // a process that could not start: "Cannot run program \"x\": error=2, No such file or directory" (JDK 17),
      // or "...: Exec failed, error: 2 (No such file or directory) " (JDK 25): the reason alone
      return message.replaceFirst("^Cannot run program \"[^\"]*\"[^:]*: (error=\\d+, )?", "")
          .replaceFirst("^Exec failed, error: \\d+ \\((.*)\\)\\s*$", "$1").strip();
    }
    return switch (type) {
      case "NoSuchFileException" -> "no such file";
      case "AccessDeniedException" -> "permission denied";
      case "FileSystemException" -> String.valueOf(e.getMessage());
      default -> type + (e.getMessage() == null ? "" : ": " + e.getMessage());
    };
  }
}
