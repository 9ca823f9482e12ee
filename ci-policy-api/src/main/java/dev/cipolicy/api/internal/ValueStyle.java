package dev.cipolicy.api.internal;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.immutables.value.Value;

/**
 * The single Immutables style of the project: JDK collections only, strict builders, generated
 * {@code Immutable*} classes that are public so that the abstract value type can expose its builder.
 */
@Target({ElementType.PACKAGE, ElementType.TYPE})
// Source retention: the values' class files name no Immutables type a host (without Immutables) cannot resolve.
@Retention(RetentionPolicy.SOURCE)
@Value.Style(
    jdkOnly = true,
    strictBuilder = true,
    typeImmutable = "Immutable*",
    visibility = Value.Style.ImplementationVisibility.PUBLIC,
    defaults = @Value.Immutable(copy = true),
    validationMethod = Value.Style.ValidationMethod.NONE,
    // Only the JDK's source-retained @Generated: no org.immutables.value.Generated in class files, which a
    // host compiling against our jars (without Immutables) would warn about.
    allowedClasspathAnnotations = {javax.annotation.processing.Generated.class})
public @interface ValueStyle {}
