/**
 * Patterns a policy supplies, matched in time linear in the pattern and the name: {@link
 * dev.cipolicy.api.pattern.NamePattern} and its {@link dev.cipolicy.api.pattern.NameMatch}. The one package
 * that uses the RE2/J engine; no engine type appears in a signature.
 */
@NullMarked
package dev.cipolicy.api.pattern;

import org.jspecify.annotations.NullMarked;
