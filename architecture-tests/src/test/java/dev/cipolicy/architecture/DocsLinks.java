package dev.cipolicy.architecture;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The relative links of the repository's Markdown pages, checked: every {@code [text](target)} outside code
 * whose target is not a URL must name a file or directory that exists, and a {@code #anchor} on a Markdown page
 * (or on the page itself) must be one of that page's headings, as GitHub derives anchors from headings.
 */
final class DocsLinks {

  private static final Pattern LINK = Pattern.compile("\\]\\(([^)\\s]+)(?:\\s+\"[^\"]*\")?\\)");
  private static final Pattern CODE_SPAN = Pattern.compile("`[^`]*`");
  private static final Pattern HEADING = Pattern.compile("^(#{1,6})\\s+(.*?)\\s*#*\\s*$");
  private static final Pattern EXTERNAL = Pattern.compile("^(?:[a-zA-Z][a-zA-Z0-9+.-]*:|<)");

  private final Map<Path, List<String>> anchorsByPage = new HashMap<>();

  /**
   * The pages the project documents itself with: {@code README.md}, {@code CHANGELOG.md} (when present) and
   * every {@code .md} under {@code docs/}.
   */
  static List<Path> pages(Path root) {
    List<Path> pages = new ArrayList<>();
    pages.add(root.resolve("README.md"));
    if (Files.isRegularFile(root.resolve("CHANGELOG.md"))) {
      pages.add(root.resolve("CHANGELOG.md"));
    }
    try (Stream<Path> docs = Files.walk(root.resolve("docs"))) {
      docs.filter(p -> p.toString().endsWith(".md")).sorted().forEach(pages::add);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return pages;
  }

  /**
   * The broken links of one page, each as {@code file:line: target: reason}.
   *
   * @param root the directory the reported file names are relative to
   * @param page the Markdown page
   * @return the broken links, empty when every link resolves
   */
  List<String> broken(Path root, Path page) {
    List<String> problems = new ArrayList<>();
    List<String> lines = read(page);
    boolean fence = false;
    for (int i = 0; i < lines.size(); i++) {
      String line = lines.get(i);
      if (line.stripLeading().startsWith("```") || line.stripLeading().startsWith("~~~")) {
        fence = !fence;
        continue;
      }
      if (fence) {
        continue;
      }
      Matcher m = LINK.matcher(CODE_SPAN.matcher(line).replaceAll(""));
      while (m.find()) {
        String target = m.group(1);
        if (EXTERNAL.matcher(target).find()) {
          continue;
        }
        int hash = target.indexOf('#');
        String file = hash < 0 ? target : target.substring(0, hash);
        String anchor = hash < 0 ? "" : target.substring(hash + 1);
        Path resolved = file.isEmpty() ? page : page.getParent().resolve(file).normalize();
        String where = root.relativize(page) + ":" + (i + 1) + ": " + target + ": ";
        if (!Files.exists(resolved)) {
          problems.add(where + "no such file " + root.relativize(resolved));
        } else if (!anchor.isEmpty() && resolved.toString().endsWith(".md")
            && !anchors(resolved).contains(anchor)) {
          problems.add(where + "no heading with anchor #" + anchor + " in " + root.relativize(resolved));
        }
      }
    }
    return problems;
  }

  /** The anchors of a page's headings, in order, numbered as GitHub numbers repeated ones. */
  List<String> anchors(Path page) {
    return anchorsByPage.computeIfAbsent(page, p -> anchorsOf(read(p)));
  }

  static List<String> anchorsOf(List<String> lines) {
    List<String> out = new ArrayList<>();
    Map<String, Integer> seen = new HashMap<>();
    boolean fence = false;
    for (String line : lines) {
      if (line.stripLeading().startsWith("```") || line.stripLeading().startsWith("~~~")) {
        fence = !fence;
        continue;
      }
      Matcher m = HEADING.matcher(line);
      if (fence || !m.matches()) {
        continue;
      }
      String slug = slug(m.group(2));
      int n = seen.merge(slug, 1, Integer::sum) - 1;
      out.add(n == 0 ? slug : slug + "-" + n);
    }
    return out;
  }

  /**
   * GitHub's anchor of a heading: the rendered text (link targets, HTML tags and emphasis markers dropped,
   * entities decoded, code spans kept as written) in lower case, without punctuation, spaces as hyphens.
   */
  static String slug(String heading) {
    String text = heading.replaceAll("\\[([^\\]]*)\\]\\([^)]*\\)", "$1");
    StringBuilder rendered = new StringBuilder();
    Matcher code = CODE_SPAN.matcher(text);
    int at = 0;
    while (code.find()) {
      rendered.append(plain(text.substring(at, code.start())));
      rendered.append(text, code.start() + 1, code.end() - 1);
      at = code.end();
    }
    rendered.append(plain(text.substring(at)));
    StringBuilder slug = new StringBuilder();
    rendered.toString().toLowerCase(Locale.ROOT).codePoints().forEach(c -> {
      if (Character.isLetterOrDigit(c) || c == '-' || c == '_') {
        slug.appendCodePoint(c);
      } else if (c == ' ') {
        slug.append('-');
      }
    });
    return slug.toString();
  }

  private static String plain(String text) {
    return text.replaceAll("<[^>]+>", "").replace("*", "").replace("&lt;", "<").replace("&gt;", ">")
        .replace("&quot;", "\"").replace("&amp;", "&");
  }

  /** The {@code .md} pages under {@code docs/} that {@code README.md} does not link to. */
  static Set<String> unlistedInReadme(Path root) {
    String readme = String.join("\n", read(root.resolve("README.md")));
    Set<String> missing = new LinkedHashSet<>();
    for (Path page : pages(root)) {
      String name = root.relativize(page).toString().replace('\\', '/');
      if (name.startsWith("docs/") && !readme.contains("](" + name + ")")) {
        missing.add(name);
      }
    }
    return missing;
  }

  private static List<String> read(Path page) {
    try {
      return Files.readAllLines(page, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
