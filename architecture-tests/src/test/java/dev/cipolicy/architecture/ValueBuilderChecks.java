package dev.cipolicy.architecture;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;
import static org.quicktheories.QuickTheory.qt;

import dev.cipolicy.api.CiPolicyException;
import dev.cipolicy.api.InvalidValueException;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalInt;
import java.util.OptionalLong;
import org.quicktheories.generators.Generate;

/**
 * The checks of one value type's builder, driven by its {@link ValueSpec} and by reflection over its
 * public {@code builder()}: valid fields build; leaving out any required field, passing null to any
 * builder method that takes a value or an element, or breaking any rule of the spec throws a
 * {@link CiPolicyException} (an {@link InvalidValueException} for the first two) and nothing else. Each
 * check fails with an {@link AssertionError} naming the type, the field and the generated values.
 */
final class ValueBuilderChecks {
  private static final int EXAMPLES = 60;

  private final ValueSpec spec;
  private final String type;

  ValueBuilderChecks(ValueSpec spec) {
    this.spec = spec;
    this.type = spec.type().getSimpleName();
  }

  /** Runs every check. */
  void verify() {
    validFieldsBuild();
    everyRequiredFieldIsChecked();
    nullsAreRejected();
    everyRuleIsChecked();
  }

  void validFieldsBuild() {
    qt().withExamples(EXAMPLES).forAll(spec.validFields()).checkAssert(fields -> {
      Outcome o = build(fields);
      if (o.thrown() != null) {
        fail(type + ": valid fields " + fields + " did not build: " + o.thrown());
      }
    });
  }

  /**
   * The required fields, by declaration: the abstract accessors of the type whose value is neither
   * optional, a collection nor {@code @Nullable}. A field with a default is not abstract.
   */
  List<String> requiredFields() {
    List<String> required = new ArrayList<>();
    for (Method m : spec.type().getMethods()) {
      Class<?> r = m.getReturnType();
      boolean container = Optional.class.isAssignableFrom(r) || r == OptionalInt.class || r == OptionalLong.class
          || r == OptionalDouble.class || java.util.Collection.class.isAssignableFrom(r)
          || Map.class.isAssignableFrom(r);
      boolean nullable = java.util.Arrays.stream(m.getAnnotatedReturnType().getAnnotations())
          .anyMatch(a -> a.annotationType().getSimpleName().equals("Nullable"));
      if (Modifier.isAbstract(m.getModifiers()) && m.getParameterCount() == 0 && !container && !nullable) {
        required.add(m.getName());
      }
    }
    required.sort(null);
    return required;
  }

  void everyRequiredFieldIsChecked() {
    List<String> required = requiredFields();
    assertThat(spec.valid().keySet()).as(type + ": the valid fields set every required field")
        .containsAll(required);
    if (required.isEmpty()) {
      return;
    }
    Outcome empty = build(Map.of());
    if (!(empty.thrown() instanceof InvalidValueException e)
        || !e.problems().stream().map(InvalidValueException.Problem::field).sorted().toList().equals(required)) {
      fail(type + ": the empty builder " + empty.describe() + "; expected an InvalidValueException naming the"
          + " required fields " + required);
    }
    qt().withExamples(EXAMPLES).forAll(spec.validFields(), Generate.pick(required)).checkAssert((fields, field) -> {
      Map<String, Object> without = new LinkedHashMap<>(fields);
      without.remove(field);
      Outcome o = build(without);
      if (!(o.thrown() instanceof InvalidValueException e) || !e.getMessage().contains("'" + field + "'")) {
        fail(type + ": building without required field '" + field + "' (" + without + ") " + o.describe()
            + "; expected an InvalidValueException naming the field");
      }
    });
  }

  /** The builder methods that take one value or element: each must reject null with our exception. */
  List<Method> nullableSetters() {
    List<Method> out = new ArrayList<>();
    for (Method m : newBuilder().getClass().getMethods()) {
      if (m.getDeclaringClass() == Object.class || Modifier.isStatic(m.getModifiers()) || m.getParameterCount() == 0) {
        continue;
      }
      boolean allReferences = true;
      for (Class<?> p : m.getParameterTypes()) {
        allReferences &= !p.isPrimitive() && !p.isArray() && !Iterable.class.isAssignableFrom(p)
            && !Map.class.isAssignableFrom(p) && !Optional.class.isAssignableFrom(p) && p != OptionalInt.class
            && p != OptionalLong.class && p != OptionalDouble.class && !Map.Entry.class.isAssignableFrom(p);
      }
      if (allReferences) {
        out.add(m);
      }
    }
    out.sort(java.util.Comparator.comparing(Method::toString));
    return out;
  }

  void nullsAreRejected() {
    List<Method> setters = nullableSetters();
    if (setters.isEmpty()) {
      return;
    }
    qt().withExamples(EXAMPLES).forAll(spec.validFields(), Generate.pick(setters)).checkAssert((fields, setter) -> {
      Object builder = newBuilder();
      Throwable thrown = null;
      try {
        apply(builder, fields);
        invoke(builder, setter, new Object[setter.getParameterCount()]);
        invoke(builder, builderMethod(builder, "build"));
      } catch (Throwable t) {
        thrown = t;
      }
      if (!(thrown instanceof InvalidValueException)) {
        fail(type + ": " + setter.getName() + "(null) after " + fields + " "
            + (thrown == null ? "built a value" : "threw " + thrown) + "; expected an InvalidValueException");
      }
    });
  }

  void everyRuleIsChecked() {
    if (spec.broken().isEmpty()) {
      return;
    }
    qt().withExamples(EXAMPLES).forAll(spec.validFields(), spec.brokenFields()).checkAssert((fields, broken) -> {
      Map<String, Object> changed = new LinkedHashMap<>(fields);
      broken.getValue().forEach((field, value) -> {
        if (value == ValueSpec.REMOVE) {
          changed.remove(field);
        } else {
          changed.put(field, value);
        }
      });
      Outcome o = build(changed);
      if (!(o.thrown() instanceof CiPolicyException)) {
        fail(type + ": breaking the rule '" + broken.getKey() + "' with " + broken.getValue() + " (fields " + changed
            + ") " + o.describe() + "; expected a CiPolicyException");
      }
    });
  }

  /** What building with some fields did. */
  record Outcome(Object value, Throwable thrown) {
    String describe() {
      return thrown == null ? "built " + value : "threw " + thrown;
    }
  }

  Outcome build(Map<String, Object> fields) {
    try {
      Object builder = newBuilder();
      apply(builder, fields);
      return new Outcome(invoke(builder, builderMethod(builder, "build")), null);
    } catch (Throwable t) {
      return new Outcome(null, t);
    }
  }

  private Object newBuilder() {
    try {
      return invoke(null, spec.type().getMethod("builder"));
    } catch (Throwable e) {
      throw new AssertionError(type + ": no usable public static builder()", e);
    }
  }

  private void apply(Object builder, Map<String, Object> fields) throws Throwable {
    for (Map.Entry<String, Object> f : fields.entrySet()) {
      invoke(builder, setter(builder, f.getKey(), f.getValue()), f.getValue());
    }
  }

  private Method setter(Object builder, String field, Object value) {
    for (Method m : builder.getClass().getMethods()) {
      if (m.getName().equals(field) && m.getParameterCount() == 1 && accepts(m.getParameterTypes()[0], value)) {
        return m;
      }
    }
    throw new AssertionError(type + ": the builder has no method " + field + "(" + value.getClass().getSimpleName()
        + ")");
  }

  private static boolean accepts(Class<?> parameter, Object value) {
    if (parameter.isPrimitive()) {
      return switch (parameter.getName()) {
        case "int" -> value instanceof Integer;
        case "long" -> value instanceof Long || value instanceof Integer;
        case "double" -> value instanceof Double;
        case "boolean" -> value instanceof Boolean;
        default -> false;
      };
    }
    return parameter.isInstance(value);
  }

  private static Method builderMethod(Object builder, String name) throws NoSuchMethodException {
    return builder.getClass().getMethod(name);
  }

  /** Calls a public builder method; the generated builder class itself is not public, so reflection asks. */
  private static Object invoke(Object target, Method m, Object... args) throws Throwable {
    m.setAccessible(true);
    Object[] converted = args.clone();
    Class<?>[] types = m.getParameterTypes();
    for (int i = 0; i < converted.length; i++) {
      if (types[i] == long.class && converted[i] instanceof Integer n) {
        converted[i] = n.longValue();
      }
    }
    try {
      return m.invoke(target, converted);
    } catch (InvocationTargetException e) {
      throw e.getCause();
    }
  }
}
