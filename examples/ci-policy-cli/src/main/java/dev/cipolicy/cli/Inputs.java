package dev.cipolicy.cli;

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
