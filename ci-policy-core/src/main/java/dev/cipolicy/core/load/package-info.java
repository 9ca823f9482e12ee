/** Loading policy documents, registrations, gate declarations and GitHub Actions workflow files from YAML or JSON text, with file, line and column in every error; the only package that touches Jackson. It parses text handed in by the host and reads no files. */
@NullMarked
package dev.cipolicy.core.load;

import org.jspecify.annotations.NullMarked;
