package dev.cipolicy.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * The parts of a GitHub Actions event payload (the webhook JSON at {@code $GITHUB_EVENT_PATH}) that
 * {@code resolve} reads. Only the fields below are looked at; every other field is ignored. Errors name the
 * file and the field.
 *
 * <ul>
 *   <li>{@code pull_request}: {@code pull_request} must be an object; its labels are
 *       {@code pull_request.labels[*].name} (a missing or {@code null} {@code labels} is no label); the PR
 *       number is {@code pull_request.number}, else the top-level {@code number}; the action is
 *       {@code action}.
 *   <li>{@code schedule}: the cron is the top-level {@code schedule} string.
 *   <li>{@code workflow_dispatch}: the dispatch's cadence is {@code inputs.cadence}, a string (a missing,
 *       {@code null} or empty one is none); {@code inputs} must be an object when present.
 * </ul>
 *
 * @param prLabels the PR's label names, in payload order; empty when the event is not a pull request
 * @param prNumber the PR number, if the payload has one
 * @param action the webhook action ({@code opened}, {@code labeled}, ...), if present
 * @param schedule the cron of a scheduled run, if present
 * @param dispatchCadence the {@code cadence} input of a manual dispatch, if present and non-empty
 */
record GithubEvent(Optional<List<String>> prLabels, OptionalLong prNumber, Optional<String> action,
    Optional<String> schedule, Optional<String> dispatchCadence) {

  /** Parses a payload file's text for the named event. */
  static GithubEvent parse(String file, String text, String eventName) {
    ConcurrencyJson.Reader r = new ConcurrencyJson.Reader(file);
    JsonNode root = r.parse(text);
    if (!root.isObject()) {
      throw r.error("", "expected the event payload, a JSON object, found " + ConcurrencyJson.Reader.describe(root));
    }
    Optional<String> action = r.optionalString(root, "action");
    Optional<String> schedule = r.optionalString(root, "schedule");
    Optional<List<String>> labels = Optional.empty();
    OptionalLong number = r.prNumber(root, "number");
    if (eventName.equals("pull_request") || eventName.equals("pull_request_target")) {
      JsonNode pr = root.get("pull_request");
      if (pr == null || pr.isNull()) {
        throw r.error("pull_request", "missing required field for a " + eventName + " event");
      }
      if (!pr.isObject()) {
        throw r.error("pull_request", "expected an object, found " + ConcurrencyJson.Reader.describe(pr));
      }
      OptionalLong prNumber = r.prNumber(pr, "pull_request.number");
      if (prNumber.isPresent()) {
        number = prNumber;
      }
      labels = Optional.of(labels(r, pr));
    }
    Optional<String> cadence = Optional.empty();
    JsonNode inputs = root.get("inputs");
    if (eventName.equals("workflow_dispatch") && inputs != null && !inputs.isNull()) {
      if (!inputs.isObject()) {
        throw r.error("inputs", "expected an object, found " + ConcurrencyJson.Reader.describe(inputs));
      }
      cadence = r.optionalString(inputs, "inputs.cadence");
    }
    return new GithubEvent(labels, number, action, schedule, cadence);
  }

  private static List<String> labels(ConcurrencyJson.Reader r, JsonNode pr) {
    JsonNode node = pr.get("labels");
    List<String> names = new ArrayList<>();
    if (node == null || node.isNull()) {
      return names;
    }
    if (!node.isArray()) {
      throw r.error("pull_request.labels", "expected an array of label objects, found "
          + ConcurrencyJson.Reader.describe(node));
    }
    for (int i = 0; i < node.size(); i++) {
      String at = "pull_request.labels[" + i + "]";
      JsonNode label = node.get(i);
      if (!label.isObject()) {
        throw r.error(at, "expected a label object with a name, found " + ConcurrencyJson.Reader.describe(label));
      }
      names.add(r.requiredString(label, at + ".name"));
    }
    return names;
  }
}
