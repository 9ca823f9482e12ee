package dev.cipolicy.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.lists;

import dev.cipolicy.queue.CollectorTarget;
import dev.cipolicy.queue.JobQueue;
import dev.cipolicy.queue.QueueSettings;
import dev.cipolicy.queue.model.Claim;
import dev.cipolicy.queue.model.Failure;
import dev.cipolicy.queue.model.InvalidQueueInputException;
import dev.cipolicy.queue.model.NewRequest;
import dev.cipolicy.queue.model.Request;
import dev.cipolicy.queue.model.RequestId;
import dev.cipolicy.queue.model.ResultPayload;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.quicktheories.core.Gen;

/**
 * Random strings through every text argument of the PostgreSQL store's public API: each call either works,
 * and the text reads back exactly, or is refused with {@link InvalidQueueInputException} before the
 * database sees it. The database's "invalid byte sequence" error (SQLSTATE 22021, what a NUL in a text
 * column raises) and the silent replacement of unpaired surrogates can no longer be reached.
 */
class PgTextProperties {

  private static PgTestDatabase db;
  private static PostgresQueueStore store;
  private static JobQueue queue;
  private static final AtomicInteger SEQ = new AtomicInteger();

  @BeforeAll
  static void open() {
    db = PgTestDatabase.open("pgtext", 4);
    store = PostgresQueueStore.create(db.dataSource, db.schema);
    queue = JobQueue.of(store, QueueSettings.builder().maxInProgress(1000).backfill(false)
        .addBenchmarkGroups("g").addCollectorTargets(CollectorTarget.required("x86")).build());
  }

  @AfterAll
  static void close() {
    db.close();
  }

  /** Strings of UTF-16 code units, biased toward NUL, surrogates, controls and a few plain letters. */
  private static Gen<String> hostileStrings() {
    Gen<Integer> unit = integers().between(0, 9).zip(integers().between(0, 0xFFFF), (kind, any) -> switch (kind) {
      case 0 -> 0;
      case 1 -> 0xD800 + any % 0x400;
      case 2 -> 0xDC00 + any % 0x400;
      case 3 -> any % 0x20;
      case 4, 5, 6 -> 'a' + any % 26;
      default -> any;
    });
    return lists().of(unit).ofSizeBetween(1, 12).map(units -> {
      StringBuilder sb = new StringBuilder();
      units.forEach(u -> sb.append((char) u.intValue()));
      return sb.toString();
    });
  }

  /** Runs a call: it either returns normally or throws our input exception; anything else fails. */
  private static boolean accepted(ThrowingCallable call) {
    try {
      call.call();
      return true;
    } catch (InvalidQueueInputException e) {
      return false;
    } catch (Throwable e) {
      throw new AssertionError("expected success or InvalidQueueInputException, got " + e, e);
    }
  }

  @Test
  void everyTextArgumentIsKeptExactlyOrRefusedBeforeTheDatabase() {
    queue.registerCollector("c1", "x86", true);
    qt().withExamples(300).withFixedSeed(20260105L).forAll(hostileStrings()).checkAssert(text -> {
      int n = SEQ.incrementAndGet();
      String tag = "t" + n + text;
      if (accepted(() -> queue.submit(NewRequest.master(tag, null).withBenchmarkGroups("g")))) {
        assertThat(store.requestByTag(tag)).map(Request::tag).hasValue(java.util.Optional.of(tag));
      }
      accepted(() -> store.requestByTag(text));
      if (accepted(() -> store.registerCollector("n" + n + text, "x86", false))) {
        assertThat(store.collector("n" + n + text)).isPresent();
      }
      accepted(() -> store.collector(text));
      accepted(() -> store.collectorHeartbeat(text));
      accepted(() -> store.setCollectorActive(text, true));
      accepted(() -> store.registerCollector("k" + n, text, false));
      accepted(() -> store.attachArtifacts(RequestId.of(1), text, "p" + n));

      Request open = queue.submit(NewRequest.master("r" + n, null).withBenchmarkGroups("g")).request();
      if (accepted(() -> store.cancel(open.id(), text))) {
        assertThat(store.request(open.id()).orElseThrow().cancelReason()).contains(text);
      }
      queue.submit(NewRequest.master("s" + n, null).withBenchmarkGroups("g"));
      queue.tick();
      List<Claim> claims = queue.claim("c1", 10).claims();
      assertThat(claims).isNotEmpty();
      Claim first = claims.get(0);
      if (!accepted(() -> queue.fail(first.lease(), Failure.permanent(text)))) {
        assertThat(accepted(() -> ResultPayload.ofText(text))).isFalse();
        queue.complete(first.lease());
      } else {
        assertThat(store.job(first.job().id()).orElseThrow().failure().orElseThrow().detail()).endsWith(text);
      }
      for (Claim claim : claims.subList(1, claims.size())) {
        queue.complete(claim.lease());
      }
    });
  }

  @Test
  void resultTextIsKeptExactlyOrRefused() {
    queue.registerCollector("c2", "x86", true);
    qt().withExamples(100).withFixedSeed(7L).forAll(hostileStrings()).checkAssert(text -> {
      int n = SEQ.incrementAndGet();
      queue.submit(NewRequest.master("q" + n, null).withBenchmarkGroups("g"));
      queue.tick();
      Claim claim = queue.claim("c2").claims().get(0);
      ResultPayload[] payload = new ResultPayload[1];
      if (accepted(() -> payload[0] = ResultPayload.ofText(text))) {
        queue.complete(claim.lease(), payload[0]);
        assertThat(queue.result(claim.job().id()).orElseThrow().payload().text()).isEqualTo(text);
      } else {
        queue.complete(claim.lease());
        assertThat(queue.result(claim.job().id())).isEmpty();
      }
    });
  }
}
