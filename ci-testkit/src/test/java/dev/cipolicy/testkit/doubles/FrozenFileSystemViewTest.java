package dev.cipolicy.testkit.doubles;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FrozenFileSystemViewTest {
  @TempDir
  Path tmp;

  Path sandbox;
  Path repo;
  Path host;
  FrozenFileSystemView view;

  @BeforeEach
  void layOut() throws Exception {
    sandbox = Files.createDirectories(tmp.resolve("sandbox"));
    repo = Files.createDirectories(tmp.resolve("repo"));
    host = Files.createDirectories(tmp.resolve("host-checkpoints"));
    Files.writeString(host.resolve("model.safetensors"), "weights");
    Files.writeString(repo.resolve("launch.yaml"), "steps: 3\n");
    Files.createDirectories(sandbox.resolve("cache"));
    view = FrozenFileSystemView.of(sandbox, repo);
  }

  @Test
  void hostPathsAreHidden() throws Exception {
    Path checkpoint = host.resolve("model.safetensors");
    assertThat(Files.exists(checkpoint)).as("really on the host").isTrue();

    assertThat(view.exists(checkpoint)).isFalse();
    assertThat(view.isRegularFile(checkpoint)).isFalse();
    assertThat(view.isDirectory(host)).isFalse();
    assertThat(view.exists(Path.of(System.getProperty("user.home")))).isFalse();
    assertThat(view.exists(Path.of(System.getProperty("java.home")))).isFalse();
    assertThatThrownBy(() -> view.readString(checkpoint))
        .isInstanceOf(NoSuchFileException.class)
        .hasMessageContaining("hidden by the frozen file system view");
    assertThatThrownBy(() -> view.list(host)).isInstanceOf(NoSuchFileException.class);
  }

  @Test
  void sandboxAndRepositoryPathsAreVisible() throws Exception {
    assertThat(view.exists(sandbox)).isTrue();
    assertThat(view.isDirectory(sandbox.resolve("cache"))).isTrue();
    assertThat(view.exists(sandbox.resolve("missing"))).isFalse();
    assertThat(view.readString(repo.resolve("launch.yaml"))).isEqualTo("steps: 3\n");
    assertThat(view.readString(Path.of("launch.yaml"))).as("relative to the repository").isEqualTo("steps: 3\n");
    assertThat(view.resolve("launch.yaml")).isEqualTo(repo.toAbsolutePath().normalize().resolve("launch.yaml"));
    assertThat(view.visibleRoots()).containsExactly(sandbox.toAbsolutePath().normalize(),
        repo.toAbsolutePath().normalize());
  }

  @Test
  void dotDotAndSymbolicLinksDoNotLeadOut() throws Exception {
    assertThat(view.exists(sandbox.resolve("../host-checkpoints/model.safetensors"))).isFalse();
    Path link = Files.createSymbolicLink(sandbox.resolve("ckpt"), host);
    assertThat(view.exists(link)).isFalse();
    assertThat(view.exists(link.resolve("model.safetensors"))).isFalse();
    assertThat(view.list(sandbox)).containsExactly(sandbox.resolve("cache"));
  }

  @Test
  void listingsAreSorted() throws Exception {
    for (String name : new String[] {"c", "a", "b"}) {
      Files.writeString(sandbox.resolve("cache").resolve(name), name);
    }
    assertThat(view.list(sandbox.resolve("cache"))).extracting(p -> p.getFileName().toString())
        .containsExactly("a", "b", "c");
  }

  @Test
  void moreRootsCanBeShown() {
    FrozenFileSystemView wider = FrozenFileSystemView.of(sandbox, repo, host);
    assertThat(wider.exists(host.resolve("model.safetensors"))).isTrue();
  }
}
