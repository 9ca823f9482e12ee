package dev.cipolicy.fleet.collector;

import dev.cipolicy.fleet.job.CiJob;
import dev.cipolicy.fleet.job.CiJobArgs;
import dev.cipolicy.fleet.job.HostCommand;
import dev.cipolicy.fleet.job.InvalidCiJobException;
import dev.cipolicy.fleet.workspace.GitWorkspaces;
import dev.cipolicy.fleet.workspace.WorkspaceException;
import dev.cipolicy.queue.model.Failure;
import dev.cipolicy.queue.worker.JobContext;
import dev.cipolicy.queue.worker.JobOutcome;
import dev.cipolicy.queue.worker.JobRunner;
import dev.cipolicy.queue.worker.ProcessJobRunner;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * Runs a CI job on a GPU host: reads its arguments ({@link CiJobArgs}), checks its commit out into a workspace of its
 * own ({@link GitWorkspaces}), and runs its command ({@link HostCommand}) as a process tree on the lease's devices,
 * with the job's timeout, its output in the job's log, stopped within the collector's poll when the job is cancelled.
 *
 * <p>Failures: arguments a collector cannot run, or a repository this host does not serve, fail the job
 * permanently (another attempt would fail alike); a workspace that cannot be prepared (the remote did not answer)
 * fails it transiently; a non-zero exit of the command is the suite's verdict and fails it permanently (except a
 * container runtime's own code 125: the container could not be started, a transient failure of the host), as does
 * its timeout. The workspace is
 * removed, and a container the job ran in with it, whatever the job came to.
 */
public final class CiJobRunner implements JobRunner {

  private final GitWorkspaces workspaces;
  private final Map<String, String> remotes;
  private final String remoteTemplate;
  private final String containerRuntime;

  /**
   * A runner.
   *
   * @param workspaces where jobs check their commits out
   * @param remotes the remote of each repository this host serves ({@code owner/name} to URL or path)
   * @param remoteTemplate the remote of any other repository, {@code {repository}} standing for its
   *     {@code owner/name} (e.g. {@code https://github.com/{repository}.git}); empty to serve only {@code remotes}
   * @param containerRuntime {@code docker}, {@code podman} or a path to one; empty to run every job on the host
   */
  public CiJobRunner(GitWorkspaces workspaces, Map<String, String> remotes, String remoteTemplate,
      String containerRuntime) {
    this.workspaces = workspaces;
    this.remotes = Map.copyOf(remotes);
    this.remoteTemplate = remoteTemplate;
    this.containerRuntime = containerRuntime;
  }

  /**
   * The remote this host fetches a repository from.
   *
   * @param repository {@code owner/name}
   * @return the remote, or empty when this host does not serve the repository
   */
  public Optional<String> remote(String repository) {
    String given = remotes.get(repository);
    if (given != null) {
      return Optional.of(given);
    }
    return remoteTemplate.isEmpty() ? Optional.empty() : Optional.of(remoteTemplate.replace("{repository}", repository));
  }

  @Override
  public JobOutcome run(JobContext context) throws InterruptedException {
    CiJob job;
    try {
      job = CiJobArgs.read(context.spec().args().orElseThrow(() ->
          new InvalidCiJobException("the job has no arguments; expected a CI job's")));
    } catch (InvalidCiJobException e) {
      return JobOutcome.permanentFailure("cannot run this job: " + e.getMessage());
    }
    Optional<String> remote = remote(job.repository());
    if (remote.isEmpty()) {
      return JobOutcome.permanentFailure("this host does not serve repository " + job.repository()
          + "; give the collector --remote " + job.repository() + "=URL or a --remote-template");
    }
    String name = "ci-job-" + context.job().id().value();
    GitWorkspaces.Workspace ws;
    try {
      ws = workspaces.prepare(remote.get(), job.commit(), name);
    } catch (WorkspaceException e) {
      return JobOutcome.transientFailure("cannot check out " + job.commit() + ": " + e.getMessage());
    }
    HostCommand command = HostCommand.of(job, context.devices(), ws.directory(), containerRuntime, name);
    context.log().line("[ci-policy] " + job.repository() + "@" + job.commit() + " on devices "
        + context.devices() + (command.cleanup().isEmpty() ? "" : " in " + job.image().orElse("")));
    try {
      ProcessJobRunner.Builder b = ProcessJobRunner.builder(c -> command.argv()).directory(c -> ws.directory());
      // On the host the runner sets CUDA_VISIBLE_DEVICES from the lease itself (the value the command carries).
      command.env().forEach((k, v) -> {
        if (!k.equals(ProcessJobRunner.CUDA_VISIBLE_DEVICES)) {
          b.environment(k, v);
        }
      });
      // A non-zero exit is the suite's verdict (a test failed): permanent, never run again. Only docker's and
      // podman's own failure to start the container (125) is the host's problem, transient like a checkout.
      b.permanentExitCodes(java.util.stream.IntStream.rangeClosed(1, 255)
          .filter(code -> command.cleanup().isEmpty() || code != 125).toArray());
      Duration timeout = context.spec().timeout();
      if (!timeout.isZero()) {
        b.timeout(timeout).timeoutFailure(Failure.Kind.PERMANENT);
      }
      return b.build().run(context);
    } finally {
      cleanUp(command.cleanup());
      try {
        ws.close();
      } catch (WorkspaceException e) {
        context.log().line("[ci-policy] " + e.getMessage());
      }
    }
  }

  private static void cleanUp(List<String> cleanup) {
    if (cleanup.isEmpty()) {
      return;
    }
    try {
      Process p = new ProcessBuilder(cleanup).redirectErrorStream(true)
          .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
      if (!p.waitFor(30, TimeUnit.SECONDS)) {
        p.destroyForcibly();
      }
    } catch (IOException e) {
      // Nothing to remove when the runtime cannot even start.
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
