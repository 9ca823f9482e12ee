package dev.cipolicy.fleet.job;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class CiJobArgsTest {

  private static final String SHA = "0123456789abcdef0123456789abcdef01234567";

  private static CiJob.Builder job() {
    return CiJob.builder().repository("acme/trainer").commit(SHA)
        .command(List.of("python", "tests/ci/run_suite.py", "--suite", "stage-b", "--labels", "a, b"))
        .env(Map.of("CI_CADENCE", "nightly"))
        .deviceEnv(List.of("HIP_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES"));
  }

  @Test
  void writesTheDocumentedJsonAndReadsItBack() {
    CiJob j = job().image("ghcr.io/acme/ci:2026.12").build();
    String json = CiJobArgs.write(j);
    assertThat(json).isEqualTo("{\"v\":1,\"repository\":\"acme/trainer\",\"commit\":\"" + SHA + "\","
        + "\"command\":[\"python\",\"tests/ci/run_suite.py\",\"--suite\",\"stage-b\",\"--labels\",\"a, b\"],"
        + "\"env\":{\"CI_CADENCE\":\"nightly\"},\"deviceEnv\":[\"HIP_VISIBLE_DEVICES\",\"ROCR_VISIBLE_DEVICES\"],"
        + "\"image\":\"ghcr.io/acme/ci:2026.12\"}");
    assertThat(CiJobArgs.read(json)).isEqualTo(j);
    CiJob bare = CiJobArgs.read("{\"v\":1,\"repository\":\"a/b\",\"commit\":\"" + SHA + "\",\"command\":[\"true\"]}");
    assertThat(bare.env()).isEmpty();
    assertThat(bare.deviceEnv()).isEmpty();
    assertThat(bare.image()).isEmpty();
  }

  @Test
  void readingRefusesWhatACollectorShouldNotGuessAt() {
    String base = "\"repository\":\"a/b\",\"commit\":\"" + SHA + "\",\"command\":[\"true\"]";
    assertRefused("{\"v\":2," + base + "}", "the arguments are of version 2; expected 1");
    assertRefused("{\"v\":1," + base + ",\"shell\":\"rm -rf /\"}", "the arguments have an unknown field 'shell'");
    assertRefused("{\"v\":1," + base + ",\"commit\":\"" + SHA + "\"}", "the arguments give field 'commit' twice");
    assertRefused("{\"v\":1,\"repository\":\"a/b\",\"commit\":\"" + SHA + "\"}", "the arguments have no field 'command'");
    assertRefused("{\"v\":1," + base.replace("[\"true\"]", "\"true\"") + "}", "field 'command' is not an array");
    assertRefused("{\"v\":1," + base + ",\"env\":{\"A\":1}}", "field 'env.A' is not a string");
    assertRefused("{\"v\":1," + base + "} {}", "the arguments have text after their object");
    assertRefused("[1]", "the arguments are not a JSON object");
    assertRefused("{\"v\":1,", "the arguments are not valid JSON");
    assertRefused("{\"v\":1," + base + ",\"env\":{\"CUDA_VISIBLE_DEVICES\":\"0\"},\"deviceEnv\":[\"CUDA_VISIBLE_DEVICES\"]}",
        "env sets CUDA_VISIBLE_DEVICES, which carries the granted devices");
    assertRefused("x".repeat(CiJobArgs.MAX_CHARS + 1), "expected at most 65536");
  }

  @Test
  void buildingChecksEveryRuleWithOneLine() {
    assertThatThrownBy(() -> job().commit("HEAD").build()).isInstanceOf(InvalidCiJobException.class)
        .hasMessage("commit 'HEAD' is not a full SHA; expected 40 or 64 lowercase hex digits");
    assertThatThrownBy(() -> job().repository("../x").build()).isInstanceOf(InvalidCiJobException.class);
    assertThatThrownBy(() -> job().command(List.of()).build()).isInstanceOf(InvalidCiJobException.class)
        .hasMessage("command is empty; expected a program and its arguments");
    assertThatThrownBy(() -> job().env(Map.of("BAD NAME", "x")).build()).isInstanceOf(InvalidCiJobException.class)
        .hasMessageContaining("names variable 'BAD NAME'");
    assertThatThrownBy(() -> job().command(List.of("a\0b")).build()).isInstanceOf(InvalidCiJobException.class)
        .hasMessage("command argument 0 holds a NUL character");
    assertThatThrownBy(() -> job().image("--privileged").build()).isInstanceOf(InvalidCiJobException.class);
    assertThatThrownBy(() -> CiJobArgs.write(job().command(java.util.Collections.nCopies(200, "y".repeat(400))).build()))
        .isInstanceOf(InvalidCiJobException.class).hasMessageContaining("expected at most 65536");
  }

  private static void assertRefused(String json, String message) {
    assertThatThrownBy(() -> CiJobArgs.read(json)).isInstanceOf(InvalidCiJobException.class)
        .hasMessageContaining(message)
        .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n"));
  }
}
