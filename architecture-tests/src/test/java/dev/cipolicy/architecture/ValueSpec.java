package dev.cipolicy.architecture;

import static org.quicktheories.generators.SourceDSL.integers;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.quicktheories.core.Gen;
import org.quicktheories.generators.Generate;

/**
 * What a property test needs to know about one value type: how to generate fields that make a valid
 * value, and how to break each of its rules. A field is set through the builder method of the same name;
 * {@link #REMOVE} as a broken value leaves the field unset.
 *
 * @param type the value type
 * @param valid generators of the fields of a valid value, in the order they are set
 * @param broken generators of field overrides, each breaking one rule of the value
 * @param noRulesBecause why the type has no rule beyond its required fields, or null when it has rules
 */
record ValueSpec(Class<?> type, Map<String, Gen<?>> valid, List<Broken> broken, String noRulesBecause) {

  /** Leaves a field unset when used as a broken value. */
  static final Object REMOVE = new Object() {
    @Override
    public String toString() {
      return "(unset)";
    }
  };

  /**
   * One broken rule.
   *
   * @param rule what the overrides break, for messages
   * @param overrides generated field overrides
   */
  record Broken(String rule, Gen<Map<String, Object>> overrides) {}

  static Builder of(Class<?> type) {
    return new Builder(type);
  }

  /** Generates whole field maps of a valid value. */
  Gen<Map<String, Object>> validFields() {
    Gen<Map<String, Object>> fields = Generate.constant(Map.of());
    for (Map.Entry<String, Gen<?>> e : valid.entrySet()) {
      String name = e.getKey();
      Gen<?> gen = e.getValue();
      fields = fields.zip(gen, (m, v) -> {
        Map<String, Object> next = new LinkedHashMap<>(m);
        next.put(name, v);
        return Collections.unmodifiableMap(next);
      });
    }
    return fields;
  }

  /** Generates one of the broken rules with its overrides. */
  Gen<Map.Entry<String, Map<String, Object>>> brokenFields() {
    List<Gen<Map.Entry<String, Map<String, Object>>>> gens = new ArrayList<>();
    for (Broken b : broken) {
      gens.add(b.overrides().map(o -> Map.entry(b.rule(), o)));
    }
    return integers().between(0, gens.size() - 1).flatMap(gens::get);
  }

  /** Collects a spec. */
  static final class Builder {
    private final Class<?> type;
    private final Map<String, Gen<?>> valid = new LinkedHashMap<>();
    private final List<Broken> broken = new ArrayList<>();

    private Builder(Class<?> type) {
      this.type = type;
    }

    /** A field of every valid value. */
    Builder field(String name, Gen<?> values) {
      valid.put(name, values);
      return this;
    }

    /** A field of every valid value, always the same. */
    Builder fixed(String name, Object value) {
      return field(name, Generate.constant(value));
    }

    /** A rule broken by giving one field any of the generated values. */
    Builder broken(String rule, String field, Gen<?> values) {
      broken.add(new Broken(rule, values.map(v -> Map.of(field, v))));
      return this;
    }

    /** A rule broken by giving one field a value. */
    Builder broken(String rule, String field, Object value) {
      return broken(rule, field, Generate.constant(value));
    }

    /** A rule broken by giving several fields these values together. */
    Builder brokenTogether(String rule, Map<String, Object> overrides) {
      broken.add(new Broken(rule, Generate.constant(overrides)));
      return this;
    }

    /** The spec of a type with rules. */
    ValueSpec rules() {
      if (broken.isEmpty()) {
        throw new IllegalStateException(type.getSimpleName() + ": a spec with rules needs a broken rule");
      }
      return new ValueSpec(type, valid, broken, null);
    }

    /** The spec of a type whose only rules are its required fields and no nulls. */
    ValueSpec noRules(String because) {
      return new ValueSpec(type, valid, broken, because);
    }
  }
}
