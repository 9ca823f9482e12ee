package dev.cipolicy.benchmarks.fleet;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Deque;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.Random;

/**
 * Setup (a), today's static runners: every suite of a run is a matrix of its LPT shards, at most its
 * max-parallel at once, each shard queued on the runners of its label and run test after test. The split H200
 * node is three runners of 2, 2 and 4 GPUs (visible devices), the other nodes are one runner each, used whole;
 * the B200 node has {@link #LOCK_SLOTS} runners behind a whole-node file lock: jobs of up to 4 GPUs share it,
 * an 8-GPU job needs it alone, and waiting jobs retry in no particular order (a seeded shuffle), so a small job
 * can overtake a waiting 8-GPU one. Runners of a label take queued shards first in, first out.
 */
final class StaticFleet {
  /** The layout whose node is guarded by a whole-node lock rather than split. */
  static final String LOCKED_LAYOUT = "b200-whole";
  /** Runners registered on the locked node. */
  static final int LOCK_SLOTS = 2;

  private static final class Runner {
    final String name;
    final String key;
    boolean busy;

    Runner(String name, String key) {
      this.name = name;
      this.key = key;
    }
  }

  private static final class Shard {
    final Workload.SuiteRun suite;
    final List<Workload.Test> tests;
    final String key;
    Runner runner;

    Shard(Workload.SuiteRun suite, List<Workload.Test> tests, String key) {
      this.suite = suite;
      this.tests = tests;
      this.key = key;
    }
  }

  private record Event(long at, int order, long seq, Object what) {}

  private final Workload workload;
  private final Outcome out;
  private final Random random;
  private final Map<String, List<Runner>> runners = new LinkedHashMap<>();
  private final Map<String, Deque<Shard>> queued = new HashMap<>();
  private final Map<Workload.SuiteRun, int[]> matrix = new HashMap<>(); // {next shard, running}
  private final PriorityQueue<Event> events = new PriorityQueue<>((a, b) -> a.at != b.at ? Long.compare(a.at, b.at)
      : a.order != b.order ? Integer.compare(a.order, b.order) : Long.compare(a.seq, b.seq));
  private final List<Shard> lockWaiters = new ArrayList<>();
  private int lockUsed;
  private boolean lockExclusive;
  private long seq;
  private long now;

  private StaticFleet(Workload workload, long seed) {
    this.workload = workload;
    this.out = new Outcome("(a) static runners", workload.tests.size());
    this.random = new Random(seed ^ 0x5DEECE66DL);
    for (Workload.Host h : workload.hosts) {
      if (!h.layout().unpartitioned()) {
        int i = 0;
        for (int part : h.layout().partitions()) {
          add(new Runner(h.name() + "-" + part + "gpu-" + i++, h.layout().name() + "/" + part));
        }
      } else if (h.layout().name().equals(LOCKED_LAYOUT)) {
        for (int i = 0; i < LOCK_SLOTS; i++) {
          add(new Runner(h.name() + "-slot" + i, h.layout().name()));
        }
      } else {
        add(new Runner(h.name(), h.layout().name()));
      }
    }
  }

  private void add(Runner r) {
    runners.computeIfAbsent(r.key, k -> new ArrayList<>()).add(r);
  }

  static Outcome run(Workload workload, long seed) {
    StaticFleet fleet = new StaticFleet(workload, seed);
    fleet.simulate();
    return fleet.out;
  }

  private String keyOf(Workload.SuiteRun s) {
    for (Workload.Host h : workload.hosts) {
      if (h.layout().name().equals(s.layout())) {
        return h.layout().unpartitioned() ? s.layout() : s.layout() + "/" + s.gpus();
      }
    }
    throw new IllegalStateException("no host of layout " + s.layout() + " for suite " + s.suite());
  }

  private void simulate() {
    for (Workload.Run r : workload.runs) {
      events.add(new Event(r.at(), 1, seq++, r));
    }
    while (!events.isEmpty()) {
      Event e = events.poll();
      now = e.at;
      if (e.what instanceof Workload.Run r) {
        for (Workload.SuiteRun s : r.suites()) {
          String key = keyOf(s);
          if (!runners.containsKey(key)) {
            throw new IllegalStateException("no runner with label " + key + " for suite " + s.suite());
          }
          matrix.put(s, new int[2]);
          release(s);
        }
      } else if (e.what instanceof Shard done) {
        finish(done);
      }
    }
  }

  /** Queues the matrix's next shards up to its max-parallel. */
  private void release(Workload.SuiteRun s) {
    int[] m = matrix.get(s);
    while (m[0] < s.shards().size() && m[1] < s.maxParallel()) {
      Shard shard = new Shard(s, s.shards().get(m[0]++), keyOf(s));
      m[1]++;
      queued.computeIfAbsent(shard.key, k -> new ArrayDeque<>()).add(shard);
    }
    dispatch(keyOf(s));
  }

  private void dispatch(String key) {
    Deque<Shard> q = queued.get(key);
    if (q == null) {
      return;
    }
    for (Runner r : runners.get(key)) {
      if (q.isEmpty()) {
        return;
      }
      if (!r.busy) {
        Shard s = q.poll();
        r.busy = true;
        s.runner = r;
        if (key.equals(LOCKED_LAYOUT)) {
          lockWaiters.add(s);
          retryLock();
        } else {
          execute(s);
        }
      }
    }
  }

  private void retryLock() {
    List<Shard> order = new ArrayList<>(lockWaiters);
    Collections.shuffle(order, random);
    for (Shard s : order) {
      int gpus = s.suite.gpus();
      boolean ok = gpus > 4 ? lockUsed == 0 : !lockExclusive && lockUsed + gpus <= 8;
      if (ok) {
        lockUsed += gpus;
        lockExclusive = gpus > 4;
        lockWaiters.remove(s);
        execute(s);
      }
    }
  }

  private void execute(Shard s) {
    out.jobs++;
    if (s.suite.gpus() == 8) {
      out.eightGpuWaits.add(now - workload.runs.get(s.suite.run()).at());
    }
    String cadence = workload.runs.get(s.suite.run()).cadence();
    out.jobStarted(cadence, s.suite.pool(), s.suite.gpus());
    long t = now;
    for (Workload.Test test : s.tests) {
      out.ran(test, t, t + test.actual());
      t += test.actual();
    }
    events.add(new Event(t, 0, seq++, s));
  }

  private void finish(Shard s) {
    out.jobEnded(workload.runs.get(s.suite.run()).cadence(), s.suite.pool(), s.suite.gpus());
    s.runner.busy = false;
    matrix.get(s.suite)[1]--;
    if (s.key.equals(LOCKED_LAYOUT)) {
      lockUsed -= s.suite.gpus();
      lockExclusive = false;
      retryLock();
    }
    release(s.suite);
    dispatch(s.key);
  }
}
