package dev.cipolicy.queue.tck;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.cipolicy.queue.model.Claim;
import dev.cipolicy.queue.model.Failure;
import dev.cipolicy.queue.model.InvalidQueueInputException;
import dev.cipolicy.queue.model.JobId;
import dev.cipolicy.queue.model.JobLogView;
import dev.cipolicy.queue.model.LeaseRef;
import dev.cipolicy.queue.model.LogChunk;
import dev.cipolicy.queue.model.LogWindow;
import dev.cipolicy.queue.model.NewRequest;
import dev.cipolicy.queue.spi.LeaseStatus;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The kit's contract for job logs: a lease appends its attempt's output, fenced; the store keeps the first
 * and last {@link LogWindow} bytes and counts every byte; anyone reads any attempt at any time, from an
 * offset, with the bytes dropped in between counted.
 *
 * <p>{@link QueueStoreCompatibilityKit} runs it as its "Logs" group.
 */
abstract class LogContract extends KitGroup {

  private static final int HEAD = LogWindow.STORE_HEAD_BYTES;
  private static final int TAIL = LogWindow.STORE_TAIL_BYTES;

  private Claim claim;
  private LeaseRef lease;
  private JobId job;

  LogContract(QueueStoreCompatibilityKit kit) {
    super(kit);
  }

  @BeforeEach
  void claimAJob() {
    register("c1", "x86");
    running(NewRequest.master("m1", null));
    claim = claimOne("c1");
    lease = LeaseRef.of(claim.lease());
    job = claim.job().id();
  }

  /** Bytes 0..n-1 of a pattern that repeats every 251 bytes, so that any cut is visible. */
  private static byte[] pattern(int n) {
    byte[] b = new byte[n];
    for (int i = 0; i < n; i++) {
      b[i] = (byte) (i % 251);
    }
    return b;
  }

  /** Appends the bytes in chunks of {@code size}, one append per chunk. */
  private void appendInChunks(byte[] bytes, int size) {
    for (int i = 0; i < bytes.length; i += size) {
      byte[] part = Arrays.copyOfRange(bytes, i, Math.min(bytes.length, i + size));
      assertThat(store.appendLog(lease, List.of(LogChunk.of(part)))).isEqualTo(LeaseStatus.OK);
    }
  }

  private JobLogView read(int attempt, long from) {
    return store.log(job, attempt, from).orElseThrow();
  }

  @Test
  @DisplayName("appended text is read back by anyone while the job runs; chunks of one append keep their order")
  void appendAndRead() {
    assertThat(store.log(job)).hasValueSatisfying(v -> {
      assertThat(v.totalBytes()).isZero();
      assertThat(v.text()).isEmpty();
      assertThat(v.finished()).isFalse();
    });
    assertThat(store.appendLog(lease, List.of(LogChunk.ofText("hello "), LogChunk.ofText("world\n"))))
        .isEqualTo(LeaseStatus.OK);
    assertThat(queue.appendLog(claim.lease(), List.of(LogChunk.ofText("é\n")))).isEqualTo(LeaseStatus.OK);
    assertThat(store.appendLog(lease, List.of())).isEqualTo(LeaseStatus.OK);
    JobLogView v = store.log(job).orElseThrow();
    assertThat(v.text()).isEqualTo("hello world\né\n");
    assertThat(v.totalBytes()).isEqualTo(15);
    assertThat(v.droppedBytes()).isZero();
    assertThat(v.skippedBytes()).isZero();
    assertThat(v.attempt()).isEqualTo(1);
    assertThat(v.jobId()).isEqualTo(job);
    assertThat(v.finished()).isFalse();
    assertThat(queue.log(job, 1, 0)).contains(v);
  }

  @Test
  @DisplayName("a long log keeps its first and last 64 KiB exactly and counts every byte")
  void headAndTailBounds() {
    byte[] all = pattern(300 * 1024 + 17);
    appendInChunks(all, 7 * 1024 + 3);
    JobLogView v = read(1, 0);
    assertThat(v.totalBytes()).isEqualTo(all.length);
    assertThat(v.head()).isEqualTo(Arrays.copyOfRange(all, 0, HEAD));
    assertThat(v.tail()).isEqualTo(Arrays.copyOfRange(all, all.length - TAIL, all.length));
    assertThat(v.droppedBytes()).isEqualTo(all.length - HEAD - TAIL);
    assertThat(v.skippedBytes()).isEqualTo(v.droppedBytes());
    assertThat(v.text()).contains("[... " + (all.length - HEAD - TAIL) + " bytes truncated ...]");
  }

  @Test
  @DisplayName("one large append keeps the same window as many small ones")
  void oneLargeAppend() {
    byte[] all = pattern(LogWindow.MAX_APPEND_BYTES);
    assertThat(store.appendLog(lease, List.of(LogChunk.of(all)))).isEqualTo(LeaseStatus.OK);
    JobLogView v = read(1, 0);
    assertThat(v.head()).isEqualTo(Arrays.copyOfRange(all, 0, HEAD));
    assertThat(v.tail()).isEqualTo(Arrays.copyOfRange(all, all.length - TAIL, all.length));
    assertThat(v.totalBytes()).isEqualTo(all.length);
  }

  @Test
  @DisplayName("a follower reads from an offset across the head and tail, told how many bytes it missed")
  void followByOffset() {
    byte[] all = pattern(300 * 1024);
    appendInChunks(Arrays.copyOfRange(all, 0, 100 * 1024), 32 * 1024);
    JobLogView first = read(1, 60 * 1024);
    assertThat(first.offset()).isEqualTo(60 * 1024);
    assertThat(first.head()).isEqualTo(Arrays.copyOfRange(all, 60 * 1024, HEAD));
    assertThat(first.tail()).isEqualTo(Arrays.copyOfRange(all, HEAD, 100 * 1024));
    assertThat(first.skippedBytes()).isZero();

    appendInChunks(Arrays.copyOfRange(all, 100 * 1024, all.length), 50 * 1024);
    JobLogView next = read(1, first.totalBytes());
    assertThat(next.head()).isEmpty();
    assertThat(next.tail()).isEqualTo(Arrays.copyOfRange(all, all.length - TAIL, all.length));
    assertThat(next.skippedBytes()).isEqualTo(all.length - TAIL - 100 * 1024);
    assertThat(next.text()).startsWith("[... " + next.skippedBytes() + " bytes truncated ...]\n");

    JobLogView insideTail = read(1, all.length - 10);
    assertThat(insideTail.tail()).isEqualTo(Arrays.copyOfRange(all, all.length - 10, all.length));
    assertThat(insideTail.skippedBytes()).isZero();
    JobLogView past = read(1, all.length + 1000);
    assertThat(past.offset()).isEqualTo(all.length);
    assertThat(past.head()).isEmpty();
    assertThat(past.tail()).isEmpty();
  }

  @Test
  @DisplayName("bytes skipped by the writer after a full head are counted and restart the tail")
  void skippedByTheWriter() {
    byte[] head = pattern(HEAD);
    byte[] after = pattern(70 * 1024);
    assertThat(store.appendLog(lease, List.of(LogChunk.of(head), LogChunk.afterSkipping(1000, after))))
        .isEqualTo(LeaseStatus.OK);
    JobLogView v = read(1, 0);
    assertThat(v.totalBytes()).isEqualTo(HEAD + 1000 + after.length);
    assertThat(v.head()).isEqualTo(head);
    assertThat(v.tail()).isEqualTo(Arrays.copyOfRange(after, after.length - TAIL, after.length));
    assertThat(v.droppedBytes()).isEqualTo(1000 + after.length - TAIL);
  }

  @Test
  @DisplayName("a stale, expired, finished or unknown lease appends nothing")
  void staleLeaseRefused() {
    store.appendLog(lease, List.of(LogChunk.ofText("kept\n")));
    LeaseRef wrongToken = new LeaseRef(job, lease.attempt(), lease.token() + 1);
    LeaseRef wrongAttempt = new LeaseRef(job, lease.attempt() + 1, lease.token());
    List<LogChunk> late = List.of(LogChunk.ofText("late\n"));
    assertThat(store.appendLog(wrongToken, late)).isEqualTo(LeaseStatus.STALE_LEASE);
    assertThat(store.appendLog(wrongAttempt, late)).isEqualTo(LeaseStatus.STALE_LEASE);
    assertThat(store.appendLog(new LeaseRef(JobId.of(999_999), 1, 1), late)).isEqualTo(LeaseStatus.NOT_FOUND);
    clock.advance(LEASE);
    assertThat(store.appendLog(lease, late)).isEqualTo(LeaseStatus.STALE_LEASE);
    JobLogView v = read(1, 0);
    assertThat(v.text()).isEqualTo("kept\n");
    assertThat(v.finished()).isTrue();
  }

  @Test
  @DisplayName("a retried job keeps one log per attempt; the job's log is its latest attempt's")
  void keptPerAttempt() {
    store.appendLog(lease, List.of(LogChunk.ofText("first try\n")));
    assertThat(queue.fail(claim.lease(), Failure.transientFailure("flaky")).status()).isEqualTo(LeaseStatus.OK);
    assertThat(read(1, 0).finished()).isTrue();
    assertThat(store.appendLog(lease, List.of(LogChunk.ofText("after the end\n"))))
        .isEqualTo(LeaseStatus.STALE_LEASE);
    Claim again = claimOne("c1");
    assertThat(again.lease().attempt()).isEqualTo(2);
    assertThat(store.log(job, 2, 0).orElseThrow().totalBytes()).isZero();
    store.appendLog(LeaseRef.of(again.lease()), List.of(LogChunk.ofText("second try\n")));
    assertThat(read(1, 0).text()).isEqualTo("first try\n");
    assertThat(read(2, 0).text()).isEqualTo("second try\n");
    assertThat(read(2, 0).finished()).isFalse();
    assertThat(store.log(job).orElseThrow()).isEqualTo(read(2, 0));
    assertThat(store.log(job, 3, 0)).isEmpty();
    assertThat(store.log(JobId.of(999_999), 1, 0)).isEmpty();
    assertThat(queue.complete(again.lease()).status()).isEqualTo(LeaseStatus.OK);
    assertThat(read(2, 0).finished()).isTrue();
  }

  @Test
  @DisplayName("log bytes are kept exactly: NUL, bytes that are not UTF-8, a cut character")
  void bytesKeptExactly() {
    byte[] odd = {'a', 0, 'b', (byte) 0xFF, (byte) 0xC3, '\n', (byte) 0xE2, (byte) 0x82};
    assertThat(store.appendLog(lease, List.of(LogChunk.of(odd)))).isEqualTo(LeaseStatus.OK);
    JobLogView v = read(1, 0);
    assertThat(v.head()).isEqualTo(odd);
    assertThat(v.totalBytes()).isEqualTo(odd.length);
    assertThat(v.text()).startsWith("a\u0000b\uFFFD");
  }

  @Test
  @DisplayName("bad appends and reads are refused with one message and append nothing")
  void badInput() {
    store.appendLog(lease, List.of(LogChunk.ofText("kept\n")));
    List<LogChunk> tooMany = new ArrayList<>(Collections.nCopies(LogWindow.MAX_APPEND_CHUNKS + 1,
        LogChunk.ofText("x")));
    assertRefused(() -> store.appendLog(lease, tooMany), "log append of 65 chunks; expected at most 64");
    List<LogChunk> tooLarge = List.of(LogChunk.of(new byte[LogWindow.MAX_APPEND_BYTES]), LogChunk.ofText("x"));
    assertRefused(() -> store.appendLog(lease, tooLarge), "log append of 1048577 bytes; expected at most 1048576");
    List<LogChunk> early = List.of(LogChunk.ofText("fine\n"), LogChunk.afterSkipping(5, new byte[1]));
    assertRefused(() -> store.appendLog(lease, early),
        "log chunk skips 5 bytes while the head holds 10 of 65536; expected bytes skipped only after the head"
            + " is full");
    assertRefused(() -> store.log(job, 0, 0), "log of job " + job.value() + " attempt 0 from offset 0;");
    assertRefused(() -> store.log(job, 1, -1), "attempt 1 from offset -1; expected an attempt of 1 or more");
    assertThat(read(1, 0).text()).isEqualTo("kept\n");
  }

  private static void assertRefused(Runnable call, String message) {
    assertThatThrownBy(call::run).isInstanceOf(InvalidQueueInputException.class).hasMessageContaining(message);
  }
}
