package dev.cipolicy.queue;

import dev.cipolicy.queue.model.InvalidQueueInputException;
import dev.cipolicy.queue.model.Request;
import dev.cipolicy.queue.model.WaitReason;

/**
 * An open request that has not started and why ({@link QueueOrder#waitReasons}).
 *
 * @param request the request
 * @param reason why it is not running
 */
public record RequestWait(Request request, WaitReason reason) {

  /** Checks the components. */
  public RequestWait {
    if (request == null || reason == null) {
      throw new InvalidQueueInputException("a request wait needs a request and a reason; got " + request + ", "
          + reason);
    }
  }
}
