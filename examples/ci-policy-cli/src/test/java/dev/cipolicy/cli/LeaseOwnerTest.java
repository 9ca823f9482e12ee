package dev.cipolicy.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** How a lease process tells, from a job's arguments, whether the job's owner still runs. */
class LeaseOwnerTest {

  @Test
  void theRecordReadsBackAndThisProcessIsAlive() {
    LeaseOwner me = LeaseOwner.current("h200-0");
    assertThat(LeaseOwner.read(Optional.of(me.toArgs()))).contains(me);
    assertThat(me.alive()).isTrue();
    assertThat(me.toArgs().length()).isLessThan(300);
  }

  @Test
  void anEndedProcessOrAReusedPidIsGone() throws Exception {
    Process p = new ProcessBuilder("true").start();
    Optional<Instant> start = p.info().startInstant();
    p.waitFor();
    LeaseOwner dead = new LeaseOwner("h", p.pid(), start, LeaseOwner.namespace());
    assertThat(dead.alive()).isFalse();
    LeaseOwner me = LeaseOwner.current("h");
    LeaseOwner reused = new LeaseOwner("h", me.pid(), me.start().map(s -> s.minusSeconds(5)), me.pidNamespace());
    assertThat(reused.alive()).as("the same pid with another start time is another process").isFalse();
  }

  @Test
  void anOwnerInAnotherPidNamespaceIsTakenForAlive() throws Exception {
    Process p = new ProcessBuilder("true").start();
    p.waitFor();
    LeaseOwner elsewhere = new LeaseOwner("h", p.pid(), Optional.empty(), Optional.of("pid:[1]"));
    assertThat(elsewhere.alive()).isTrue();
  }

  @Test
  void argumentsThatAreNotALeasesReadAsNone() {
    assertThat(LeaseOwner.read(Optional.empty())).isEmpty();
    assertThat(LeaseOwner.read(Optional.of("{\"v\":1,\"repository\":\"acme/x\",\"commit\":\"abc\"}"))).isEmpty();
    assertThat(LeaseOwner.read(Optional.of("not json"))).isEmpty();
    assertThat(LeaseOwner.read(Optional.of("{\"v\":2,\"kind\":\"fleet-lease\",\"host\":\"h\",\"pid\":1}"))).isEmpty();
    assertThat(LeaseOwner.read(Optional.of("{\"v\":1,\"kind\":\"fleet-lease\",\"host\":\"h\",\"pid\":1,"
        + "\"start\":\"yesterday\"}"))).isEmpty();
  }
}
