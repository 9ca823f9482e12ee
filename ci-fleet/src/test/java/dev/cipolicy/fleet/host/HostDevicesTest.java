package dev.cipolicy.fleet.host;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.cipolicy.queue.model.Devices;
import java.util.List;
import org.junit.jupiter.api.Test;

class HostDevicesTest {

  @Test
  void readsNvidiaSmiIndexLinesWithOrWithoutMoreFields() {
    assertThat(HostDevices.fromNvidiaSmi("0\n1\n2\n3\n").indices()).containsExactly(0, 1, 2, 3);
    assertThat(HostDevices.fromNvidiaSmi("0, GPU-5d1c, NVIDIA H200\r\n1, GPU-77aa, NVIDIA H200\r\n\n"))
        .isEqualTo(new Devices(List.of(0, 1), List.of()));
  }

  @Test
  void readsRocmSmiCsvWithPlainOrCardIndices() {
    assertThat(HostDevices.fromRocmSmi("device,Device ID\n0,0x75a0\n1,0x75a0\n").indices()).containsExactly(0, 1);
    assertThat(HostDevices.fromRocmSmi("device,GPU ID\ncard0,0x74a1\ncard3,0x74a1\n").indices())
        .containsExactly(0, 3);
  }

  @Test
  void refusesToolOutputWithoutGpusOrWithGarbage() {
    assertThatThrownBy(() -> HostDevices.fromNvidiaSmi("\n"))
        .isInstanceOf(InvalidHostException.class)
        .hasMessage("nvidia-smi listed no GPU; expected one line per GPU starting with its index");
    assertThatThrownBy(() -> HostDevices.fromNvidiaSmi("0\nNVIDIA-SMI has failed because it couldn't communicate\n"))
        .isInstanceOf(InvalidHostException.class)
        .hasMessageStartingWith("nvidia-smi output line 2: 'NVIDIA-SMI has failed because it couldn't communicate'"
            + " is not a device index");
    assertThatThrownBy(() -> HostDevices.fromRocmSmi("0,0x75a0\n"))
        .isInstanceOf(InvalidHostException.class)
        .hasMessageContaining("expected the CSV header starting with 'device'");
    assertThatThrownBy(() -> HostDevices.fromNvidiaSmi("0\n0\n"))
        .isInstanceOf(InvalidHostException.class)
        .hasMessage("nvidia-smi output list device 0 twice; expected each device once");
  }

  @Test
  void parsesWrittenListsRangesAndGroups() {
    assertThat(HostDevices.parse("0-7")).isEqualTo(Devices.count(8));
    assertThat(HostDevices.parse(" 0, 1 ,4-5")).isEqualTo(new Devices(List.of(0, 1, 4, 5), List.of()));
    assertThat(HostDevices.parse("4-7;0-3"))
        .isEqualTo(new Devices(List.of(0, 1, 2, 3, 4, 5, 6, 7), List.of(List.of(0, 1, 2, 3), List.of(4, 5, 6, 7))));
  }

  @Test
  void refusesBadWrittenLists() {
    assertThatThrownBy(() -> HostDevices.parse(""))
        .isInstanceOf(InvalidHostException.class).hasMessageContaining("are empty");
    assertThatThrownBy(() -> HostDevices.parse("0-3;3-7"))
        .isInstanceOf(InvalidHostException.class).hasMessageContaining("device 3 twice");
    assertThatThrownBy(() -> HostDevices.parse("7-0"))
        .isInstanceOf(InvalidHostException.class).hasMessageContaining("descending range");
    assertThatThrownBy(() -> HostDevices.parse("0-256"))
        .isInstanceOf(InvalidHostException.class).hasMessageContaining("device index 256 is out of range");
    assertThatThrownBy(() -> HostDevices.parse("0,,1"))
        .isInstanceOf(InvalidHostException.class).hasMessageContaining("item ''");
    assertThatThrownBy(() -> HostDevices.parse("x".repeat(HostDevices.MAX_TEXT + 1)))
        .isInstanceOf(InvalidHostException.class).hasMessageContaining("expected at most 65536");
    assertThatThrownBy(() -> HostDevices.parse("0\n;x"))
        .isInstanceOf(InvalidHostException.class)
        .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n"));
  }

  @Test
  void groupsMustHoldExactlyTheDetectedDevices() {
    Devices eight = HostDevices.fromNvidiaSmi("0\n1\n2\n3\n4\n5\n6\n7\n");
    assertThat(HostDevices.withGroups(eight, "0-3;4-7").groups()).hasSize(2);
    assertThatThrownBy(() -> HostDevices.withGroups(eight, "0-3;4-6"))
        .isInstanceOf(InvalidHostException.class)
        .hasMessage("groups '0-3;4-6' hold devices [0, 1, 2, 3, 4, 5, 6] but the host has [0, 1, 2, 3, 4, 5, 6, 7];"
            + " expected groups that hold each device exactly once");
  }
}
