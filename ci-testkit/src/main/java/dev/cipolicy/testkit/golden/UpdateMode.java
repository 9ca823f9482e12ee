package dev.cipolicy.testkit.golden;

import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;

/**
 * Whether a snapshot run compares recordings with golden files or rewrites the golden files. Updating is
 * asked for explicitly, with one exact value: the system property {@value #PROPERTY} set to
 * {@value #PROPERTY_VALUE} ({@code -Dci.testkit.update=true}), or the environment variable
 * {@value #VARIABLE} set to {@value #VARIABLE_VALUE}. Any other non-empty value is an error (a typo must
 * not silently compare, nor {@code =false} silently update), and an update asked for on CI (the variable
 * {@code CI} set to anything but empty, {@code false} or {@code 0}; GitHub Actions sets
 * {@code CI=true}) is refused with {@link UpdateRefusedException}.
 */
public enum UpdateMode {
  /** Compare with the golden files; a difference fails. */
  COMPARE,
  /** Rewrite the golden files that differ, create the missing ones, delete orphans. */
  UPDATE;

  /** The system property that asks for an update. */
  public static final String PROPERTY = "ci.testkit.update";

  /** The one value of {@link #PROPERTY} that asks for an update ({@code false} or unset compares). */
  public static final String PROPERTY_VALUE = "true";

  /** The environment variable that asks for an update. */
  public static final String VARIABLE = "CI_TESTKIT_UPDATE";

  /** The one value of {@link #VARIABLE} that asks for an update ({@code 0}, empty or unset compares). */
  public static final String VARIABLE_VALUE = "1";

  /**
   * The mode asked for by this JVM's system properties and environment.
   *
   * @return the mode
   * @throws UpdateRefusedException when an update is asked for on CI
   * @throws SnapshotConfigurationException when a switch has a value other than the documented ones
   */
  public static UpdateMode fromSystem() {
    return decide(System.getenv(), properties(System.getProperties()));
  }

  /**
   * The mode asked for by given system properties and environment variables.
   *
   * @param environment environment variables ({@value #VARIABLE}, {@code CI})
   * @param properties system properties ({@value #PROPERTY})
   * @return the mode
   * @throws UpdateRefusedException when an update is asked for on CI
   * @throws SnapshotConfigurationException when a switch has a value other than the documented ones
   */
  public static UpdateMode decide(Map<String, String> environment, Map<String, String> properties) {
    String property = properties.get(PROPERTY);
    boolean byProperty = false;
    if (property != null && !property.equals("false")) {
      if (!property.equals(PROPERTY_VALUE)) {
        throw new SnapshotConfigurationException("system property " + PROPERTY + " is '" + property
            + "'; expected exactly '" + PROPERTY_VALUE + "' to update golden files, or 'false' (or unset) to"
            + " compare with them");
      }
      byProperty = true;
    }
    String variable = environment.get(VARIABLE);
    boolean byVariable = false;
    if (variable != null && !variable.isEmpty() && !variable.equals("0")) {
      if (!variable.equals(VARIABLE_VALUE)) {
        throw new SnapshotConfigurationException("environment variable " + VARIABLE + " is '" + variable
            + "'; expected exactly '" + VARIABLE_VALUE + "' to update golden files, or '0' (or unset) to"
            + " compare with them");
      }
      byVariable = true;
    }
    if (!byProperty && !byVariable) {
      return COMPARE;
    }
    String ci = environment.get("CI");
    if (ci != null && !ci.isEmpty() && !ci.equalsIgnoreCase("false") && !ci.equals("0")) {
      String switchName = byProperty ? "-D" + PROPERTY + "=" + PROPERTY_VALUE : VARIABLE + "=" + VARIABLE_VALUE;
      throw new UpdateRefusedException("refusing to update golden files: " + switchName + " asks for an update,"
          + " but CI=" + ci + " says this is a CI run, where golden files are compared and never rewritten (an"
          + " update there would turn every regression into a pass). Update them on a workstation, without CI"
          + " set, review the diff and commit it");
    }
    return UPDATE;
  }

  /**
   * The name of the mode in lower case.
   *
   * @return {@code compare} or {@code update}
   */
  public String label() {
    return name().toLowerCase(Locale.ROOT);
  }

  private static Map<String, String> properties(Properties p) {
    Map<String, String> m = new LinkedHashMap<>();
    for (String name : p.stringPropertyNames()) {
      m.put(name, p.getProperty(name));
    }
    return m;
  }
}
