package dev.cipolicy.queue.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.cipolicy.queue.model.InvalidQueueInputException;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.quicktheories.QuickTheory;
import org.quicktheories.core.Gen;
import org.quicktheories.generators.SourceDSL;

/** The bounded job log: head and tail kept, the middle counted. */
class JobLogTest {

  @Test
  void keepsEverythingUpToTheLimit() {
    JobLog log = new JobLog(64);
    log.append("a".repeat(40));
    log.append("b".repeat(24));
    assertThat(log.truncated()).isFalse();
    assertThat(log.text()).isEqualTo("a".repeat(40) + "b".repeat(24));
  }

  @Test
  void keepsTheFirstAndLastHalvesAroundAMarker() {
    JobLog log = new JobLog(64);
    log.line("first");
    for (int i = 0; i < 100; i++) {
      log.line("line " + i);
    }
    log.line("last");
    assertThat(log.truncated()).isTrue();
    String text = log.text();
    assertThat(text).startsWith("first\n").endsWith("line 99\nlast\n");
    long dropped = log.totalBytes() - 64;
    assertThat(text).contains("[... " + dropped + " bytes truncated ...]");
  }

  @Test
  void rejectsAnOutOfRangeLimit() {
    assertThatThrownBy(() -> new JobLog(10)).isInstanceOf(InvalidQueueInputException.class)
        .hasMessage("job log limit is 10; expected 64 to 16777216");
  }

  @Test
  void anySequenceOfWritesKeepsExactlyTheFirstAndLastBytes() {
    Gen<String> chunk = SourceDSL.strings().basicLatinAlphabet().ofLengthBetween(0, 300);
    QuickTheory.qt().withExamples(200).forAll(SourceDSL.integers().between(64, 400), SourceDSL.lists().of(chunk).ofSizeBetween(0, 20))
        .checkAssert((limit, chunks) -> {
          JobLog log = new JobLog(limit);
          StringBuilder all = new StringBuilder();
          for (String c : chunks) {
            log.write(c.getBytes(StandardCharsets.US_ASCII), 0, c.length());
            all.append(c);
          }
          assertThat(log.totalBytes()).isEqualTo(all.length());
          if (all.length() <= limit) {
            assertThat(log.text()).isEqualTo(all.toString());
          } else {
            int head = limit / 2;
            int tail = limit - head;
            String expected = all.substring(0, head) + (all.charAt(head - 1) == '\n' ? "" : "\n")
                + "[... " + (all.length() - limit) + " bytes truncated ...]\n" + all.substring(all.length() - tail);
            assertThat(log.text()).isEqualTo(expected);
          }
        });
  }
}
