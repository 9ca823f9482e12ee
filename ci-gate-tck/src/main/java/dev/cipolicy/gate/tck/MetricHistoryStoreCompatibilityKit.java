package dev.cipolicy.gate.tck;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.lists;

import dev.cipolicy.api.InvalidInputException;
import dev.cipolicy.gate.CiRunIdentity;
import dev.cipolicy.gate.Coordinate;
import dev.cipolicy.gate.CoordinateHistory;
import dev.cipolicy.gate.HistorySample;
import dev.cipolicy.gate.MetricHistoryStore;
import dev.cipolicy.gate.Provenance;
import dev.cipolicy.gate.Revocation;
import dev.cipolicy.gate.RevocationResult;
import dev.cipolicy.gate.RunId;
import dev.cipolicy.gate.RunRecord;
import dev.cipolicy.gate.Sample;
import dev.cipolicy.gate.SeriesKey;
import dev.cipolicy.gate.WriteResult;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/**
 * The contract of {@link MetricHistoryStore}, as an abstract JUnit 5 class: every adapter runs it through
 * one subclass that says how to make an empty store.
 *
 * <pre>{@code
 * class InMemoryMetricHistoryStoreCompatibilityTest extends MetricHistoryStoreCompatibilityKit {
 *   protected MetricHistoryStore newStore() { return new InMemoryMetricHistoryStore(); }
 * }
 * }</pre>
 *
 * <p>The groups check writing and reading, ordering, trust, revocation, level shifts and full history
 * with examples; {@link ModelBased} then runs generated command sequences against the store and a small
 * reference model, comparing every answer and every read after each command (QuickTheories shrinks a
 * failing sequence and reports its seed).
 */
public abstract class MetricHistoryStoreCompatibilityKit {
  /** A series. */
  protected static final SeriesKey A = new SeriesKey("tests/e2e/test_a.py", "cuda", "stage-c-4-gpu-h200");
  /** Another series: same test file, another backend. */
  protected static final SeriesKey B = new SeriesKey("tests/e2e/test_a.py", "rocm", "stage-c-4-gpu-mi350");
  /** Step 0 of a gate. */
  protected static final Coordinate X0 = new Coordinate("train/grad_norm", "all", "{\"rel_up\":0.5}", 0);
  /** Step 1 of the same gate. */
  protected static final Coordinate X1 = new Coordinate("train/grad_norm", "all", "{\"rel_up\":0.5}", 1);
  /** The last point of another gate. */
  protected static final Coordinate Y = new Coordinate("rollout/raw_reward", "last", "{\"rel_up\":0.5}", -1);
  /** The time of the first run. */
  protected static final Instant T0 = Instant.parse("2026-11-01T15:00:00Z");

  /** The store under test, new and empty for each test. */
  protected MetricHistoryStore store;

  /**
   * Makes a new, empty store; called once per test and once per generated command sequence.
   *
   * @return an empty store
   */
  protected abstract MetricHistoryStore newStore();

  @BeforeEach
  void createStore() {
    store = newStore();
  }

  /**
   * A run record.
   *
   * @param series the series
   * @param minute minutes after {@link #T0}
   * @param ci the CI run id
   * @param commit the commit
   * @param samples the samples
   * @return the run
   */
  protected static RunRecord run(SeriesKey series, int minute, String ci, String commit, Sample... samples) {
    return new RunRecord(series, Provenance.of(ci, commit, "nightly"), T0.plusSeconds(60L * minute), true,
        List.of(samples));
  }

  /**
   * A trusted sample.
   *
   * @param c the coordinate
   * @param value the value
   * @return the sample
   */
  protected static Sample ok(Coordinate c, double value) {
    return new Sample(c, value, true);
  }

  /**
   * An untrusted sample.
   *
   * @param c the coordinate
   * @param value the value
   * @return the sample
   */
  protected static Sample bad(Coordinate c, double value) {
    return new Sample(c, value, false);
  }

  private CoordinateHistory read(SeriesKey s, Coordinate c) {
    return store.read(s, Set.of(c), 20, 20).getOrDefault(c, CoordinateHistory.EMPTY);
  }

  private List<Double> trustedValues(SeriesKey s, Coordinate c) {
    return read(s, c).trusted().stream().map(HistorySample::value).toList();
  }

  private List<Double> recentValues(SeriesKey s, Coordinate c) {
    return read(s, c).recent().stream().map(HistorySample::value).toList();
  }

  /**
   * A run of an identified CI run, written with its identity.
   *
   * @param series the series
   * @param minute minutes after {@link #T0}
   * @param identity the CI run's identity
   * @param samples the samples
   * @return the run
   */
  protected static RunRecord identified(SeriesKey series, int minute, CiRunIdentity identity, Sample... samples) {
    return new RunRecord(series, Provenance.of(identity, "c" + identity.runId(), "nightly"),
        T0.plusSeconds(60L * minute), true, List.of(samples));
  }

  @Nested
  @DisplayName("idempotent writes")
  class IdempotentWrites {
    private final CiRunIdentity first = CiRunIdentity.of("acme/train", "9001", 1);

    @Test
    @DisplayName("the same write twice stores one run, and the mean is unchanged")
    void theSameWriteTwiceStoresOneRun() {
      store.write(run(A, 0, "1", "c0", ok(X0, 1.0)));
      RunRecord r = identified(A, 1, first, ok(X0, 3.0), ok(X1, 5.0));
      WriteResult once = store.write(r);
      WriteResult again = store.write(r);
      assertThat(once.duplicate()).isFalse();
      assertThat(again).isEqualTo(WriteResult.duplicate(once.runId(), first));
      assertThat(trustedValues(A, X0)).containsExactly(3.0, 1.0); // mean 2, not (3 + 3 + 1) / 3
      assertThat(trustedValues(A, X1)).containsExactly(5.0);
      assertThat(store.history(A, X0)).hasSize(2);
    }

    @Test
    @DisplayName("a retry stores nothing new even when its time or values differ")
    void aRetryIsADuplicateWhateverItCarries() {
      RunId id = store.write(identified(A, 1, first, ok(X0, 3.0))).runId();
      assertThat(store.write(identified(A, 2, first, ok(X0, 4.0), ok(Y, 1.0))))
          .isEqualTo(WriteResult.duplicate(id, first));
      assertThat(trustedValues(A, X0)).containsExactly(3.0);
      assertThat(store.coordinates(A)).containsExactly(X0);
    }

    @Test
    @DisplayName("another attempt of a run whose write landed stores nothing and names the first attempt")
    void aLaterAttemptOfTheSameRunIsADuplicate() {
      RunId id = store.write(identified(A, 1, first, ok(X0, 3.0))).runId();
      WriteResult second = store.write(identified(A, 5, CiRunIdentity.of("acme/train", "9001", 2), ok(X0, 9.0)));
      assertThat(second).isEqualTo(WriteResult.duplicate(id, first));
      assertThat(trustedValues(A, X0)).containsExactly(3.0);
    }

    @Test
    @DisplayName("a later attempt is stored when no earlier attempt's write landed")
    void aLaterAttemptIsStoredWhenTheFirstNeverLanded() {
      CiRunIdentity attempt2 = CiRunIdentity.of("acme/train", "9001", 2);
      WriteResult r = store.write(identified(A, 5, attempt2, ok(X0, 9.0)));
      assertThat(r.duplicate()).isFalse();
      assertThat(store.write(identified(A, 6, first, ok(X0, 1.0)))).isEqualTo(WriteResult.duplicate(r.runId(),
          attempt2));
      assertThat(trustedValues(A, X0)).containsExactly(9.0);
    }

    @Test
    @DisplayName("the key is the series, the repository and the run id")
    void otherSeriesRepositoriesAndRunsAreNotDuplicates() {
      assertThat(store.write(identified(A, 1, first, ok(X0, 1.0))).duplicate()).isFalse();
      assertThat(store.write(identified(B, 1, first, ok(X0, 2.0))).duplicate()).isFalse();
      assertThat(store.write(identified(A, 2, CiRunIdentity.of("acme/other", "9001", 1), ok(X0, 3.0))).duplicate())
          .isFalse();
      assertThat(store.write(identified(A, 3, CiRunIdentity.of("9001", 1), ok(X0, 4.0))).duplicate()).isFalse();
      assertThat(store.write(identified(A, 4, CiRunIdentity.of("acme/train", "9002", 1), ok(X0, 5.0))).duplicate())
          .isFalse();
      assertThat(trustedValues(A, X0)).containsExactly(5.0, 4.0, 3.0, 1.0);
      assertThat(trustedValues(B, X0)).containsExactly(2.0);
    }

    @Test
    @DisplayName("a revoked run still holds its CI run's place: a re-run does not replace it")
    void aRevokedRunStillCountsAsWritten() {
      RunId id = store.write(identified(A, 1, first, ok(X0, 3.0))).runId();
      store.revoke(new Revocation.ByRunId(id));
      assertThat(store.write(identified(A, 2, CiRunIdentity.of("acme/train", "9001", 2), ok(X0, 4.0))))
          .isEqualTo(WriteResult.duplicate(id, first));
      assertThat(trustedValues(A, X0)).isEmpty();
    }

    @Test
    @DisplayName("runs without an identity are stored every time")
    void unidentifiedWritesAreNotIdempotent() {
      store.write(run(A, 0, "1", "c", ok(X0, 1.0)));
      assertThat(store.write(run(A, 0, "1", "c", ok(X0, 1.0))).duplicate()).isFalse();
      assertThat(trustedValues(A, X0)).containsExactly(1.0, 1.0);
    }
  }

  @Nested
  @DisplayName("writing and reading")
  class WritingAndReading {
    @Test
    void aWrittenRunIsReadBackNewestFirst() {
      RunId first = store.write(run(A, 0, "1", "c1", ok(X0, 1.0), ok(X1, 10.0))).runId();
      RunId second = store.write(run(A, 1, "2", "c2", ok(X0, 2.0))).runId();
      assertThat(second.value()).isGreaterThan(first.value());
      CoordinateHistory h = read(A, X0);
      assertThat(h.trusted()).containsExactly(new HistorySample(second, T0.plusSeconds(60), 2.0, true),
          new HistorySample(first, T0, 1.0, true));
      assertThat(h.recent()).isEqualTo(h.trusted());
      assertThat(trustedValues(A, X1)).containsExactly(10.0);
    }

    @Test
    void readsAreLimitedPerCoordinate() {
      for (int i = 0; i < 30; i++) {
        store.write(run(A, i, "ci" + i, "c" + i, ok(X0, i), ok(Y, -i)));
      }
      Map<Coordinate, CoordinateHistory> h = store.read(A, Set.of(X0, Y), 20, 2);
      CoordinateHistory x0 = h.get(X0);
      CoordinateHistory y = h.get(Y);
      assertThat(x0).isNotNull();
      assertThat(y).isNotNull();
      assertThat(x0.trusted()).hasSize(20).first().extracting(HistorySample::value).isEqualTo(29.0);
      assertThat(x0.trusted()).last().extracting(HistorySample::value).isEqualTo(10.0);
      assertThat(y.recent()).extracting(HistorySample::value).containsExactly(-29.0, -28.0);
    }

    @Test
    void seriesAndCoordinatesNeverMix() {
      store.write(run(A, 0, "1", "c", ok(X0, 1.0)));
      store.write(run(B, 1, "2", "c", ok(X0, 2.0), ok(X1, 3.0)));
      assertThat(trustedValues(A, X0)).containsExactly(1.0);
      assertThat(trustedValues(B, X0)).containsExactly(2.0);
      assertThat(store.read(A, Set.of(X1, Y), 20, 20)).isEmpty();
    }

    @Test
    void untrustedSamplesAreStoredFlaggedAndNeverTrusted() {
      store.write(run(A, 0, "1", "c", ok(X0, 1.0)));
      store.write(run(A, 1, "2", "c", bad(X0, 9.0)));
      assertThat(trustedValues(A, X0)).containsExactly(1.0);
      assertThat(read(A, X0).recent()).extracting(HistorySample::value, HistorySample::trusted)
          .containsExactly(org.assertj.core.groups.Tuple.tuple(9.0, false), org.assertj.core.groups.Tuple.tuple(1.0, true));
    }

    @Test
    void aCoordinateWithOnlyUntrustedSamplesHasAnEmptyBaseline() {
      store.write(run(A, 0, "1", "c", bad(X0, 9.0)));
      CoordinateHistory h = read(A, X0);
      assertThat(h.trusted()).isEmpty();
      assertThat(h.recent()).hasSize(1);
    }

    @Test
    void aRunWithoutSamplesIsWritten() {
      RunId id = store.write(new RunRecord(A, Provenance.none(), T0, false, List.of())).runId();
      assertThat(id.value()).isPositive();
      assertThat(store.coordinates(A)).isEmpty();
    }
  }

  @Nested
  @DisplayName("ordering")
  class Ordering {
    @Test
    void newestMeansLatestCreatedAtNotLatestWritten() {
      store.write(run(A, 5, "1", "c", ok(X0, 5.0)));
      store.write(run(A, 1, "2", "c", ok(X0, 1.0)));
      store.write(run(A, 3, "3", "c", ok(X0, 3.0)));
      assertThat(trustedValues(A, X0)).containsExactly(5.0, 3.0, 1.0);
    }

    @Test
    void equalTimesAreOrderedByWrite() {
      store.write(run(A, 0, "1", "c", ok(X0, 1.0)));
      store.write(run(A, 0, "2", "c", ok(X0, 2.0)));
      assertThat(trustedValues(A, X0)).containsExactly(2.0, 1.0);
    }
  }

  @Nested
  @DisplayName("revocation")
  class Revocations {
    @Test
    void byRunIdIsCountedAndIdempotent() {
      RunId id = store.write(run(A, 0, "1", "c", ok(X0, 1.0), bad(X1, 2.0))).runId();
      assertThat(store.revoke(new Revocation.ByRunId(id))).isEqualTo(new RevocationResult(1, 1, 1));
      assertThat(store.revoke(new Revocation.ByRunId(id))).isEqualTo(new RevocationResult(1, 0, 0));
      assertThat(read(A, X0)).isEqualTo(CoordinateHistory.EMPTY);
    }

    @Test
    void byCiRunIdRevokesEveryRunOfThatCiRun() {
      store.write(run(A, 0, "77", "c1", ok(X0, 1.0)));
      store.write(run(B, 0, "77", "c1", ok(X0, 2.0), ok(Y, 3.0)));
      store.write(run(A, 1, "78", "c2", ok(X0, 4.0)));
      assertThat(store.revoke(new Revocation.ByCiRunId("77"))).isEqualTo(new RevocationResult(2, 2, 3));
      assertThat(trustedValues(A, X0)).containsExactly(4.0);
      assertThat(trustedValues(B, X0)).isEmpty();
    }

    @Test
    void byCommitRevokesEveryRunOfThatCommit() {
      store.write(run(A, 0, "1", "abc", ok(X0, 1.0)));
      store.write(run(A, 1, "2", "abc", ok(X0, 2.0)));
      store.write(run(A, 2, "3", "def", ok(X0, 3.0)));
      assertThat(store.revoke(new Revocation.ByCommit("abc"))).isEqualTo(new RevocationResult(2, 2, 2));
      assertThat(store.revoke(new Revocation.ByCommit("abc"))).isEqualTo(new RevocationResult(2, 0, 0));
      assertThat(trustedValues(A, X0)).containsExactly(3.0);
    }

    @Test
    void anUnknownKeyMatchesNothing() {
      store.write(run(A, 0, "1", "abc", ok(X0, 1.0)));
      assertThat(store.revoke(new Revocation.ByCommit("zzz"))).isEqualTo(new RevocationResult(0, 0, 0));
      assertThat(store.revoke(new Revocation.ByRunId(new RunId(999)))).isEqualTo(new RevocationResult(0, 0, 0));
    }

    @Test
    void exactlyOneKeyIsRequired() {
      assertThatThrownBy(() -> Revocation.exactlyOne(Optional.empty(), Optional.of("1"), Optional.of("abc")))
          .isInstanceOf(InvalidInputException.class)
          .hasMessage("a revocation needs exactly one of run id, CI run id or commit, got [CI run id 1, commit abc]");
      assertThatThrownBy(() -> Revocation.exactlyOne(Optional.empty(), Optional.empty(), Optional.of("")))
          .hasMessage("a revocation needs exactly one of run id, CI run id or commit, got none");
    }

    @Test
    void aRevokedRunLeavesTheRecentValuesAndTheFullHistoryToo() {
      RunId id = store.write(run(A, 0, "1", "c", bad(X0, 9.0))).runId();
      store.write(run(A, 1, "2", "c", ok(X0, 1.0)));
      store.revoke(new Revocation.ByRunId(id));
      assertThat(recentValues(A, X0)).containsExactly(1.0);
      assertThat(store.history(A, X0)).extracting(HistorySample::value).containsExactly(1.0);
    }
  }

  @Nested
  @DisplayName("level shifts")
  class LevelShifts {
    @Test
    void acceptingMakesTheShiftTrustedAndHidesTheOldLevel() {
      store.write(run(A, 0, "1", "c", ok(X0, 1.0), ok(X1, 1.0)));
      RunId s1 = store.write(run(A, 1, "2", "c", bad(X0, 2.0), ok(X1, 1.0))).runId();
      RunId s2 = store.write(run(A, 2, "3", "c", bad(X0, 2.1), ok(X1, 1.0))).runId();
      assertThat(store.acceptLevelShift(A, X0, List.of(s2, s1))).isEqualTo(2);
      assertThat(trustedValues(A, X0)).containsExactly(2.1, 2.0);
      assertThat(recentValues(A, X0)).containsExactly(2.1, 2.0);
      assertThat(trustedValues(A, X1)).containsExactly(1.0, 1.0, 1.0); // other coordinates keep their level
      assertThat(store.history(A, X0)).extracting(HistorySample::value).containsExactly(1.0, 2.0, 2.1);
    }

    @Test
    void acceptingIsIdempotent() {
      store.write(run(A, 0, "1", "c", ok(X0, 1.0)));
      RunId s1 = store.write(run(A, 1, "2", "c", bad(X0, 2.0))).runId();
      store.acceptLevelShift(A, X0, List.of(s1));
      assertThat(store.acceptLevelShift(A, X0, List.of(s1))).isZero();
      assertThat(trustedValues(A, X0)).containsExactly(2.0);
    }

    @Test
    void laterRunsStayVisible() {
      RunId s1 = store.write(run(A, 1, "2", "c", bad(X0, 2.0))).runId();
      store.write(run(A, 2, "3", "c", ok(X0, 2.2)));
      store.acceptLevelShift(A, X0, List.of(s1));
      store.write(run(A, 3, "4", "c", ok(X0, 2.1)));
      assertThat(trustedValues(A, X0)).containsExactly(2.1, 2.2, 2.0);
    }

    @Test
    void onlyExistingUnrevokedRunsOfTheSeriesWithASampleThereCanMakeALevel() {
      RunId a = store.write(run(A, 0, "1", "c", bad(X0, 2.0))).runId();
      RunId b = store.write(run(B, 0, "2", "c", bad(X0, 2.0))).runId();
      RunId r = store.write(run(A, 1, "3", "c", bad(X0, 2.0))).runId();
      store.revoke(new Revocation.ByRunId(r));
      assertThatThrownBy(() -> store.acceptLevelShift(A, X0, List.of())).isInstanceOf(InvalidInputException.class);
      assertThatThrownBy(() -> store.acceptLevelShift(A, X0, List.of(new RunId(999))))
          .isInstanceOf(InvalidInputException.class);
      assertThatThrownBy(() -> store.acceptLevelShift(A, X0, List.of(a, b))).isInstanceOf(InvalidInputException.class);
      assertThatThrownBy(() -> store.acceptLevelShift(A, X1, List.of(a))).isInstanceOf(InvalidInputException.class);
      assertThatThrownBy(() -> store.acceptLevelShift(A, X0, List.of(r))).isInstanceOf(InvalidInputException.class);
      assertThat(trustedValues(A, X0)).isEmpty(); // nothing changed
    }
  }

  @Nested
  @DisplayName("full history")
  class FullHistory {
    @Test
    void historyIsOldestFirstWithEveryTrust() {
      store.write(run(A, 2, "1", "c", bad(X0, 3.0)));
      store.write(run(A, 0, "2", "c", ok(X0, 1.0)));
      assertThat(store.history(A, X0)).extracting(HistorySample::value, HistorySample::trusted)
          .containsExactly(org.assertj.core.groups.Tuple.tuple(1.0, true), org.assertj.core.groups.Tuple.tuple(3.0, false));
      assertThat(store.history(B, X0)).isEmpty();
    }

    @Test
    void coordinatesAreListedInOrderOfFirstWrite() {
      store.write(run(A, 0, "1", "c", ok(Y, 1.0)));
      store.write(run(A, 1, "2", "c", ok(X0, 1.0), ok(Y, 1.0)));
      store.write(run(B, 1, "3", "c", ok(X1, 1.0)));
      assertThat(store.coordinates(A)).containsExactly(Y, X0);
      assertThat(store.coordinates(B)).containsExactly(X1);
    }
  }

  @Nested
  @DisplayName("model-based: generated command sequences agree with a reference model")
  class ModelBased {
    @Test
    void everyAnswerAndEveryReadAgreesWithTheReferenceModel() {
      qt().withExamples(60).forAll(lists().of(integers().between(0, Integer.MAX_VALUE)).ofSizeBetween(1, 40))
          .checkAssert(commands -> {
            MetricHistoryStore s = newStore();
            ReferenceModel m = new ReferenceModel();
            for (int code : commands) {
              ReferenceModel.apply(code, s, m);
              m.assertAgrees(s);
            }
          });
    }
  }

  /** The contract in a few lines: a list of runs, each with its samples' trust and a revoked flag. */
  static final class ReferenceModel {
    static final List<SeriesKey> SERIES = List.of(A, B);
    static final List<Coordinate> COORDINATES = List.of(X0, X1, Y);

    record Entry(Coordinate coordinate, double value) {}

    static final class Run {
      final long id;
      final SeriesKey series;
      final Instant at;
      final String ci;
      final String commit;
      final List<Entry> entries = new ArrayList<>();
      final List<Boolean> trusted = new ArrayList<>();
      boolean revoked;
      @Nullable CiRunIdentity identity;

      Run(long id, SeriesKey series, Instant at, String ci, String commit) {
        this.id = id;
        this.series = series;
        this.at = at;
        this.ci = ci;
        this.commit = commit;
      }

      int indexOf(Coordinate c) {
        for (int i = 0; i < entries.size(); i++) {
          if (entries.get(i).coordinate().equals(c)) {
            return i;
          }
        }
        return -1;
      }
    }

    final List<Run> runs = new ArrayList<>();
    final Map<String, Run> levelStarts = new java.util.HashMap<>();
    final List<RunId> ids = new ArrayList<>();
    /** The first stored write of each identified CI run, by series and run id (the repository is fixed). */
    final Map<String, Run> byIdentity = new java.util.HashMap<>();

    /** Decodes one generated integer into a command and applies it to the store and the model. */
    static void apply(int code, MetricHistoryStore s, ReferenceModel m) {
      int kind = code % 10;
      int a = (code / 10) % 1000;
      if (kind < 5) {
        SeriesKey series = SERIES.get(a % 2);
        int mask = 1 + (a / 2) % 7;
        double value = ((a / 14) % 7) * 0.5;
        boolean trusted = (a / 98) % 3 != 0;
        int minute = (code / 10_000) % 6;
        String ci = "ci" + (code / 60_000) % 3;
        String commit = "c" + (code / 180_000) % 3;
        List<Sample> samples = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
          if ((mask & (1 << i)) != 0) {
            samples.add(new Sample(COORDINATES.get(i), value + i, trusted && i != (a % 3)));
          }
        }
        Optional<CiRunIdentity> identity = (code / 540_000) % 4 < 2 ? Optional.empty()
            : Optional.of(CiRunIdentity.of("acme/train", ci, 1 + (code / 2_160_000) % 2));
        RunRecord r = new RunRecord(series, new Provenance(Optional.of(ci), Optional.of(commit),
            Optional.of("nightly"), identity), T0.plusSeconds(60L * minute), trusted, samples);
        WriteResult result = s.write(r);
        @Nullable Run first = identity.isEmpty() ? null : m.byIdentity.get(series + "|" + ci);
        if (first != null) {
          assertThat(result).as("a second write of %s", identity.get()).isEqualTo(WriteResult.duplicate(
              new RunId(first.id), java.util.Objects.requireNonNull(first.identity)));
          return;
        }
        RunId id = result.runId();
        assertThat(result.duplicate()).isFalse();
        assertThat(m.ids).allMatch(old -> old.value() < id.value());
        m.write(id, r);
      } else if (kind < 8) {
        Revocation rev = switch (kind) {
          case 5 -> new Revocation.ByRunId(m.ids.isEmpty() ? new RunId(1 + a) : m.ids.get(a % m.ids.size()));
          case 6 -> new Revocation.ByCiRunId("ci" + a % 3);
          default -> new Revocation.ByCommit("c" + a % 3);
        };
        assertThat(s.revoke(rev)).as("revoke %s", rev.describe()).isEqualTo(m.revoke(rev));
      } else {
        SeriesKey series = SERIES.get(a % 2);
        Coordinate c = COORDINATES.get((a / 2) % 3);
        List<RunId> candidates = new ArrayList<>();
        for (int i = m.runs.size() - 1; i >= 0 && candidates.size() < 1 + (a / 6) % 2; i--) {
          Run r = m.runs.get(i);
          if (r.series.equals(series) && !r.revoked && r.indexOf(c) >= 0) {
            candidates.add(m.ids.get(i));
          }
        }
        if (candidates.isEmpty()) {
          return;
        }
        assertThat(s.acceptLevelShift(series, c, candidates)).isEqualTo(m.accept(series, c, candidates));
      }
    }

    void write(RunId id, RunRecord r) {
      Run run = new Run(id.value(), r.series(), r.createdAt(), r.provenance().ciRunId().orElseThrow(),
          r.provenance().commit().orElseThrow());
      for (Sample sample : r.samples()) {
        run.entries.add(new Entry(sample.coordinate(), sample.value()));
        run.trusted.add(sample.trusted());
      }
      runs.add(run);
      ids.add(id);
      r.provenance().identity().ifPresent(i -> {
        run.identity = i;
        byIdentity.put(r.series() + "|" + i.runId(), run);
      });
    }

    RevocationResult revoke(Revocation rev) {
      int matched = 0;
      int revoked = 0;
      int samples = 0;
      for (Run r : runs) {
        boolean hit = rev instanceof Revocation.ByRunId b ? r.id == b.runId().value()
            : rev instanceof Revocation.ByCiRunId c ? r.ci.equals(c.ciRunId())
            : r.commit.equals(((Revocation.ByCommit) rev).commit());
        if (hit) {
          matched++;
          if (!r.revoked) {
            r.revoked = true;
            revoked++;
            samples += (int) r.trusted.stream().filter(t -> t).count();
          }
        }
      }
      return new RevocationResult(matched, revoked, samples);
    }

    int accept(SeriesKey series, Coordinate c, List<RunId> chosen) {
      int newly = 0;
      Run first = null;
      for (RunId id : chosen) {
        Run r = runs.get(ids.indexOf(id));
        int i = r.indexOf(c);
        if (!r.trusted.get(i)) {
          r.trusted.set(i, true);
          newly++;
        }
        if (first == null || before(r, first)) {
          first = r;
        }
      }
      if (first == null) {
        return newly;
      }
      String key = series + "|" + c;
      Run previous = levelStarts.get(key);
      if (previous == null || before(previous, first)) {
        levelStarts.put(key, first);
      }
      return newly;
    }

    static boolean before(Run x, Run y) {
      int t = x.at.compareTo(y.at);
      return t < 0 || (t == 0 && x.id < y.id);
    }

    /** Oldest first: every unrevoked sample of the coordinate. */
    List<HistorySample> history(SeriesKey series, Coordinate c, boolean fromLevelStart) {
      List<Run> ordered = new ArrayList<>(runs);
      ordered.sort((x, y) -> before(x, y) ? -1 : before(y, x) ? 1 : 0);
      Run start = fromLevelStart ? levelStarts.get(series + "|" + c) : null;
      List<HistorySample> out = new ArrayList<>();
      for (Run r : ordered) {
        int i = r.indexOf(c);
        if (!r.series.equals(series) || i < 0 || r.revoked || (start != null && before(r, start))) {
          continue;
        }
        out.add(new HistorySample(new RunId(r.id), r.at, r.entries.get(i).value(), r.trusted.get(i)));
      }
      return out;
    }

    void assertAgrees(MetricHistoryStore s) {
      for (SeriesKey series : SERIES) {
        Map<Coordinate, CoordinateHistory> read = s.read(series, Set.copyOf(COORDINATES), 3, 2);
        for (Coordinate c : COORDINATES) {
          List<HistorySample> visible = new ArrayList<>(history(series, c, true));
          java.util.Collections.reverse(visible);
          List<HistorySample> trusted = visible.stream().filter(HistorySample::trusted).limit(3).toList();
          List<HistorySample> recent = visible.stream().limit(2).toList();
          CoordinateHistory h = read.getOrDefault(c, CoordinateHistory.EMPTY);
          assertThat(h.trusted()).as("trusted %s %s", series, c).isEqualTo(trusted);
          assertThat(h.recent()).as("recent %s %s", series, c).isEqualTo(recent);
          assertThat(s.history(series, c)).as("history %s %s", series, c).isEqualTo(history(series, c, false));
        }
      }
    }
  }
}
