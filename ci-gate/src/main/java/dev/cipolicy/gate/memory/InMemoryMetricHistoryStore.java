package dev.cipolicy.gate.memory;

import dev.cipolicy.api.InvalidInputException;
import dev.cipolicy.gate.CiRunIdentity;
import dev.cipolicy.gate.Coordinate;
import dev.cipolicy.gate.CoordinateHistory;
import dev.cipolicy.gate.HistorySample;
import dev.cipolicy.gate.MetricHistoryStore;
import dev.cipolicy.gate.Revocation;
import dev.cipolicy.gate.RevocationResult;
import dev.cipolicy.gate.RunId;
import dev.cipolicy.gate.RunRecord;
import dev.cipolicy.gate.Sample;
import dev.cipolicy.gate.SeriesKey;
import dev.cipolicy.gate.WriteResult;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * A {@link MetricHistoryStore} in memory, safe for concurrent use (every method is synchronized). Writes of
 * an identified CI run are idempotent per series (see {@link MetricHistoryStore#write}). Reads
 * cost one step per sample visited, newest first. {@link #snapshot()} and {@link #restore(Snapshot)} let a
 * host persist the whole state in its own format.
 *
 * <pre>{@code
 * MetricHistoryStore store = new InMemoryMetricHistoryStore();
 * }</pre>
 */
public final class InMemoryMetricHistoryStore implements MetricHistoryStore {
  private static final Comparator<Entry> ORDER =
      Comparator.comparing((Entry e) -> e.at).thenComparingLong(e -> e.run.id);

  private final Map<Long, Run> runs = new LinkedHashMap<>();
  private final Map<Key, List<Entry>> index = new HashMap<>();
  private final Map<SeriesKey, Set<Coordinate>> coordinates = new LinkedHashMap<>();
  private final Map<Key, Entry> levelStarts = new LinkedHashMap<>();
  private final Map<WriteKey, Run> byIdentity = new HashMap<>();
  private long nextId = 1;

  private record Key(SeriesKey series, Coordinate coordinate) {}

  /** What makes two writes the same CI run's: the series, repository and run id (not the attempt). */
  private record WriteKey(SeriesKey series, Optional<String> repository, String runId) {
    static Optional<WriteKey> of(RunRecord run) {
      return run.provenance().identity().map(i -> new WriteKey(run.series(), i.repository(), i.runId()));
    }
  }

  private static final class Run {
    final long id;
    final RunRecord record;
    final Map<Coordinate, Entry> entries = new LinkedHashMap<>();
    boolean revoked;

    Run(long id, RunRecord record) {
      this.id = id;
      this.record = record;
    }
  }

  private static final class Entry {
    final Run run;
    final Instant at;
    final double value;
    boolean trusted;

    Entry(Run run, double value, boolean trusted) {
      this.run = run;
      this.at = run.record.createdAt();
      this.value = value;
      this.trusted = trusted;
    }

    HistorySample sample() {
      return new HistorySample(new RunId(run.id), at, value, trusted && !run.revoked);
    }
  }

  /**
   * A stored run as the store holds it now: its samples carry their current trust.
   *
   * @param id the run's id
   * @param run the run, with each sample's current trust flag
   * @param revoked whether the run was revoked
   */
  public record StoredRun(RunId id, RunRecord run, boolean revoked) {}

  /**
   * An accepted level shift: the coordinate's history starts at this run's sample.
   *
   * @param series the series
   * @param coordinate the coordinate
   * @param firstRun the run of the oldest visible sample
   */
  public record LevelStart(SeriesKey series, Coordinate coordinate, RunId firstRun) {}

  /**
   * The whole state of a store.
   *
   * @param runs every run, in id order
   * @param levelStarts every accepted level shift
   */
  public record Snapshot(List<StoredRun> runs, List<LevelStart> levelStarts) {
    /** Copies the lists. */
    public Snapshot {
      runs = List.copyOf(runs);
      levelStarts = List.copyOf(levelStarts);
    }
  }

  /** An empty store. */
  public InMemoryMetricHistoryStore() {}

  /**
   * A store holding a snapshot's state; new runs get ids after the largest restored one.
   *
   * @param snapshot the state
   * @return the store
   * @throws InvalidInputException when run ids repeat or a level start names a run without a sample there
   */
  public static InMemoryMetricHistoryStore restore(Snapshot snapshot) {
    InMemoryMetricHistoryStore store = new InMemoryMetricHistoryStore();
    List<StoredRun> ordered = new ArrayList<>(snapshot.runs());
    ordered.sort(Comparator.comparingLong(r -> r.id().value()));
    for (StoredRun r : ordered) {
      if (store.runs.containsKey(r.id().value())) {
        throw new InvalidInputException("run id " + r.id() + " appears twice in the snapshot");
      }
      Optional<WriteKey> key = WriteKey.of(r.run());
      if (key.isPresent() && store.byIdentity.containsKey(key.get())) {
        throw new InvalidInputException("runs " + store.byIdentity.get(key.get()).id + " and " + r.id()
            + " of the snapshot are writes of the same CI run (" + r.run().provenance().identity().orElseThrow()
            + ") for " + r.run().series());
      }
      store.insert(r.id().value(), r.run()).revoked = r.revoked();
      store.nextId = r.id().value() + 1;
    }
    for (LevelStart l : snapshot.levelStarts()) {
      Entry e = store.entry(l.series(), l.coordinate(), l.firstRun());
      store.levelStarts.put(new Key(l.series(), l.coordinate()), e);
    }
    return store;
  }

  /**
   * The whole state, for a host to persist.
   *
   * @return every run with its current sample trust, and every accepted level shift
   */
  public synchronized Snapshot snapshot() {
    List<StoredRun> out = new ArrayList<>();
    for (Run r : runs.values()) {
      List<Sample> samples = new ArrayList<>();
      r.entries.forEach((c, e) -> samples.add(new Sample(c, e.value, e.trusted)));
      RunRecord rec = new RunRecord(r.record.series(), r.record.provenance(), r.record.createdAt(),
          r.record.trusted(), samples);
      out.add(new StoredRun(new RunId(r.id), rec, r.revoked));
    }
    List<LevelStart> starts = new ArrayList<>();
    levelStarts.forEach((k, e) -> starts.add(new LevelStart(k.series(), k.coordinate(), new RunId(e.run.id))));
    return new Snapshot(out, starts);
  }

  private Run insert(long id, RunRecord record) {
    Run run = new Run(id, record);
    for (Sample s : record.samples()) {
      Entry e = new Entry(run, s.value(), s.trusted());
      run.entries.put(s.coordinate(), e);
      List<Entry> list = index.computeIfAbsent(new Key(record.series(), s.coordinate()), k -> new ArrayList<>());
      int at = list.size();
      while (at > 0 && ORDER.compare(list.get(at - 1), e) > 0) {
        at--;
      }
      list.add(at, e);
      coordinates.computeIfAbsent(record.series(), k -> new LinkedHashSet<>()).add(s.coordinate());
    }
    runs.put(id, run);
    WriteKey.of(record).ifPresent(k -> byIdentity.put(k, run));
    return run;
  }

  private Entry entry(SeriesKey series, Coordinate coordinate, RunId runId) {
    Run run = runs.get(runId.value());
    if (run == null) {
      throw new InvalidInputException("no run with id " + runId);
    }
    if (!run.record.series().equals(series)) {
      throw new InvalidInputException("run " + runId + " belongs to " + run.record.series() + ", not " + series);
    }
    Entry e = run.entries.get(coordinate);
    if (e == null) {
      throw new InvalidInputException("run " + runId + " has no sample at " + coordinate);
    }
    return e;
  }

  private boolean visible(Key key, Entry e) {
    if (e.run.revoked) {
      return false;
    }
    Entry start = levelStarts.get(key);
    return start == null || ORDER.compare(e, start) >= 0;
  }

  @Override
  public synchronized Map<Coordinate, CoordinateHistory> read(SeriesKey series, Set<Coordinate> wanted,
      int trustedLimit, int recentLimit) {
    Map<Coordinate, CoordinateHistory> out = new LinkedHashMap<>();
    for (Coordinate c : wanted) {
      Key key = new Key(series, c);
      List<Entry> list = index.get(key);
      if (list == null) {
        continue;
      }
      Entry start = levelStarts.get(key);
      List<HistorySample> trusted = new ArrayList<>();
      List<HistorySample> recent = new ArrayList<>();
      for (int i = list.size() - 1; i >= 0 && (trusted.size() < trustedLimit || recent.size() < recentLimit); i--) {
        Entry e = list.get(i);
        if (start != null && ORDER.compare(e, start) < 0) {
          break;
        }
        if (e.run.revoked) {
          continue;
        }
        if (recent.size() < recentLimit) {
          recent.add(e.sample());
        }
        if (e.trusted && trusted.size() < trustedLimit) {
          trusted.add(e.sample());
        }
      }
      if (!trusted.isEmpty() || !recent.isEmpty() || list.stream().anyMatch(e -> visible(key, e))) {
        out.put(c, new CoordinateHistory(trusted, recent));
      }
    }
    return out;
  }

  @Override
  public synchronized WriteResult write(RunRecord run) {
    if (run == null) {
      throw new InvalidInputException("a run to write must not be null");
    }
    Optional<WriteKey> key = WriteKey.of(run);
    if (key.isPresent()) {
      Run first = byIdentity.get(key.get());
      if (first != null) {
        CiRunIdentity firstIdentity = first.record.provenance().identity().orElseThrow();
        return WriteResult.duplicate(new RunId(first.id), firstIdentity);
      }
    }
    long id = nextId++;
    insert(id, run);
    return WriteResult.stored(new RunId(id));
  }

  @Override
  public synchronized RevocationResult revoke(Revocation revocation) {
    List<Run> matched = new ArrayList<>();
    if (revocation instanceof Revocation.ByRunId r) {
      Run run = runs.get(r.runId().value());
      if (run != null) {
        matched.add(run);
      }
    } else if (revocation instanceof Revocation.ByCiRunId r) {
      runs.values().stream().filter(x -> x.record.provenance().ciRunId().equals(Optional.of(r.ciRunId())))
          .forEach(matched::add);
    } else if (revocation instanceof Revocation.ByCommit r) {
      runs.values().stream().filter(x -> x.record.provenance().commit().equals(Optional.of(r.commit())))
          .forEach(matched::add);
    } else {
      throw new InvalidInputException("a revocation needs exactly one key");
    }
    int revoked = 0;
    int samples = 0;
    for (Run run : matched) {
      if (!run.revoked) {
        run.revoked = true;
        revoked++;
        samples += (int) run.entries.values().stream().filter(e -> e.trusted).count();
      }
    }
    return new RevocationResult(matched.size(), revoked, samples);
  }

  @Override
  public synchronized int acceptLevelShift(SeriesKey series, Coordinate coordinate, List<RunId> runIds) {
    if (runIds.isEmpty()) {
      throw new InvalidInputException("a level shift needs at least one run");
    }
    List<Entry> entries = new ArrayList<>();
    for (RunId id : runIds) {
      Entry e = entry(series, coordinate, id);
      if (e.run.revoked) {
        throw new InvalidInputException("run " + id + " is revoked; a revoked run cannot make a new level");
      }
      entries.add(e);
    }
    int newlyTrusted = 0;
    Entry first = entries.get(0);
    for (Entry e : entries) {
      if (!e.trusted) {
        e.trusted = true;
        newlyTrusted++;
      }
      if (ORDER.compare(e, first) < 0) {
        first = e;
      }
    }
    Key key = new Key(series, coordinate);
    Entry previous = levelStarts.get(key);
    if (previous == null || ORDER.compare(first, previous) > 0) {
      levelStarts.put(key, first);
    }
    return newlyTrusted;
  }

  @Override
  public synchronized List<HistorySample> history(SeriesKey series, Coordinate coordinate) {
    List<HistorySample> out = new ArrayList<>();
    for (Entry e : index.getOrDefault(new Key(series, coordinate), List.of())) {
      if (!e.run.revoked) {
        out.add(e.sample());
      }
    }
    return out;
  }

  @Override
  public synchronized List<Coordinate> coordinates(SeriesKey series) {
    return List.copyOf(coordinates.getOrDefault(series, Set.of()));
  }
}
