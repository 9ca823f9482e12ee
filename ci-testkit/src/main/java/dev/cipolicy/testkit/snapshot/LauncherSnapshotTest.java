package dev.cipolicy.testkit.snapshot;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.TestTemplate;

/**
 * Marks the one method of a test class that the registered {@link LauncherSnapshotExtension} turns into
 * one test per snapshot case, plus one that checks for orphan golden files. The method takes no
 * parameters; its body runs after a case passed, and may stay empty.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.METHOD)
@TestTemplate
public @interface LauncherSnapshotTest {}
