package dev.cipolicy.queue.tck;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cipolicy.queue.model.NewRequest;
import dev.cipolicy.queue.model.Request;
import dev.cipolicy.queue.model.RequestId;
import dev.cipolicy.queue.model.RequestKind;
import dev.cipolicy.queue.model.RequestState;
import dev.cipolicy.queue.spi.AttachResult;
import dev.cipolicy.queue.spi.SubmitResult;
import java.time.Duration;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The kit's contract for submitting requests and attaching artifacts: initial states, duplicate tags and PRs,
 * ids in submission order, the attach compare-and-set, the list of open requests.
 *
 * <p>{@link QueueStoreCompatibilityKit} runs it as its "Requests" group.
 */
abstract class RequestsContract extends KitGroup {

  RequestsContract(QueueStoreCompatibilityKit kit) {
    super(kit);
  }

  @Test
  @DisplayName("a master request is ready at creation, stamped with the clock's time")
  void masterIsReady() {
    Request r = submit(NewRequest.master("m1", "m0").withPr(7));
    assertThat(r.state()).isEqualTo(RequestState.ARTIFACTS_READY);
    assertThat(r.kind()).isEqualTo(RequestKind.MASTER);
    assertThat(r.createdAt()).isEqualTo(START);
    assertThat(reload(r)).isEqualTo(r);
  }

  @Test
  @DisplayName("a release request is ready at creation")
  void releaseIsReady() {
    assertThat(submit(NewRequest.release("1.80.0")).state()).isEqualTo(RequestState.ARTIFACTS_READY);
  }

  @Test
  @DisplayName("a try request without a SHA waits for artifacts; with a SHA it is ready")
  void tryStates() {
    assertThat(submit(NewRequest.tryAwaitingArtifacts(42)).state())
        .isEqualTo(RequestState.WAITING_FOR_ARTIFACTS);
    assertThat(submit(NewRequest.tryWithArtifacts(43, "t1", "m1")).state())
        .isEqualTo(RequestState.ARTIFACTS_READY);
  }

  @Test
  @DisplayName("submitting a tag that exists, of any kind, is a reported no-op")
  void duplicateTag() {
    Request first = submit(NewRequest.master("abc", null));
    SubmitResult again = queue.submit(NewRequest.release("abc"));
    assertThat(again.status()).isEqualTo(SubmitResult.Status.DUPLICATE_TAG);
    assertThat(again.request()).isEqualTo(first);
    assertThat(store.openRequests()).containsExactly(first);
  }

  @Test
  @DisplayName("a second open request for the same PR and kind is a reported no-op")
  void duplicateOpenPr() {
    Request first = submit(NewRequest.tryAwaitingArtifacts(42));
    SubmitResult again = queue.submit(NewRequest.tryWithArtifacts(42, "t2", "m1"));
    assertThat(again.status()).isEqualTo(SubmitResult.Status.DUPLICATE_OPEN_PR);
    assertThat(again.request()).isEqualTo(first);
    assertThat(queue.submit(NewRequest.master("m9", null).withPr(42)).status())
        .as("another kind of the same PR").isEqualTo(SubmitResult.Status.CREATED);
  }

  @Test
  @DisplayName("once its request is cancelled, a PR may submit again")
  void resubmitAfterCancel() {
    Request first = submit(NewRequest.tryAwaitingArtifacts(42));
    queue.cancel(first.id(), "superseded");
    assertThat(queue.submit(NewRequest.tryAwaitingArtifacts(42)).status()).isEqualTo(SubmitResult.Status.CREATED);
  }

  @Test
  @DisplayName("request ids increase in submission order")
  void idsIncrease() {
    Request a = submit(NewRequest.master("a", null));
    Request b = submit(NewRequest.master("b", "a"));
    assertThat(b.id()).isGreaterThan(a.id());
  }

  @Test
  @DisplayName("attaching a SHA to a waiting try makes it ready with that tag and parent")
  void attach() {
    Request t = submit(NewRequest.tryAwaitingArtifacts(42));
    clock.advance(Duration.ofMinutes(3));
    AttachResult result = queue.attachArtifacts(t.id(), "t1", "m1");
    assertThat(result.status()).isEqualTo(AttachResult.Status.ATTACHED);
    Request ready = result.request().orElseThrow();
    assertThat(ready.state()).isEqualTo(RequestState.ARTIFACTS_READY);
    assertThat(ready.tag()).contains("t1");
    assertThat(ready.parentSha()).contains("m1");
    assertThat(ready.createdAt()).isEqualTo(START);
    assertThat(store.requestByTag("t1")).contains(ready);
  }

  @Test
  @DisplayName("attaching is a guarded compare-and-set: a second attach changes nothing and says so")
  void attachTwice() {
    Request t = submit(NewRequest.tryAwaitingArtifacts(42));
    queue.attachArtifacts(t.id(), "t1", "m1");
    AttachResult second = queue.attachArtifacts(t.id(), "t2", "m1");
    assertThat(second.status()).isEqualTo(AttachResult.Status.NOT_WAITING);
    assertThat(reload(t).tag()).contains("t1");
    assertThat(store.requestByTag("t2")).isEmpty();
  }

  @Test
  @DisplayName("attaching a SHA another request has is refused; attaching to an unknown id is not found")
  void attachConflicts() {
    submit(NewRequest.master("m1", null));
    Request t = submit(NewRequest.tryAwaitingArtifacts(42));
    assertThat(queue.attachArtifacts(t.id(), "m1", "m0").status()).isEqualTo(AttachResult.Status.DUPLICATE_TAG);
    assertThat(reload(t).state()).isEqualTo(RequestState.WAITING_FOR_ARTIFACTS);
    assertThat(queue.attachArtifacts(RequestId.of(999), "x", "y").status())
        .isEqualTo(AttachResult.Status.NOT_FOUND);
  }

  @Test
  @DisplayName("open requests are listed by id; terminal ones are not")
  void openRequests() {
    Request a = submit(NewRequest.master("a", null));
    Request b = submit(NewRequest.tryAwaitingArtifacts(5));
    Request c = submit(NewRequest.release("r1"));
    queue.cancel(b.id(), "PR closed");
    assertThat(store.openRequests()).extracting(Request::id).containsExactly(a.id(), c.id());
    assertThat(store.request(RequestId.of(999))).isEmpty();
    assertThat(store.requestByTag("nope")).isEmpty();
  }
}
