/**
 * The host as a named module: it compiles on the module path against the library modules' descriptors, so a
 * package it uses that a library does not export fails the build.
 */
module com.example.host {
  requires dev.cipolicy.core;
  requires dev.cipolicy.queue;
}
