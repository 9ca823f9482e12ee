package dev.cipolicy.api.value;

import dev.cipolicy.api.InvalidValueException;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * The {@link InvalidValueException} a generated builder throws: {@code build()} found required fields
 * that were never set, or a builder method was given a null (a field, a list element, a map key or
 * value). The message names the value type and the field, e.g. {@code Policy: required field 'name' is
 * not set} or {@code Suite.runnerLabels: must not contain null}. Hosts catch
 * {@link InvalidValueException}; only the generated builders create this exception.
 */
public final class MissingFieldException extends InvalidValueException {
  private static final long serialVersionUID = 1L;

  /** What the generated null checks pass: a field name, alone or with the part of a collection. */
  private static final Pattern NULL_FIELD = Pattern.compile("[A-Za-z_$][A-Za-z0-9_$]*( element| key| value)?");

  /**
   * Reports required fields that were not set; the generated {@code build()} calls it.
   *
   * @param unset the names of the fields, at least one; {@link #problems()} has one problem per field
   */
  public MissingFieldException(String... unset) {
    this(valueTypeOfCaller(), unset);
  }

  /**
   * Reports a null given to a builder method; the generated null checks call it.
   *
   * @param what the field, optionally followed by {@code element}, {@code key} or {@code value}, e.g.
   *     {@code runnerLabels element}; any other text is a message about the value as a whole
   */
  public MissingFieldException(String what) {
    this(valueTypeOfCaller(), what);
  }

  private MissingFieldException(String valueType, String[] unset) {
    super(valueType, unset.length == 0 ? List.of(new Problem("", unsetProblem(unset)))
        : Arrays.stream(unset).map(f -> new Problem(f, unsetProblem(new String[] {f}))).toList(),
        valueType + ": " + unsetProblem(unset));
  }

  private MissingFieldException(String valueType, String what) {
    this(valueType, what.equals("instance") ? new String[] {"", "the value to copy must not be null"}
        : NULL_FIELD.matcher(what).matches() ? what.split(" ", 2) : new String[] {"", what}, true);
  }

  @SuppressWarnings("UnusedVariable") // the flag only tells this constructor from the one for unset fields
  private MissingFieldException(String valueType, String[] fieldAndPart, boolean isNull) {
    super(valueType, List.of(new Problem(fieldAndPart[0], nullProblem(fieldAndPart))),
        (fieldAndPart[0].isEmpty() ? valueType : valueType + "." + fieldAndPart[0]) + ": " + nullProblem(fieldAndPart));
  }

  private static String unsetProblem(String[] unset) {
    String names = Arrays.stream(unset).map(n -> "'" + n + "'").collect(Collectors.joining(", "));
    return unset.length == 1 ? "required field " + names + " is not set" : "required fields " + names + " are not set";
  }

  private static String nullProblem(String[] fieldAndPart) {
    if (fieldAndPart.length == 1) {
      return "must not be null";
    }
    return switch (fieldAndPart[1]) {
      case "element" -> "must not contain null";
      case "key" -> "must not contain a null key";
      case "value" -> "must not contain a null value";
      default -> fieldAndPart[1];
    };
  }

  /**
   * The abstract value type whose generated class called the constructor: the superclass of the first
   * {@code Immutable*} class on the stack.
   */
  private static String valueTypeOfCaller() {
    return StackWalker.getInstance(StackWalker.Option.RETAIN_CLASS_REFERENCE)
        .walk(frames -> frames.map(StackWalker.StackFrame::getDeclaringClass)
            .map(MissingFieldException::valueTypeGeneratedAs)
            .flatMap(Optional::stream)
            .findFirst())
        .orElse("value");
  }

  private static Optional<String> valueTypeGeneratedAs(Class<?> frameClass) {
    Class<?> top = frameClass;
    while (top.getEnclosingClass() != null) {
      top = top.getEnclosingClass();
    }
    if (!top.getSimpleName().startsWith("Immutable")) {
      return Optional.empty();
    }
    Class<?> abstractType = top.getSuperclass();
    if (abstractType == null || abstractType == Object.class) {
      Class<?>[] interfaces = top.getInterfaces();
      return interfaces.length == 0 ? Optional.empty() : Optional.of(interfaces[0].getSimpleName());
    }
    return Optional.of(abstractType.getSimpleName());
  }
}
