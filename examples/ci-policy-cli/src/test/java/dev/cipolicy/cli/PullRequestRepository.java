package dev.cipolicy.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;

/**
 * A real git repository shaped as GitHub serves a pull request: a base commit, a documentation-only PR commit
 * on {@code feature}, a later code change on {@code main}, and {@code pull-1-merge} (what {@code
 * refs/pull/N/merge} is: the base tip as first parent, the PR head as second). A depth-2 clone of the merge
 * commit therefore diffs {@code HEAD^1 HEAD} to exactly the PR's change.
 */
final class PullRequestRepository {
  private PullRequestRepository() {}

  /**
   * Initialises {@code dir} with the given repository files copied in.
   *
   * @param dir an empty directory
   * @param copied paths relative to this repository's root
   */
  static void init(Path dir, Collection<String> copied) throws Exception {
    git(dir, "init", "-q", "-b", "main");
    for (String f : copied) {
      Path to = dir.resolve(f);
      Files.createDirectories(to.getParent());
      Files.copy(CliTestSupport.REPO.resolve(f), to);
    }
  }

  /** Commits the base, the PR, the base branch moving on, and the PR's merge commit; leaves {@code main} out. */
  static void commitHistory(Path dir) throws Exception {
    write(dir, "docs/guide.md", "# Guide\n");
    write(dir, "miles/core.py", "x = 1\n");
    git(dir, "add", "-A");
    git(dir, "commit", "-q", "-m", "base");
    git(dir, "checkout", "-q", "-b", "feature");
    write(dir, "docs/guide.md", "# Guide\n\nMore words.\n");
    write(dir, "docs/new page.md", "# New\n");
    git(dir, "add", "-A");
    git(dir, "commit", "-q", "-m", "the PR: documentation only");
    // the base branch moves on after the PR was opened: a code change the PR's diff must not contain
    git(dir, "checkout", "-q", "main");
    write(dir, "miles/core.py", "x = 2\n");
    git(dir, "commit", "-q", "-am", "main moves on");
    git(dir, "checkout", "-q", "-b", "pull-1-merge");
    git(dir, "merge", "-q", "--no-ff", "-m", "Merge feature into main", "feature");
    git(dir, "checkout", "-q", "main");
  }

  static void write(Path repo, String file, String text) throws IOException {
    Path p = repo.resolve(file);
    Files.createDirectories(p.getParent());
    Files.writeString(p, text);
  }

  /** Runs git in {@code dir} without the machine's or user's configuration; fails the test on a non-zero exit. */
  static String git(Path dir, String... args) throws Exception {
    List<String> command = new ArrayList<>(List.of("git"));
    command.addAll(Arrays.asList(args));
    return WorkflowHarness.git(dir, command);
  }
}
