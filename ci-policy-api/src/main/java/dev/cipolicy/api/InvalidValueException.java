package dev.cipolicy.api;

import java.io.Serializable;
import java.util.List;
import java.util.stream.Collectors;

/**
 * A value cannot be built: a required field is not set, a field is null, or the fields break a rule of
 * the value (an empty name, a count out of range, a regular expression that does not compile). Every
 * value type of ci-policy checks its fields when its builder's {@code build()} runs, so a value that
 * exists is valid. The single-line message names the value type and the field, e.g.
 * {@code Policy: required field 'name' is not set} or {@code TriggerInput.eventName: must not be empty};
 * {@link #problems()} lists every broken rule the check found.
 *
 * <p>Some values report a broken rule with a more specific exception of their domain
 * ({@link InvalidGateException}, {@link InvalidInputException}, the queue's input exception); every one
 * of them is a {@link CiPolicyException}.
 */
public class InvalidValueException extends CiPolicyException {
  private static final long serialVersionUID = 1L;

  /**
   * One broken rule of a value.
   *
   * @param field the field as its accessor spells it, with an index for a list element (e.g.
   *     {@code shards}, {@code nonRetriable[2]}); empty for a rule about the value as a whole
   * @param message what is wrong and what was expected, e.g. {@code must be at least 1, got 0}
   */
  public record Problem(String field, String message) implements Serializable {
    private static final long serialVersionUID = 1L;
  }

  private final String valueType;
  private final Problem[] problems; // an array: serializable, unlike the List type

  /**
   * Creates the exception for one broken rule.
   *
   * @param valueType the simple name of the value type, e.g. {@code Suite}
   * @param field the field, e.g. {@code shards}; empty for a rule about the value as a whole
   * @param message what is wrong and what was expected, e.g. {@code must be at least 1, got 0}
   */
  public InvalidValueException(String valueType, String field, String message) {
    this(valueType, List.of(new Problem(field, message)));
  }

  /**
   * Creates the exception for every broken rule a check found.
   *
   * @param valueType the simple name of the value type
   * @param problems the broken rules, at least one, in the order found
   */
  public InvalidValueException(String valueType, List<Problem> problems) {
    this(valueType, problems, render(valueType, problems));
  }

  /**
   * Creates the exception with its complete message.
   *
   * @param valueType the simple name of the value type
   * @param problems the broken rules, at least one
   * @param message the complete single-line message
   */
  protected InvalidValueException(String valueType, List<Problem> problems, String message) {
    super(message);
    if (problems.isEmpty()) {
      throw new IllegalArgumentException("an InvalidValueException needs at least one problem");
    }
    this.valueType = valueType;
    this.problems = List.copyOf(problems).toArray(new Problem[0]);
  }

  private static String render(String valueType, List<Problem> problems) {
    return problems.stream()
        .map(p -> (p.field().isEmpty() ? valueType : valueType + "." + p.field()) + ": " + p.message())
        .collect(Collectors.joining("; "));
  }

  /**
   * The value type that could not be built.
   *
   * @return its simple name, e.g. {@code Policy}
   */
  public String valueType() {
    return valueType;
  }

  /**
   * The field of the first broken rule.
   *
   * @return the field as its accessor spells it, or an empty string for a rule about the value as a whole
   */
  public String field() {
    return problems[0].field();
  }

  /**
   * Every broken rule the check found, in the order found.
   *
   * @return a non-empty list
   */
  public List<Problem> problems() {
    return List.of(problems);
  }
}
