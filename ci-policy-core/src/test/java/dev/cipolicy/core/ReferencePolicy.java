package dev.cipolicy.core;

import dev.cipolicy.core.load.LoadedPolicy;
import dev.cipolicy.core.load.PolicyLoader;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/** The reference policy examples/policies/miles.yaml, loaded once for tests. */
public final class ReferencePolicy {
  /** The 19 known labels of the reference policy, in declaration order. */
  public static final List<String> KNOWN = List.of("megatron", "model-scripts", "sglang", "fsdp", "short",
      "long", "ckpt", "lora", "eval", "precision", "ft-short", "ft-long", "weight-update", "fully-async",
      "replay", "qwen35", "mooncake", "miles-plugin", "amd");

  private static final LoadedPolicy LOADED = PolicyLoader.load("miles.yaml", text());
  private static final SuiteRegistry REGISTRY =
      dev.cipolicy.core.load.RegistrationLoader.load("registrations.yaml", read(registrationsPath()), LOADED.resolver());

  private ReferencePolicy() {}

  /** The reference policy text. */
  public static String text() {
    return read(path());
  }

  private static String read(Path p) {
    try {
      return Files.readString(p);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Where the reference registrations live. */
  public static Path registrationsPath() {
    return path().resolveSibling("../registrations/miles.yaml").normalize();
  }

  /** The reference registrations checked against the reference policy. */
  public static SuiteRegistry registry() {
    return REGISTRY;
  }

  /** Where the reference policy lives, from a module directory. */
  public static Path path() {
    Path p = Path.of("../examples/policies/miles.yaml");
    return Files.exists(p) ? p : Path.of("../../examples/policies/miles.yaml");
  }

  /** The loaded reference policy. */
  public static LoadedPolicy loaded() {
    return LOADED;
  }

  /** Its resolver. */
  public static PolicyResolver resolver() {
    return LOADED.resolver();
  }
}
