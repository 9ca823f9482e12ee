package dev.cipolicy.fleet.workspace;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;

/**
 * Per-job workspaces of a GPU host, checked out from a cached clone: for each remote one bare repository under
 * the cache directory (named by a hash of the remote), into which a job's commit is fetched, and one detached
 * worktree per job under the work directory. A second job of the same commit fetches nothing.
 *
 * <p>Fetching asks the remote for the commit itself (GitHub and git's protocol v2 serve any commit reachable from a
 * ref); when the remote refuses, it fetches the branches and the pull requests' heads, and fails with
 * {@link WorkspaceException} if the commit is still missing. Git runs with {@code GIT_TERMINAL_PROMPT=0} (it never
 * waits for a password), every git command within the timeout, and at most 64 KiB of its output is kept for an
 * error message. Preparations of one cache are serialized, in the process and across processes by a lock file.
 */
public final class GitWorkspaces {

  /** The default limit on one git command. */
  public static final Duration DEFAULT_TIMEOUT = Duration.ofMinutes(10);

  /** The longest remote accepted, in characters. */
  public static final int MAX_REMOTE = 2048;

  private static final Pattern COMMIT = Pattern.compile("[0-9a-f]{40}|[0-9a-f]{64}");
  private static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,199}");
  private static final int MAX_OUTPUT = 64 * 1024;

  private final Path cache;
  private final Path work;
  private final Duration timeout;
  private final String git;

  /**
   * Workspaces under the given directories.
   *
   * @param cache where the cached clones are kept (created when missing)
   * @param work where the jobs' worktrees are made (created when missing)
   * @param timeout the longest one git command may take
   * @param git the git program ({@code git} on the PATH, or a path)
   */
  public GitWorkspaces(Path cache, Path work, Duration timeout, String git) {
    if (timeout.isNegative() || timeout.isZero()) {
      throw new WorkspaceException("git timeout is " + timeout + "; expected a positive duration");
    }
    this.cache = cache.toAbsolutePath().normalize();
    this.work = work.toAbsolutePath().normalize();
    this.timeout = timeout;
    this.git = git;
  }

  /** A job's checked-out commit; {@link #close()} removes it. */
  public final class Workspace implements AutoCloseable {
    private final Path clone;
    private final Path dir;
    private final String commit;

    private Workspace(Path clone, Path dir, String commit) {
      this.clone = clone;
      this.dir = dir;
      this.commit = commit;
    }

    /**
     * The directory the job runs in.
     *
     * @return the worktree, at the commit, detached
     */
    public Path directory() {
      return dir;
    }

    /**
     * The commit checked out.
     *
     * @return the full SHA
     */
    public String commit() {
      return commit;
    }

    /**
     * Removes the worktree (and whatever the job left in it).
     *
     * @throws WorkspaceException when git cannot remove it
     */
    @Override
    public void close() {
      synchronized (GitWorkspaces.this) {
        CloneLock lock = lock(clone);
        try {
          run(clone, "worktree", "remove", "--force", dir.toString());
          run(clone, "worktree", "prune");
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new WorkspaceException("removing workspace " + dir + " was interrupted");
        } finally {
          lock.close();
        }
      }
    }
  }

  /**
   * Checks a commit of a remote out into a new worktree named after the job.
   *
   * @param remote the repository's URL or path (as {@code git fetch} takes it)
   * @param commit the full commit SHA (40 or 64 lowercase hex digits)
   * @param job the job's name, which names its directory; a directory left by an earlier attempt is replaced
   * @return the workspace
   * @throws WorkspaceException when an argument is not acceptable or git fails
   * @throws InterruptedException when interrupted while git runs (git is stopped)
   */
  public synchronized Workspace prepare(String remote, String commit, String job) throws InterruptedException {
    checkRemote(remote);
    if (!COMMIT.matcher(commit).matches()) {
      throw new WorkspaceException("commit '" + shown(commit) + "' is not a full SHA; expected 40 or 64 lowercase"
          + " hex digits");
    }
    if (!NAME.matcher(job).matches()) {
      throw new WorkspaceException("job name '" + shown(job) + "' cannot name a workspace; expected letters,"
          + " digits, '.', '_' and '-', at most 200");
    }
    Path clone = cache.resolve(hash(remote) + ".git");
    Path dir = work.resolve(job);
    try {
      Files.createDirectories(cache);
      Files.createDirectories(work);
    } catch (IOException e) {
      throw new WorkspaceException("cannot create " + cache + " or " + work + ": " + e.getMessage());
    }
    CloneLock lock = lock(clone);
    try {
      if (!Files.isDirectory(clone.resolve("objects"))) {
        run(cache, "init", "--quiet", "--bare", clone.toString());
      }
      if (!has(clone, commit)) {
        Result direct = attempt(clone, "fetch", "--quiet", "--no-tags", "--", remote, commit);
        if (direct.code() != 0 || !has(clone, commit)) {
          run(clone, "fetch", "--quiet", "--no-tags", "--", remote, "+refs/heads/*:refs/remotes/origin/*",
              "+refs/pull/*/head:refs/remotes/pull/*");
          if (!has(clone, commit)) {
            throw new WorkspaceException("commit " + commit + " is not in " + shown(remote)
                + " (fetched by SHA and with every branch and pull request head)");
          }
        }
      }
      if (Files.exists(dir)) {
        attempt(clone, "worktree", "remove", "--force", dir.toString());
        run(clone, "worktree", "prune");
        if (Files.exists(dir)) {
          throw new WorkspaceException("workspace " + dir + " exists and is not a worktree of " + shown(remote)
              + "; expected the work directory to hold only job workspaces");
        }
      }
      run(clone, "worktree", "add", "--quiet", "--detach", "--force", dir.toString(), commit);
    } finally {
      lock.close();
    }
    return new Workspace(clone, dir, commit);
  }

  private boolean has(Path clone, String commit) throws InterruptedException {
    return attempt(clone, "cat-file", "-e", commit + "^{commit}").code() == 0;
  }

  private void run(Path dir, String... args) throws InterruptedException {
    Result r = attempt(dir, args);
    if (r.code() != 0) {
      throw new WorkspaceException("git " + args[0] + " failed with exit code " + r.code() + ": " + lastLine(r.output()));
    }
  }

  private record Result(int code, String output) {}

  private Result attempt(Path dir, String... args) throws InterruptedException {
    List<String> cmd = new ArrayList<>();
    cmd.add(git);
    cmd.add("-C");
    cmd.add(dir.toString());
    cmd.addAll(List.of(args));
    ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
    pb.environment().put("GIT_TERMINAL_PROMPT", "0");
    pb.environment().put("LC_ALL", "C");
    Process p;
    try {
      p = pb.start();
    } catch (IOException e) {
      throw new WorkspaceException("cannot run " + git + ": " + e.getMessage());
    }
    try {
      p.getOutputStream().close();
    } catch (IOException e) {
      // git reads no input; a stream that cannot be closed changes nothing.
    }
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    Thread reader = new Thread(() -> drain(p.getInputStream(), out), "git-output");
    reader.setDaemon(true);
    reader.start();
    try {
      if (!p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
        p.descendants().forEach(ProcessHandle::destroyForcibly);
        p.destroyForcibly();
        throw new WorkspaceException("git " + args[0] + " took longer than " + timeout + " in " + dir);
      }
    } catch (InterruptedException e) {
      p.descendants().forEach(ProcessHandle::destroyForcibly);
      p.destroyForcibly();
      throw e;
    }
    reader.join(1000);
    synchronized (out) {
      return new Result(p.exitValue(), out.toString(StandardCharsets.UTF_8));
    }
  }

  private static void drain(InputStream in, ByteArrayOutputStream out) {
    byte[] buf = new byte[8192];
    try (in) {
      int n;
      while ((n = in.read(buf)) >= 0) {
        synchronized (out) {
          int room = MAX_OUTPUT - out.size();
          if (room > 0) {
            out.write(buf, 0, Math.min(room, n));
          }
        }
      }
    } catch (IOException e) {
      // The process is gone.
    }
  }

  /** The lock of one cached clone, held across processes; closing it releases the lock and its file. */
  private static final class CloneLock implements AutoCloseable {
    private final FileChannel channel;

    CloneLock(FileChannel channel) {
      this.channel = channel;
    }

    @Override
    public void close() {
      try {
        channel.close();
      } catch (IOException e) {
        // Closing the channel releases the lock; there is nothing else to undo.
      }
    }
  }

  private static CloneLock lock(Path clone) {
    Path file = clone.resolveSibling(clone.getFileName() + ".lock");
    try {
      FileChannel channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
      try {
        channel.lock();
      } catch (IOException | RuntimeException e) {
        channel.close();
        throw e;
      }
      return new CloneLock(channel);
    } catch (IOException e) {
      throw new WorkspaceException("cannot lock " + file + ": " + e.getMessage());
    }
  }

  private static void checkRemote(String remote) {
    if (remote.isBlank() || remote.length() > MAX_REMOTE || remote.startsWith("-")
        || remote.chars().anyMatch(c -> c < 0x20 || c == 0x7f)) {
      throw new WorkspaceException("remote '" + shown(remote) + "' is not acceptable; expected a URL or path of"
          + " at most " + MAX_REMOTE + " characters, not starting with '-', without control characters");
    }
  }

  private static String hash(String remote) {
    try {
      byte[] d = MessageDigest.getInstance("SHA-256").digest(remote.getBytes(StandardCharsets.UTF_8));
      return HexFormat.of().formatHex(d, 0, 12);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is missing from this JDK", e);
    }
  }

  private static String lastLine(String output) {
    String s = output.strip();
    String last = s.isEmpty() ? "(no output)" : s.substring(s.lastIndexOf('\n') + 1);
    return shown(last);
  }

  private static String shown(String s) {
    String cut = s.length() > 200 ? s.substring(0, 200) + "..." : s;
    StringBuilder sb = new StringBuilder(cut.length());
    cut.codePoints().forEach(c -> sb.appendCodePoint(Character.isISOControl(c) ? '?' : c));
    return sb.toString();
  }
}
