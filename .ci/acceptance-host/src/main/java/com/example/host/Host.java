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
import dev.cipolicy.queue.model.NewRequest;
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
}
