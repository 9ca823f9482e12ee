package dev.cipolicy.cli;

import dev.cipolicy.api.CiPolicyException;
import dev.cipolicy.gate.Revocation;
import dev.cipolicy.gate.RevocationResult;
import dev.cipolicy.gate.RunId;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.Callable;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;

/**
 * {@code ci-policy gate-revoke}: marks stored baseline runs untrusted by exactly one of run id, CI run id or
 * commit, in a history file or in PostgreSQL ({@link HistoryStoreOptions}). Idempotent; prints what
 * it matched and changed. An operator's command, not the test's: a database that cannot be reached (or a
 * schema that was never migrated) is an error, exit 1.
 */
@Command(
    name = "gate-revoke",
    mixinStandardHelpOptions = true,
    description = "Marks baseline runs untrusted by exactly one of --run-id, --ci-run-id or --commit (idempotent).")
final class GateRevokeCommand implements Callable<Integer> {

  @ParentCommand
  private @Nullable CiPolicyCli cli;

  @Mixin
  private HistoryStoreOptions historyStore = new HistoryStoreOptions();

  @Option(names = "--run-id", paramLabel = "N", description = "A stored run id.")
  private @Nullable Long runId;

  @Option(names = "--ci-run-id", paramLabel = "ID", description = "Every run written by this CI run.")
  private @Nullable String ciRunId;

  @Option(names = "--commit", paramLabel = "SHA", description = "Every run of this commit.")
  private @Nullable String commit;

  @Override
  public Integer call() {
    CiPolicyCli c = Objects.requireNonNull(cli);
    try {
      Revocation revocation = Revocation.exactlyOne(
          Optional.ofNullable(runId).map(id -> {
            if (id < 1) {
              throw new Inputs.InputException("--run-id must be positive, got " + id);
            }
            return new RunId(id);
          }),
          Optional.ofNullable(ciRunId), Optional.ofNullable(commit));
      HistoryStoreOptions.OpenedHistory opened = historyStore.open(c, true, false);
      RevocationResult r = opened.store().revoke(revocation);
      if (r.runsRevoked() > 0) {
        opened.save();
      }
      c.console().line("Revoked " + revocation.describe() + ": " + r.runsMatched() + " run(s) matched, "
          + r.runsRevoked() + " newly revoked, " + r.samplesUntrusted() + " trusted sample(s) left the baseline");
      return 0;
    } catch (CiPolicyException e) {
      Annotations.report(c, e);
      return CiPolicyCli.EXIT_ERROR;
    }
  }
}
