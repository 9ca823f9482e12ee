package dev.cipolicy.benchmarks;

import dev.cipolicy.core.paths.GlobSet;
import java.nio.file.FileSystem;
import java.nio.file.FileSystems;
import java.nio.file.Path;
import java.nio.file.PathMatcher;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;

/**
 * Cost of stage selection's path matching: the first of 1,000 path rules matching each
 * of N changed paths, with {@link GlobSet} (all rules compiled into one automaton) against a naive loop
 * over one pre-compiled JDK {@link PathMatcher} per rule.
 *
 * <p>Rules and paths are generated from fixed seeds, so every run measures the same input. The rules mix
 * {@code dir/**}, {@code **}{@code /*.ext} and {@code **}{@code /prefix*.ext}, exact files,
 * {@code dir/*}{@code /name?.py}, {@code {a,b}/x/**} and {@code dir/[ab]*.txt}; the paths are 1 to 6
 * segments deep, about one in seven matching some rule.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 3, time = 1)
@Fork(1)
public class StageSelectionBenchmark {
  private static final long RULE_SEED = 20261129L;
  private static final long PATH_SEED = 7L;
  private static final int RULES = 1_000;

  private static final List<String> TOPS = List.of("src", "lib", "docs", "tests", "scripts", "tools", "examples",
      "configs", "benchmarks", "packages", "services", "third_party", "ci", "deploy");
  private static final List<String> WORDS = List.of("core", "utils", "models", "api", "server", "client", "data",
      "io", "net", "ops", "kernels", "cuda", "rocm", "train", "infer", "eval", "common", "plugins", "proto",
      "schemas");
  private static final List<String> COMMON_EXTS = List.of("py", "py", "py", "java", "ts", "go", "rs", "md", "yaml",
      "json", "txt", "cc", "h", "sh", "toml");
  private static final List<String> RARE_EXTS = List.of("proto", "ipynb", "cu", "cuh", "bzl", "snap", "avsc",
      "thrift", "graphql", "tf", "hcl", "sql", "patch", "svg", "jinja", "pyi", "pxd", "pyx", "mdx", "cfg");

  /** The number of changed paths. */
  @Param({"1000", "10000", "100000"})
  public int paths;

  private List<String> globs = List.of();
  private GlobSet globSet = GlobSet.compile(List.of());
  private PathMatcher[] matchers = new PathMatcher[0];
  private String[] changed = new String[0];
  private Path[] changedPaths = new Path[0];

  /**
   * One generated rule.
   *
   * @param glob the rule as a {@link GlobSet} glob
   * @param pathMatcherGlob the same rule for the JDK's {@code glob:} syntax
   * @param example a path the rule matches
   */
  public record Rule(String glob, String pathMatcherGlob, String example) {}

  /** Generates the rules and paths, compiles both matchers and checks that they agree. */
  @Setup
  public void setUp() {
    List<Rule> rules = rules(RULES);
    globs = rules.stream().map(Rule::glob).toList();
    globSet = GlobSet.compile(globs);
    FileSystem fs = FileSystems.getDefault();
    matchers = rules.stream().map(r -> fs.getPathMatcher("glob:" + r.pathMatcherGlob())).toArray(PathMatcher[]::new);
    changed = changedPaths(paths, rules).toArray(String[]::new);
    // Path objects are built here, outside the measurement: the naive loop is not charged for them.
    changedPaths = new Path[changed.length];
    for (int i = 0; i < changed.length; i++) {
      changedPaths[i] = Path.of(changed[i]);
    }
    int checked = Math.min(changed.length, 2_000);
    for (int i = 0; i < checked; i++) {
      int expected = globSet.firstMatch(changed[i]).orElse(-1);
      int naive = naiveFirstMatch(changedPaths[i]);
      if (expected != naive) {
        throw new IllegalStateException("the matchers disagree on " + changed[i] + ": GlobSet " + expected
            + " (" + (expected < 0 ? "-" : globs.get(expected)) + "), PathMatcher " + naive);
      }
    }
  }

  /**
   * Finds the first matching rule of every path with the compiled {@link GlobSet}.
   *
   * @param bh consumes each result
   */
  @Benchmark
  public void globSet(Blackhole bh) {
    GlobSet set = globSet;
    for (String path : changed) {
      bh.consume(set.firstMatch(path));
    }
  }

  /**
   * Finds the first matching rule of every path by trying each rule's pre-compiled {@link PathMatcher} in
   * order.
   *
   * @param bh consumes each result
   */
  @Benchmark
  public void naivePathMatcherLoop(Blackhole bh) {
    for (Path path : changedPaths) {
      bh.consume(naiveFirstMatch(path));
    }
  }

  /**
   * Compiles the rules and matches every path on the fresh (cold) automaton: the whole cost for a process
   * that selects stages once.
   *
   * @param bh consumes each result
   */
  @Benchmark
  public void globSetCompileAndMatchCold(Blackhole bh) {
    GlobSet set = GlobSet.compile(globs);
    for (String path : changed) {
      bh.consume(set.firstMatch(path));
    }
  }

  private int naiveFirstMatch(Path path) {
    PathMatcher[] m = matchers;
    for (int r = 0; r < m.length; r++) {
      if (m[r].matches(path)) {
        return r;
      }
    }
    return -1;
  }

  /**
   * Generates the rules from a fixed seed.
   *
   * @param count how many rules
   * @return the rules
   */
  public static List<Rule> rules(int count) {
    Random random = new Random(RULE_SEED);
    List<Rule> rules = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      String dir = pick(random, TOPS) + "/" + word(random, 200);
      Rule rule = switch (random.nextInt(7)) {
        case 0 -> new Rule(dir + "/**", dir + "/**", dir + "/" + file(random));
        case 1 -> {
          String ext = pick(random, RARE_EXTS);
          yield leadingDoubleStar("*." + ext, "x/y/" + word(random, 400) + "." + ext);
        }
        case 2 -> {
          String prefix = word(random, 200);
          String ext = pick(random, COMMON_EXTS);
          yield leadingDoubleStar(prefix + "_*." + ext, dir + "/" + prefix + "_x." + ext);
        }
        case 3 -> {
          String exact = dir + "/" + word(random, 200) + "/" + file(random);
          yield new Rule(exact, exact, exact);
        }
        case 4 -> {
          String name = word(random, 200);
          String glob = dir + "/*/" + name + "?.py";
          yield new Rule(glob, glob, dir + "/" + word(random, 400) + "/" + name + "7.py");
        }
        case 5 -> {
          String a = pick(random, TOPS);
          String b = pick(random, TOPS);
          String x = word(random, 200);
          String glob = "{" + a + "," + b + "}/" + x + "/**";
          yield new Rule(glob, glob, b + "/" + x + "/" + file(random));
        }
        default -> {
          String glob = dir + "/[ab]*.txt";
          yield new Rule(glob, glob, dir + "/b" + word(random, 400) + ".txt");
        }
      };
      rules.add(rule);
    }
    return rules;
  }

  /**
   * A rule {@code **}{@code /tail}. Under {@link PathMatcher}, {@code **} is "any characters" and the
   * {@code /} is literal, so {@code **}{@code /*.md} would miss {@code README.md}; the same meaning as
   * {@link GlobSet}'s gitignore-style "zero or more directories" is <code>{tail,**&#47;tail}</code>,
   * which is legal there because the generated tails hold no group.
   */
  private static Rule leadingDoubleStar(String tail, String example) {
    return new Rule("**/" + tail, "{" + tail + ",**/" + tail + "}", example);
  }

  /**
   * Generates changed paths from a fixed seed: one in ten is an example of a random rule, the rest are
   * random paths 1 to 6 segments deep (a few of which match some rule by chance).
   *
   * @param count how many paths
   * @param rules the rules to draw examples from
   * @return the paths
   */
  public static List<String> changedPaths(int count, List<Rule> rules) {
    Random random = new Random(PATH_SEED);
    List<String> out = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      if (random.nextInt(10) == 0) {
        out.add(rules.get(random.nextInt(rules.size())).example());
        continue;
      }
      int depth = 1 + random.nextInt(6);
      StringBuilder path = new StringBuilder();
      if (depth > 1) {
        path.append(pick(random, TOPS)).append('/');
        for (int d = 2; d < depth; d++) {
          path.append(word(random, 400)).append('/');
        }
      }
      out.add(path.append(file(random)).toString());
    }
    return out;
  }

  private static String file(Random random) {
    String ext = random.nextInt(25) == 0 ? pick(random, RARE_EXTS) : pick(random, COMMON_EXTS);
    return word(random, 400) + "." + ext;
  }

  private static String word(Random random, int variants) {
    return pick(random, WORDS) + random.nextInt(variants);
  }

  private static String pick(Random random, List<String> from) {
    return from.get(random.nextInt(from.size()));
  }

  /**
   * Prints the share of paths that match some rule, per path count; a quick check of the generated input.
   *
   * @param args ignored
   */
  public static void main(String[] args) {
    List<Rule> rules = rules(RULES);
    GlobSet set = GlobSet.compile(rules.stream().map(Rule::glob).toList());
    for (int n : new int[] {1_000, 10_000, 100_000}) {
      long matching = changedPaths(n, rules).stream().map(set::firstMatch).filter(OptionalInt::isPresent).count();
      System.out.printf("%d paths: %d match (%.1f%%)%n", n, matching, 100.0 * matching / n);
    }
  }
}
