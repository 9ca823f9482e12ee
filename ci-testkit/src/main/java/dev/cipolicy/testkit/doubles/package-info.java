/**
 * Test doubles of the launcher ports that make a launch reproducible: the
 * {@link dev.cipolicy.testkit.doubles.RecordingCommandExecutor} records every command and answers from a
 * {@link dev.cipolicy.testkit.doubles.CommandScript}; the
 * {@link dev.cipolicy.testkit.doubles.FrozenEnvironment} holds fixed values and keeps host variables out;
 * the {@link dev.cipolicy.testkit.doubles.FrozenFileSystemView} shows only the sandbox and the repository;
 * the {@link dev.cipolicy.testkit.doubles.StableScratchpad} hands out a fixed run id and placeholder paths
 * and keeps the generated files' contents as pseudo files. A
 * {@link dev.cipolicy.testkit.doubles.Recording} is what one launch left behind.
 */
@NullMarked
package dev.cipolicy.testkit.doubles;

import org.jspecify.annotations.NullMarked;
