package dev.cipolicy.api.value;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.immutables.value.Value;

/**
 * The single Immutables style of ci-policy's value types; the project's own, not for hosts. A value type
 * carrying it is an abstract class with a nested {@code public static final class Builder extends
 * ImmutableX.Builder} and a {@code public static Builder builder()}, so that hosts write
 * {@code X.builder().name("a").build()} and never see a generated type:
 *
 * <ul>
 *   <li>the generated {@code Immutable*} class is package-private, and its builder's methods return the
 *       nested {@code X.Builder} and {@code X} ({@code overshadowImplementation});
 *   <li>{@code build()} rejects a required field that is not set and a null anywhere (a field, a list
 *       element, a map key or value) with {@link MissingFieldException}, then runs the type's
 *       {@code @Value.Check}, which rejects a broken rule with an
 *       {@link dev.cipolicy.api.InvalidValueException} (or a more specific subclass of
 *       {@link dev.cipolicy.api.CiPolicyException}) naming the type and the field;
 *   <li>builders are not strict: {@code from(value)} copies a value so that one field can be changed, and
 *       setting a field again replaces it;
 *   <li>collections are the JDK's.
 * </ul>
 */
@Target({ElementType.PACKAGE, ElementType.TYPE})
// Source retention: the values' class files name no Immutables type that a host without Immutables cannot
// resolve (a host's javac and Javadoc would warn about it).
@Retention(RetentionPolicy.SOURCE)
@Value.Style(
    jdkOnly = true,
    typeImmutable = "Immutable*",
    visibility = Value.Style.ImplementationVisibility.PACKAGE,
    builderVisibility = Value.Style.BuilderVisibility.PUBLIC,
    overshadowImplementation = true,
    defaults = @Value.Immutable(copy = true),
    validationMethod = Value.Style.ValidationMethod.SIMPLE,
    throwForInvalidImmutableState = MissingFieldException.class,
    throwForNullPointer = MissingFieldException.class,
    // Only the JDK's source-retained @Generated: no org.immutables.value.Generated in class files, which a
    // host compiling against our jars (without Immutables) would warn about.
    allowedClasspathAnnotations = {javax.annotation.processing.Generated.class})
public @interface ValueStyle {}
