package dev.cipolicy.testkit.snapshot;

import dev.cipolicy.launch.NotAnEntrypoint;
import dev.cipolicy.testkit.golden.SnapshotConfigurationException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * One entrypoint of a launcher class: a public instance method that takes no parameter, or one
 * {@code String} parameter whose values (the variants) the test declares.
 *
 * @param name the method name, which names its golden file
 * @param method the method
 * @param takesVariant whether it takes a variant
 */
public record EntrypointMethod(String name, Method method, boolean takesVariant) {
  /**
   * The entrypoints of a launcher class: every public instance method it declares or inherits, except
   * those of {@link Object}, synthetic and bridge methods, and methods annotated {@link NotAnEntrypoint}.
   *
   * @param launcher the launcher class
   * @return the entrypoints, sorted by name
   * @throws SnapshotConfigurationException when there is none, when two share a name, or when one takes
   *     parameters other than a single {@code String}
   */
  public static List<EntrypointMethod> discover(Class<?> launcher) {
    Map<String, EntrypointMethod> found = new TreeMap<>();
    List<String> problems = new ArrayList<>();
    Method[] methods = launcher.getMethods();
    Arrays.sort(methods, Comparator.comparing(Method::getName).thenComparing(Method::toGenericString));
    for (Method m : methods) {
      if (m.getDeclaringClass() == Object.class || Modifier.isStatic(m.getModifiers()) || m.isSynthetic()
          || m.isBridge() || m.isAnnotationPresent(NotAnEntrypoint.class)) {
        continue;
      }
      Class<?>[] params = m.getParameterTypes();
      boolean variant = params.length == 1 && params[0] == String.class;
      if (params.length > 0 && !variant) {
        problems.add("public method " + m.getName() + m.toGenericString().substring(m.toGenericString().indexOf('('))
            + " takes parameters; an entrypoint takes none or one String variant (annotate it @NotAnEntrypoint"
            + " if it is not one)");
        continue;
      }
      EntrypointMethod previous = found.put(m.getName(), new EntrypointMethod(m.getName(), m, variant));
      if (previous != null) {
        problems.add("two public methods are named " + m.getName() + "; an entrypoint name must be unique, it"
            + " names the golden file");
      }
    }
    if (!problems.isEmpty()) {
      throw new SnapshotConfigurationException("launcher " + launcher.getName() + ": " + String.join("; ", problems));
    }
    if (found.isEmpty()) {
      throw new SnapshotConfigurationException("launcher " + launcher.getName() + " has no entrypoint: no public"
          + " instance method other than Object's and @NotAnEntrypoint ones; nothing to snapshot");
    }
    return List.copyOf(found.values());
  }
}
