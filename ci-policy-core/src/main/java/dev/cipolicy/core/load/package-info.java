/**
 * Loading policy documents, registrations and gate declarations from YAML or JSON text, with file, line and
 * column in every error; the only package that touches Jackson. It parses text handed in by the host and reads
 * no files. Its document reader ({@link dev.cipolicy.core.load.TreeParser}, {@link dev.cipolicy.core.load.Node},
 * {@link dev.cipolicy.core.load.DocReader}) is public so that the workflow loader of {@code ci-workflow} reads
 * workflow files the same way.
 */
@NullMarked
package dev.cipolicy.core.load;

import org.jspecify.annotations.NullMarked;
