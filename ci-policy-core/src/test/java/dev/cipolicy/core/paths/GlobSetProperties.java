package dev.cipolicy.core.paths;

import static org.assertj.core.api.Assertions.assertThat;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.lists;

import java.nio.file.FileSystems;
import java.nio.file.Path;
import java.nio.file.PathMatcher;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.OptionalInt;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.quicktheories.core.Gen;
import org.quicktheories.generators.Generate;

/**
 * {@link GlobSet} agrees with a per-glob regular expression reference and, without {@code **}, with the
 * JDK's glob {@link PathMatcher}; compiling is deterministic and matching is thread-safe.
 */
class GlobSetProperties {

  /** Pieces that may start a glob: never a leading '/', in any alternative. */
  private static final List<String> HEADS = List.of("a", "b", ".", "_", "1", ".md", "*", "?", "**", "**/", "***",
      "[ab]", "[!a]", "[a-b]", "[._1]", "{a,b}", "{a*,.md}", "{**/,b}", "{a/,b}", "\\a", "\\*", "\\{", "[\\]a]", "}",
      ",");
  /** Pieces for the rest of a glob. */
  private static final List<String> PIECES = concat(HEADS, List.of("/", "/", "/**", "/**/", "{,b}", "{/,_}", "\\/",
      "md", "2", "{b/**,*.md}"));
  private static final List<String> PATH_TOKENS = List.of("a", "b", ".", "/", "_", "1", "2", ".md", "md");
  private static final List<String> RAW_CHARS = List.of("a", "b", "/", "*", "?", "[", "]", "{", "}", ",", "!", "-",
      "\\", ".");

  private static List<String> concat(List<String> a, List<String> b) {
    List<String> out = new ArrayList<>(a);
    out.addAll(b);
    return List.copyOf(out);
  }

  private static Gen<String> joined(Gen<String> first, Gen<String> rest, int max) {
    return first.zip(lists().of(rest).ofSizeBetween(0, max), (h, t) -> h + String.join("", t));
  }

  private static Gen<String> glob() {
    return joined(Generate.pick(HEADS), Generate.pick(PIECES), 5);
  }

  private static Gen<List<String>> globs() {
    return lists().of(glob()).ofSizeBetween(1, 5);
  }

  private static Gen<String> path() {
    return lists().of(Generate.pick(PATH_TOKENS)).ofSizeBetween(0, 8).map(t -> String.join("", t));
  }

  private static Gen<List<String>> paths() {
    return lists().of(path()).ofSizeBetween(1, 25);
  }

  private static void assertAgreesWithReference(GlobSet set, List<String> globs, List<String> paths) {
    for (String p : paths) {
      OptionalInt expected = ReferenceGlobs.firstMatch(globs, p);
      assertThat(set.firstMatch(p)).as("first match of %s in %s", p, globs).isEqualTo(expected);
      assertThat(set.matches(p)).as("%s matches %s", globs, p).isEqualTo(expected.isPresent());
    }
  }

  @Test
  void agreesWithTheRegexReferenceOnTheLowestMatchingIndex() {
    qt().withExamples(1500).forAll(globs(), paths()).checkAssert((globs, paths) ->
        assertAgreesWithReference(GlobSet.compile(globs), globs, paths));
  }

  @Test
  void agreesWithTheRegexReferenceWhenTheStateCacheIsFull() {
    qt().withExamples(300).forAll(globs(), paths(), integers().between(0, 2_000)).checkAssert((globs, paths, bound) ->
        assertAgreesWithReference(GlobSet.compile(globs, bound), globs, paths));
  }

  @Test
  void arbitraryTextIsRejectedWithInvalidGlobExceptionOrAgreesWithTheReference() {
    Gen<String> raw = joined(Generate.pick(RAW_CHARS), Generate.pick(RAW_CHARS), 9);
    qt().withExamples(3000).forAll(raw, paths()).checkAssert((glob, paths) -> {
      GlobSet set;
      try {
        set = GlobSet.compile(List.of(glob));
      } catch (InvalidGlobException e) {
        assertThat(e.glob()).isEqualTo(glob);
        assertThat(e.index()).isZero();
        assertThat(e.position()).isBetween(0, glob.length());
        assertThat(e.getMessage()).contains("\"" + glob + "\"").contains("; expected ");
        return;
      }
      assertAgreesWithReference(set, List.of(glob), paths);
    });
  }

  @Test
  void agreesWithTheJdkPathMatcherOnGlobsWithoutDoubleStar() {
    List<String> heads = List.of("a", "b", ".", "_", "1", ".md", "*", "?", "[ab]", "[!a]", "[a-b]", "[._1]", "{a,b}",
        "{a*,.md}", "\\a", "\\*", "}", ",");
    List<String> pieces = concat(heads, List.of("/", "/", "{,b}", "{_,b/}"));
    Gen<String> glob = joined(Generate.pick(heads), Generate.pick(pieces), 5)
        .assuming(g -> !g.contains("**"));
    Gen<String> segment = lists().of(Generate.pick(List.of("a", "b", ".", "_", "1", ".md", "md"))).ofSizeBetween(1, 3)
        .map(t -> String.join("", t));
    Gen<String> cleanPath = lists().of(segment).ofSizeBetween(1, 4).map(s -> String.join("/", s));
    qt().withExamples(1500).forAll(glob, lists().of(cleanPath).ofSizeBetween(1, 25)).checkAssert((g, paths) -> {
      PathMatcher jdk = FileSystems.getDefault().getPathMatcher("glob:" + g);
      GlobSet set = GlobSet.compile(List.of(g));
      for (String p : paths) {
        assertThat(set.matches(p)).as("%s matches %s", g, p).isEqualTo(jdk.matches(Path.of(p)));
      }
    });
  }

  @Test
  void compilingIsDeterministic() {
    qt().withExamples(300).forAll(globs(), paths()).checkAssert((globs, paths) -> {
      GlobSet first = GlobSet.compile(globs);
      GlobSet second = GlobSet.compile(globs);
      assertThat(second.globs()).isEqualTo(first.globs()).isEqualTo(globs);
      // Warm one cache in the opposite order, so the two caches hold their states in a different order.
      List<String> reversed = new ArrayList<>(paths);
      Collections.reverse(reversed);
      reversed.forEach(second::firstMatch);
      for (String p : paths) {
        assertThat(second.firstMatch(p)).isEqualTo(first.firstMatch(p));
      }
    });
  }

  @Test
  void concurrentMatchingOnAColdSharedSetGivesTheSingleThreadedAnswers() throws Exception {
    Random random = new Random(42);
    List<String> globs = new ArrayList<>();
    for (int i = 0; i < 300; i++) {
      StringBuilder g = new StringBuilder(HEADS.get(random.nextInt(HEADS.size())));
      for (int n = random.nextInt(6); n > 0; n--) {
        g.append(PIECES.get(random.nextInt(PIECES.size())));
      }
      globs.add(g.toString());
    }
    List<String> paths = new ArrayList<>();
    for (int i = 0; i < 3000; i++) {
      StringBuilder p = new StringBuilder();
      for (int n = random.nextInt(12); n > 0; n--) {
        p.append(PATH_TOKENS.get(random.nextInt(PATH_TOKENS.size())));
      }
      paths.add(p.toString());
    }
    GlobSet reference = GlobSet.compile(globs);
    List<OptionalInt> expected = paths.stream().map(reference::firstMatch).collect(Collectors.toList());
    for (int i = 0; i < paths.size(); i += 100) {
      assertThat(expected.get(i)).isEqualTo(ReferenceGlobs.firstMatch(globs, paths.get(i)));
    }

    ExecutorService pool = Executors.newFixedThreadPool(8);
    try {
      for (long bound : List.of(GlobSet.DEFAULT_CACHE_BYTES, 20_000L)) {
        GlobSet shared = GlobSet.compile(globs, bound);
        List<Future<List<OptionalInt>>> results = new ArrayList<>();
        for (int t = 0; t < 16; t++) {
          long seed = t;
          results.add(pool.submit(() -> {
            List<Integer> order = new ArrayList<>();
            for (int i = 0; i < paths.size(); i++) {
              order.add(i);
            }
            Collections.shuffle(order, new Random(seed));
            OptionalInt[] answers = new OptionalInt[paths.size()];
            for (int i : order) {
              answers[i] = shared.firstMatch(paths.get(i));
            }
            return List.of(answers);
          }));
        }
        for (Future<List<OptionalInt>> result : results) {
          assertThat(result.get(60, TimeUnit.SECONDS)).as("bound %s", bound).isEqualTo(expected);
        }
        if (bound < GlobSet.DEFAULT_CACHE_BYTES) {
          assertThat(shared.cachedStates()).as("the small cache filled up").isLessThan(reference.cachedStates());
        }
      }
    } finally {
      pool.shutdownNow();
    }
  }
}
