package dev.cipolicy.architecture;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The documentation's links hold: every relative link of {@code README.md}, {@code CHANGELOG.md} and
 * {@code docs/**.md} names a file
 * that exists and, with an anchor on a Markdown page, a heading of that page; and the README's documentation
 * list names every page under {@code docs/}.
 */
class DocsLinksTest {

  private static final Path ROOT = repositoryRoot();

  @Test
  void everyRelativeLinkOfTheDocsResolves() {
    DocsLinks links = new DocsLinks();
    List<String> broken = new ArrayList<>();
    for (Path page : DocsLinks.pages(ROOT)) {
      broken.addAll(links.broken(ROOT, page));
    }
    assertThat(broken).as("broken links in README.md, CHANGELOG.md and docs/").isEmpty();
  }

  @Test
  void theReadmeListsEveryPageUnderDocs() {
    assertThat(DocsLinks.unlistedInReadme(ROOT)).as("pages under docs/ that README.md does not link to")
        .isEmpty();
  }

  @Test
  void aMissingFileAndAMissingHeadingAreReportedWithTheirLine(@TempDir Path dir) throws IOException {
    Files.createDirectories(dir.resolve("docs"));
    write(dir.resolve("docs/target.md"), "# Target\n\n## The `QueueStore` contract\n\n## Runs\n\n## Runs\n");
    Path page = dir.resolve("docs/page.md");
    write(page, String.join("\n",
        "# Page",
        "[ok](target.md#the-queuestore-contract) [ok too](target.md#runs-1) [self](#page) [web](https://x.y/z)",
        "[gone](missing.md)",
        "[no heading](target.md#nothing-here)",
        "`[in code](missing.md)`",
        "```",
        "[in a fence](missing.md)",
        "```",
        ""));
    List<String> broken = new DocsLinks().broken(dir, page);
    assertThat(broken).containsExactly(
        "docs/page.md:3: missing.md: no such file docs/missing.md",
        "docs/page.md:4: target.md#nothing-here: no heading with anchor #nothing-here in docs/target.md");
  }

  @Test
  void anchorsFollowGitHubsRules() {
    assertThat(DocsLinks.slug("Single-file reruns (`/rerun-test <file>`)"))
        .isEqualTo("single-file-reruns-rerun-test-file");
    assertThat(DocsLinks.slug("workflows.&lt;name&gt;.roles")).isEqualTo("workflowsnameroles");
    assertThat(DocsLinks.slug("A long backlog: 150,000 jobs at 32 threads"))
        .isEqualTo("a-long-backlog-150000-jobs-at-32-threads");
    assertThat(DocsLinks.slug("Rule 5: fleet shares and borrowing")).isEqualTo("rule-5-fleet-shares-and-borrowing");
    assertThat(DocsLinks.anchorsOf(List.of("# A", "```", "# not a heading", "```", "## A", "## label_prefix")))
        .containsExactly("a", "a-1", "label_prefix");
  }

  @Test
  void aDocsPageMissingFromTheReadmeIsReported(@TempDir Path dir) throws IOException {
    Files.createDirectories(dir.resolve("docs/lab"));
    write(dir.resolve("docs/listed.md"), "# Listed\n");
    write(dir.resolve("docs/lab/forgotten.md"), "# Forgotten\n");
    write(dir.resolve("README.md"), "- [docs/listed.md](docs/listed.md)\n");
    assertThat(DocsLinks.unlistedInReadme(dir)).containsExactly("docs/lab/forgotten.md");
  }

  private static void write(Path file, String text) throws IOException {
    Files.writeString(file, text, StandardCharsets.UTF_8);
  }

  /** The checkout's root: the nearest directory above the working directory with README.md and docs/. */
  private static Path repositoryRoot() {
    for (Path p = Path.of("").toAbsolutePath(); p != null; p = p.getParent()) {
      if (Files.isRegularFile(p.resolve("README.md")) && Files.isDirectory(p.resolve("docs"))) {
        return p;
      }
    }
    throw new IllegalStateException("no directory with README.md and docs/ above " + Path.of("").toAbsolutePath());
  }
}
