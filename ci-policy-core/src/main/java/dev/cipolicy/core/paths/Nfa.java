package dev.cipolicy.core.paths;

import dev.cipolicy.core.paths.GlobParser.Token;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The nondeterministic automaton of a whole glob list, Thompson-style, with the globs' common prefixes
 * shared: {@code src/a/**} and {@code src/b.py} share their {@code src/} states, and every {@code **}
 * {@code /...} glob shares one "any directories" loop. A state may loop on itself (for {@code *} and
 * {@code **}), move on epsilon edges, and consume one code point along labelled edges; an accepting
 * state carries the lowest index of the globs ending there. Code points are partitioned into classes
 * that no edge can tell apart, so the deterministic automaton built on top needs one transition per
 * class, not per code point.
 *
 * <p>Instances are immutable and thread-safe.
 */
final class Nfa {
  /** A state without a self-loop. */
  private static final byte NO_LOOP = 0;
  /** A state looping on any code point except {@code /} ({@code *}). */
  private static final byte LOOP_NOT_SLASH = 1;
  /** A state looping on any code point ({@code **}). */
  private static final byte LOOP_ANY = 2;

  /** An edge consuming one given code point. */
  private static final byte EDGE_CHAR = 0;
  /** An edge consuming one code point except {@code /} ({@code ?}). */
  private static final byte EDGE_NOT_SLASH = 1;
  /** An edge consuming one code point of a class, never {@code /}. */
  private static final byte EDGE_CLASS = 2;
  /** An edge consuming any one code point. */
  private static final byte EDGE_ANY = 3;

  private static final int[] NONE = new int[0];

  private final byte[] loop;
  private final int[][] epsilon;
  private final int[][] edges;
  private final int[] accept;
  private final byte[] edgeKind;
  private final int[] edgeCodePoint;
  private final int[][] edgeRanges;
  private final boolean[] edgeNegated;
  private final int[] edgeTarget;
  private final int[] classStarts;
  private final int[] asciiClass;
  private final int[] start;

  private Nfa(Builder b) {
    int n = b.loop.size();
    loop = new byte[n];
    epsilon = new int[n][];
    edges = new int[n][];
    accept = new int[n];
    for (int s = 0; s < n; s++) {
      loop[s] = b.loop.get(s);
      epsilon[s] = toArray(b.epsilon.get(s));
      edges[s] = toArray(b.edges.get(s));
      accept[s] = b.accept.get(s);
    }
    int m = b.edgeKind.size();
    edgeKind = new byte[m];
    edgeCodePoint = new int[m];
    edgeRanges = new int[m][];
    edgeNegated = new boolean[m];
    edgeTarget = new int[m];
    for (int e = 0; e < m; e++) {
      edgeKind[e] = b.edgeKind.get(e);
      edgeCodePoint[e] = b.edgeCodePoint.get(e);
      edgeRanges[e] = b.edgeRanges.get(e);
      edgeNegated[e] = b.edgeNegated.get(e);
      edgeTarget[e] = b.edgeTarget.get(e);
    }
    classStarts = classStarts();
    asciiClass = new int[128];
    for (int c = 0; c < 128; c++) {
      asciiClass[c] = classOfSlow(c);
    }
    start = closure(new int[] {0});
  }

  /**
   * Builds the automaton of parsed globs.
   *
   * @param globs per glob, in list order, its brace-free alternatives
   * @return the automaton
   */
  static Nfa of(List<List<List<Token>>> globs) {
    Builder b = new Builder();
    for (int r = 0; r < globs.size(); r++) {
      for (List<Token> alternative : globs.get(r)) {
        b.add(alternative, r);
      }
    }
    return new Nfa(b);
  }

  /** The number of states. */
  int stateCount() {
    return loop.length;
  }

  /** The number of code point classes. */
  int classCount() {
    return classStarts.length;
  }

  /** The class of a code point below 128. */
  int asciiClass(char c) {
    return asciiClass[c];
  }

  /** The class of any code point. */
  int classOf(int codePoint) {
    return codePoint < 128 ? asciiClass[codePoint] : classOfSlow(codePoint);
  }

  /** The smallest code point of a class, which stands for every code point of the class. */
  int representative(int cls) {
    return classStarts[cls];
  }

  /** The sorted set of states before any input. */
  int[] start() {
    return start;
  }

  /**
   * The sorted set of states reached from a sorted state set by one code point, closures included.
   *
   * @param set the current states
   * @param c the code point read
   * @return the next states, empty when no glob can match any more
   */
  int[] step(int[] set, int c) {
    IntList next = new IntList();
    for (int s : set) {
      if (loop[s] == LOOP_ANY || (loop[s] == LOOP_NOT_SLASH && c != '/')) {
        addClosure(next, s);
      }
      for (int e : edges[s]) {
        if (accepts(e, c)) {
          addClosure(next, edgeTarget[e]);
        }
      }
    }
    return next.sortedDistinct();
  }

  /**
   * The lowest index of a glob accepting in a state set.
   *
   * @param set a state set
   * @return the glob index, or -1 when no state accepts
   */
  int match(int[] set) {
    int best = -1;
    for (int s : set) {
      int r = accept[s];
      if (r >= 0 && (best < 0 || r < best)) {
        best = r;
      }
    }
    return best;
  }

  private boolean accepts(int e, int c) {
    switch (edgeKind[e]) {
      case EDGE_CHAR:
        return c == edgeCodePoint[e];
      case EDGE_NOT_SLASH:
        return c != '/';
      case EDGE_CLASS:
        if (c == '/') {
          return false;
        }
        int[] r = edgeRanges[e];
        boolean in = false;
        for (int i = 0; i < r.length; i += 2) {
          if (c >= r[i] && c <= r[i + 1]) {
            in = true;
            break;
          }
        }
        return in != edgeNegated[e];
      default:
        return true;
    }
  }

  private int[] closure(int[] states) {
    IntList out = new IntList();
    for (int s : states) {
      addClosure(out, s);
    }
    return out.sortedDistinct();
  }

  /**
   * Adds a state and every state its epsilon edges reach. The epsilon graph is a forest (every state is
   * entered by epsilon from at most one state), so nothing is visited twice.
   */
  private void addClosure(IntList out, int s) {
    int from = out.size();
    out.add(s);
    for (int i = from; i < out.size(); i++) {
      for (int t : epsilon[out.get(i)]) {
        out.add(t);
      }
    }
  }

  private int classOfSlow(int c) {
    int i = Arrays.binarySearch(classStarts, c);
    return i >= 0 ? i : -i - 2;
  }

  /** Code points where some edge may start to answer differently: 0, {@code /}, and every boundary. */
  private int[] classStarts() {
    IntList bounds = new IntList();
    bounds.add(0);
    bounds.add('/');
    bounds.add('/' + 1);
    for (int e = 0; e < edgeKind.length; e++) {
      if (edgeKind[e] == EDGE_CHAR) {
        bounds.add(edgeCodePoint[e]);
        bounds.add(edgeCodePoint[e] + 1);
      } else if (edgeKind[e] == EDGE_CLASS) {
        for (int i = 0; i < edgeRanges[e].length; i += 2) {
          bounds.add(edgeRanges[e][i]);
          bounds.add(edgeRanges[e][i + 1] + 1);
        }
      }
    }
    int[] sorted = bounds.sortedDistinct();
    int n = sorted.length;
    while (sorted[n - 1] > Character.MAX_CODE_POINT) {
      n--;
    }
    return n == sorted.length ? sorted : Arrays.copyOf(sorted, n);
  }

  private static int[] toArray(List<Integer> list) {
    return list.isEmpty() ? NONE : list.stream().mapToInt(Integer::intValue).toArray();
  }

  /** A growable list of ints. */
  private static final class IntList {
    private int[] items = new int[16];
    private int size;

    void add(int v) {
      if (size == items.length) {
        items = Arrays.copyOf(items, size * 2);
      }
      items[size++] = v;
    }

    int size() {
      return size;
    }

    int get(int i) {
      return items[i];
    }

    int[] sortedDistinct() {
      int[] a = Arrays.copyOf(items, size);
      Arrays.sort(a);
      int n = 0;
      for (int i = 0; i < a.length; i++) {
        if (n == 0 || a[i] != a[n - 1]) {
          a[n++] = a[i];
        }
      }
      return n == a.length ? a : Arrays.copyOf(a, n);
    }
  }

  /** The identity of a consuming edge leaving a state, for sharing common prefixes. */
  private record EdgeKey(int from, byte kind, int codePoint, List<Integer> ranges, boolean negated) {}

  /** What an epsilon-entered state stands for: {@code *}, {@code **}, or {@code **} followed by {@code /}. */
  private enum Hang { STAR, ANY, DIRECTORIES }

  /** The identity of an epsilon-entered state hanging off a state, for sharing common prefixes. */
  private record HangKey(int from, Hang kind) {}

  /** Adds globs one after the other into a prefix-shared automaton; state 0 is the start. */
  private static final class Builder {
    final List<Byte> loop = new ArrayList<>();
    final List<List<Integer>> epsilon = new ArrayList<>();
    final List<List<Integer>> edges = new ArrayList<>();
    final List<Integer> accept = new ArrayList<>();
    final Map<EdgeKey, Integer> byEdge = new HashMap<>();
    final Map<HangKey, Integer> byHang = new HashMap<>();
    final List<Byte> edgeKind = new ArrayList<>();
    final List<Integer> edgeCodePoint = new ArrayList<>();
    final List<int[]> edgeRanges = new ArrayList<>();
    final List<Boolean> edgeNegated = new ArrayList<>();
    final List<Integer> edgeTarget = new ArrayList<>();

    Builder() {
      state(NO_LOOP);
    }

    /** Adds one brace-free alternative of glob {@code rule}, classifying each {@code **}. */
    void add(List<Token> tokens, int rule) {
      int at = 0;
      boolean atStart = true;
      boolean afterSlash = false;
      for (int k = 0; k < tokens.size(); k++) {
        Token t = tokens.get(k);
        switch (t.kind()) {
          case CHAR -> at = edge(at, EDGE_CHAR, t.codePoint(), NONE, false);
          case QUEST -> at = edge(at, EDGE_NOT_SLASH, 0, NONE, false);
          case CLASS -> at = edge(at, EDGE_CLASS, 0, t.ranges(), t.negated());
          case STAR -> at = hang(at, Hang.STAR);
          case DOUBLE_STAR -> {
            boolean slashNext = k + 1 < tokens.size() && tokens.get(k + 1).isSlash();
            if ((atStart || afterSlash) && slashNext) {
              // "**/" at the start or after "/": zero or more whole directories.
              at = hang(at, Hang.DIRECTORIES);
              k++;
              atStart = false;
              afterSlash = true;
              continue;
            } else if (afterSlash && k + 1 == tokens.size()) {
              // A trailing "/**": everything below the directory, at least one character.
              at = hang(edge(at, EDGE_ANY, 0, NONE, false), Hang.ANY);
            } else {
              at = hang(at, Hang.ANY);
            }
          }
        }
        atStart = false;
        afterSlash = t.isSlash();
      }
      int previous = accept.get(at);
      if (previous < 0 || rule < previous) {
        accept.set(at, rule);
      }
    }

    private int state(byte loopKind) {
      loop.add(loopKind);
      epsilon.add(new ArrayList<>());
      edges.add(new ArrayList<>());
      accept.add(-1);
      return loop.size() - 1;
    }

    /** The state reached from {@code from} along a consuming edge, shared with earlier globs. */
    private int edge(int from, byte kind, int codePoint, int[] ranges, boolean negated) {
      EdgeKey key = new EdgeKey(from, kind, codePoint, ranges.length == 0 ? List.of()
          : Arrays.stream(ranges).boxed().toList(), negated);
      Integer existing = byEdge.get(key);
      if (existing != null) {
        return existing;
      }
      int to = state(NO_LOOP);
      edgeKind.add(kind);
      edgeCodePoint.add(codePoint);
      edgeRanges.add(ranges);
      edgeNegated.add(negated);
      edgeTarget.add(to);
      edges.get(from).add(edgeKind.size() - 1);
      byEdge.put(key, to);
      return to;
    }

    /**
     * The state entered by epsilon from {@code from} for {@code *}, {@code **} or {@code **}{@code /},
     * shared with earlier globs. A {@code *} or {@code **} state loops and may be left at any time; the
     * directories construct is a loop on any code point that moves on after a {@code /}, plus the state
     * after it, entered directly for zero directories.
     */
    private int hang(int from, Hang kind) {
      HangKey key = new HangKey(from, kind);
      Integer existing = byHang.get(key);
      if (existing != null) {
        return existing;
      }
      int to;
      switch (kind) {
        case STAR -> to = state(LOOP_NOT_SLASH);
        case ANY -> to = state(LOOP_ANY);
        default -> {
          int directories = state(LOOP_ANY);
          to = state(NO_LOOP);
          epsilon.get(from).add(directories);
          edgeKind.add(EDGE_CHAR);
          edgeCodePoint.add((int) '/');
          edgeRanges.add(NONE);
          edgeNegated.add(false);
          edgeTarget.add(to);
          edges.get(directories).add(edgeKind.size() - 1);
        }
      }
      epsilon.get(from).add(to);
      byHang.put(key, to);
      return to;
    }
  }
}
