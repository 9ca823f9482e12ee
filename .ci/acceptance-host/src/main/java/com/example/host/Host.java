package com.example.host;

import dev.cipolicy.api.run.RunPolicy;
import dev.cipolicy.api.run.TriggerInput;
import dev.cipolicy.api.run.TriggerResolution;
import dev.cipolicy.core.load.LoadedPolicy;
import dev.cipolicy.core.load.PolicyLoader;
import dev.cipolicy.queue.CollectorTarget;
import dev.cipolicy.queue.JobQueue;
import dev.cipolicy.queue.QueueSettings;
import dev.cipolicy.queue.TickResult;
import dev.cipolicy.queue.model.Devices;
import dev.cipolicy.queue.model.JobSpec;
import dev.cipolicy.queue.model.JobWait;
import dev.cipolicy.queue.model.NewRequest;
import dev.cipolicy.queue.model.WaitReason;
import dev.cipolicy.queue.placement.PoolView;
import java.time.Duration;
import java.time.Clock;

/** A host using the policy engine and the in-memory job queue through their public API only. */
public final class Host {
  private Host() {}

  /**
   * Resolves a scheduled run of a policy document.
   *
   * @param yaml the policy document
   * @return the run policy and why, in one sentence
   */
  public static String resolveScheduled(String yaml) {
    LoadedPolicy loaded = PolicyLoader.load("policy.yaml", yaml);
    TriggerResolution resolution = loaded.resolver()
        .resolve(TriggerInput.builder().eventName("schedule").schedule("0 15 * * 6").build());
    RunPolicy run = resolution.runPolicy();
    return run.cadence() + ": " + resolution.explanation().sentence();
  }

  /**
   * Submits one master request to an in-memory queue and ticks it.
   *
   * @return how many requests the tick started
   */
  public static int submitAndTick() {
    QueueSettings settings = QueueSettings.builder().addBenchmarkGroups("compile")
        .addCollectorTargets(CollectorTarget.required("x86_64")).build();
    JobQueue queue = JobQueue.inMemory(Clock.systemUTC(), settings);
    queue.submit(NewRequest.master("0123456789abcdef", null).withBenchmarkGroups("compile"));
    TickResult tick = queue.tick();
    return tick.started().size();
  }

  /**
   * Registers a host with two devices, queues an 8-GPU job that no host fits, and reads the pool's view.
   *
   * @return the wait reason's kind and the largest host it names
   */
  public static String waitingGpuJob() {
    JobSpec eight = JobSpec.builder().benchmarkGroup("train").collectorTag("h200").gpus(8)
        .estimate(Duration.ofMinutes(30)).cadence("nightly").build();
    QueueSettings settings = QueueSettings.builder().planner(request -> java.util.List.of(eight)).build();
    JobQueue queue = JobQueue.inMemory(Clock.systemUTC(), settings);
    queue.registerHost("h200-0", "h200", Devices.count(2));
    queue.submit(NewRequest.release("v1"));
    queue.tick();
    PoolView view = queue.pool("h200");
    JobWait wait = view.waits().get(0);
    WaitReason reason = wait.reason();
    return reason.kind() + " " + reason.largestHost().orElse(-1);
  }
}
