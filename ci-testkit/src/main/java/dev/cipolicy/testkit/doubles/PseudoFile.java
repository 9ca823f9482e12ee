package dev.cipolicy.testkit.doubles;

import java.nio.file.Path;

/**
 * A file a launcher generated through {@link StableScratchpad}: its placeholder path and its content,
 * recorded instead of written.
 *
 * @param number 1-based, in the order the files were written
 * @param path the placeholder path the launcher got, e.g. {@code /frozen/pseudo_file_1.json}
 * @param content the text the launcher wrote
 */
public record PseudoFile(int number, Path path, String content) {}
