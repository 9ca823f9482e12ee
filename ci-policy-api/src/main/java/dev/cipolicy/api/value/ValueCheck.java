package dev.cipolicy.api.value;

import dev.cipolicy.api.InvalidValueException;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

/**
 * The rules of one value, checked together in its {@code @Value.Check} method: each broken rule is
 * recorded with its field, and {@link #done()} throws one {@link InvalidValueException} listing them
 * all. The project's own helper; hosts never need it.
 *
 * <pre>{@code
 * ValueCheck.of("Suite").nonEmpty("name", name()).atLeast("shards", shards(), 1).done();
 * }</pre>
 */
public final class ValueCheck {
  private final String valueType;
  private final List<InvalidValueException.Problem> problems = new ArrayList<>();

  private ValueCheck(String valueType) {
    this.valueType = valueType;
  }

  /**
   * Starts checking a value.
   *
   * @param valueType the simple name of the value type, used in the message
   * @return an empty check
   */
  public static ValueCheck of(String valueType) {
    return new ValueCheck(valueType);
  }

  /**
   * Records a broken rule when {@code holds} is false.
   *
   * @param holds whether the rule holds
   * @param field the field the rule is about, empty for the value as a whole
   * @param message what is wrong and what was expected; built only when the rule is broken
   * @return this check
   */
  public ValueCheck require(boolean holds, String field, Supplier<String> message) {
    if (!holds) {
      problems.add(new InvalidValueException.Problem(field, message.get()));
    }
    return this;
  }

  /**
   * Records a broken rule when the text is empty.
   *
   * @param field the field
   * @param value its value
   * @return this check
   */
  public ValueCheck nonEmpty(String field, String value) {
    return require(!value.isEmpty(), field, () -> "must not be empty");
  }

  /**
   * Records a broken rule when the number is below the minimum.
   *
   * @param field the field
   * @param value its value
   * @param min the least value allowed
   * @return this check
   */
  public ValueCheck atLeast(String field, long value, long min) {
    return require(value >= min, field, () -> "must be at least " + min + ", got " + value);
  }

  /**
   * Records a broken rule when the number is above the maximum.
   *
   * @param field the field
   * @param value its value
   * @param max the greatest value allowed
   * @return this check
   */
  public ValueCheck atMost(String field, long value, long max) {
    return require(value <= max, field, () -> "must be at most " + max + ", got " + value);
  }

  /**
   * Throws when a rule was broken.
   *
   * @throws InvalidValueException listing every broken rule, in the order recorded
   */
  public void done() {
    if (!problems.isEmpty()) {
      throw new InvalidValueException(valueType, problems);
    }
  }
}
