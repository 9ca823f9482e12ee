package dev.cipolicy.queue.spi;

/**
 * Why a queued job (or a request that has not started) is not running: a kind to act on and a sentence to
 * show, such as "needs 8 GPUs; host b200-0 reserved for it, 3 of 8 free".
 *
 * @param kind the kind of reason
 * @param sentence the reason as one plain sentence, naming the pool, host, job and counts it depends on
 */
public record WaitReason(Kind kind, String sentence) {

  /** The kinds of reasons a queued job waits. */
  public enum Kind {
    /** It could be claimed now: it waits for a collector's next claim. */
    CLAIMABLE,
    /** No live collector of its pool could run it (for a GPU job: none advertises devices). */
    NO_LIVE_COLLECTOR,
    /** It needs more GPUs than any live host of its pool has. */
    NO_HOST_LARGE_ENOUGH,
    /** An older job of its pool needs as many GPUs and is placed first. */
    BEHIND_OLDER_JOB,
    /** No host of its pool has as many free devices as it needs. */
    NO_FREE_DEVICES,
    /**
     * Its cadence's fleet share of the pool is full: its live leases hold too much of the pool to take this
     * job (or it borrows and another cadence waits). It is claimed once enough of them end. A job that held its
     * pool's reservation when its share refused it keeps that reservation, dormant, and its sentence ends with
     * "keeps the reservation of host H for when its share admits it".
     */
    SHARE_FULL,
    /**
     * It holds its pool's reservation: a host is reserved for it until enough devices free up, and stays
     * reserved for it until it starts (a job that becomes eligible later, even an older one, does not take it,
     * except the job that held the reservation before its share refused it: while that job waits for its share,
     * the head among the others is reserved for claim by claim and gives the host back when that job returns).
     */
    RESERVED_FOR_IT,
    /** Devices are free on a host reserved for another job, and this job would end after the reservation. */
    HOST_RESERVED,
    /** A request: the next to start, at the site's next tick. */
    NEXT_TO_START,
    /** A request: the next to start, but the cap of requests in progress is reached. */
    CAP_REACHED,
    /** A request: its parent is a ready request placed before it. */
    WAITING_FOR_PARENT,
    /** A request: other ready requests are placed before it. */
    BEHIND_OLDER_REQUEST,
    /** A try request: its artifacts are not attached yet. */
    WAITING_FOR_ARTIFACTS
  }

  /** Checks the components. */
  public WaitReason {
    Checks.present(kind, "wait reason kind");
    Checks.present(sentence, "wait reason sentence");
  }
}
