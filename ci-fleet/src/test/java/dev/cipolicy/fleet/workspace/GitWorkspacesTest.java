package dev.cipolicy.fleet.workspace;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Against real git: a bare repository as the remote, commits on a branch and on a pull request's ref only. */
class GitWorkspacesTest {

  @TempDir Path tmp;
  private Path remote;
  private String first;
  private String second;
  private String prOnly;

  @BeforeEach
  void remoteWithCommits() throws Exception {
    Path src = tmp.resolve("src");
    remote = tmp.resolve("remote.git");
    git(tmp, "init", "-q", "--bare", remote.toString());
    git(tmp, "init", "-q", "-b", "main", src.toString());
    first = commit(src, "v1");
    second = commit(src, "v2");
    git(src, "push", "-q", remote.toString(), "main");
    // A commit reachable only from a pull request's head ref, as GitHub keeps them.
    git(src, "checkout", "-q", "-b", "feature");
    prOnly = commit(src, "pr");
    git(src, "push", "-q", remote.toString(), "feature:refs/pull/7/head");
  }

  @Test
  void checksEachJobsCommitOutIntoItsOwnDirectoryAndRemovesIt() throws Exception {
    GitWorkspaces ws = workspaces();
    GitWorkspaces.Workspace a = ws.prepare(remote.toString(), first, "suite-a-0of2");
    try (GitWorkspaces.Workspace b = ws.prepare(remote.toString(), second, "suite-a-1of2")) {
      assertThat(Files.readString(a.directory().resolve("file.txt"))).isEqualTo("v1");
      assertThat(Files.readString(b.directory().resolve("file.txt"))).isEqualTo("v2");
      assertThat(a.directory().getFileName().toString()).isEqualTo("suite-a-0of2");
      assertThat(git(a.directory(), "rev-parse", "HEAD").strip()).isEqualTo(first);
      Files.writeString(a.directory().resolve("junk.txt"), "left by the job");
      a.close();
      assertThat(a.directory()).doesNotExist();
    }
    assertThat(tmp.resolve("work")).isEmptyDirectory();
    try (var cached = Files.list(tmp.resolve("cache"))) {
      assertThat(cached.filter(p -> p.toString().endsWith(".git")).count()).as("one cached clone per remote").isEqualTo(1);
    }
  }

  @Test
  void fetchesACommitOnlyAPullRequestRefHolds() throws Exception {
    try (GitWorkspaces.Workspace w = workspaces().prepare(remote.toString(), prOnly, "pr-job")) {
      assertThat(Files.readString(w.directory().resolve("file.txt"))).isEqualTo("pr");
    }
  }

  @Test
  void replacesADirectoryLeftByAnEarlierAttempt() throws Exception {
    GitWorkspaces ws = workspaces();
    GitWorkspaces.Workspace crashed = ws.prepare(remote.toString(), first, "retried");
    Files.writeString(crashed.directory().resolve("junk.txt"), "from the crashed attempt");
    try (GitWorkspaces.Workspace again = ws.prepare(remote.toString(), second, "retried")) {
      assertThat(again.directory().resolve("junk.txt")).doesNotExist();
      assertThat(Files.readString(again.directory().resolve("file.txt"))).isEqualTo("v2");
    }
  }

  @Test
  void refusesBadArgumentsWithOneLine() {
    GitWorkspaces ws = workspaces();
    assertThatThrownBy(() -> ws.prepare(remote.toString(), "main", "j"))
        .isInstanceOf(WorkspaceException.class)
        .hasMessage("commit 'main' is not a full SHA; expected 40 or 64 lowercase hex digits");
    assertThatThrownBy(() -> ws.prepare("--upload-pack=touch /tmp/x", first, "j"))
        .isInstanceOf(WorkspaceException.class).hasMessageContaining("not starting with '-'");
    assertThatThrownBy(() -> ws.prepare(remote.toString(), first, "../escape"))
        .isInstanceOf(WorkspaceException.class).hasMessageContaining("cannot name a workspace");
    assertThatThrownBy(() -> ws.prepare(remote.toString(), "0".repeat(40), "j"))
        .isInstanceOf(WorkspaceException.class)
        .hasMessage("commit " + "0".repeat(40) + " is not in " + remote
            + " (fetched by SHA and with every branch and pull request head)");
    assertThatThrownBy(() -> ws.prepare(tmp.resolve("nowhere").toString(), first, "j"))
        .isInstanceOf(WorkspaceException.class)
        .hasMessageStartingWith("git fetch failed with exit code")
        .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n"));
  }

  private GitWorkspaces workspaces() {
    return new GitWorkspaces(tmp.resolve("cache"), tmp.resolve("work"), Duration.ofMinutes(1), "git");
  }

  private String commit(Path repo, String content) throws Exception {
    Files.writeString(repo.resolve("file.txt"), content);
    git(repo, "add", "file.txt");
    git(repo, "-c", "user.name=t", "-c", "user.email=t@example.org", "commit", "-q", "-m", content);
    return git(repo, "rev-parse", "HEAD").strip();
  }

  private static String git(Path dir, String... args) throws IOException, InterruptedException {
    List<String> cmd = new ArrayList<>(List.of("git", "-C", dir.toString()));
    cmd.addAll(List.of(args));
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).as("git %s: %s", args, out).isZero();
    return out;
  }
}
