package dev.cipolicy.launch;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks a public method of a launcher class that is not an entrypoint (an accessor, a helper the
 * launcher's own {@code main} uses), so that entrypoint discovery skips it. Every other public instance
 * method is an entrypoint.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.METHOD)
public @interface NotAnEntrypoint {
  /**
   * Why the method is not an entrypoint.
   *
   * @return the reason, for readers
   */
  String value() default "";
}
