package dev.cipolicy.core.paths;

import dev.cipolicy.core.paths.GlobParser.Token;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.OptionalInt;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;

/**
 * An ordered list of repository path globs compiled once into a single matcher that finds the first
 * glob matching a path in time linear in the path's length, independent of the number of globs.
 *
 * <p><b>Syntax.</b> Globs are repository-relative and {@code /}-separated; they are matched against the
 * whole path, code point by code point:
 * <ul>
 *   <li>any character other than those below matches itself;</li>
 *   <li>{@code *} matches any run of characters, including none, except {@code /};</li>
 *   <li>{@code ?} matches one character except {@code /};</li>
 *   <li>{@code [abc]}, {@code [a-z]}, {@code [!abc]} match one character in (or, with {@code !}, not in)
 *       the class; a class never matches {@code /}, and naming {@code /} in it is an error; {@code -}
 *       first or last is literal, {@code \} escapes inside a class too;</li>
 *   <li>{@code {a,b,c}} matches any one of the comma-separated alternatives, which may hold any other
 *       construct but not another group; {@code ,} and <code>&#125;</code> outside a group are literal;</li>
 *   <li>{@code \x} matches {@code x} literally;</li>
 *   <li>{@code **} (two or more {@code *}) follows gitignore: {@code **}{@code /} at the start of the
 *       glob or right after a {@code /} matches zero or more whole directories ({@code **}{@code /*.md}
 *       matches {@code README.md} and {@code a/b/c.md}); a trailing {@code /**} matches everything below
 *       the directory, at least one character ({@code docs/**} matches {@code docs/a} and
 *       {@code docs/a/b} but neither {@code docs} nor {@code docs/}, which are the directory itself);
 *       any other {@code **} matches any run of characters including {@code /}.</li>
 * </ul>
 * Groups are expanded before {@code **} is classified, so {@code {src,lib}/**} is exactly
 * {@code src/**} plus {@code lib/**}; adjacent {@code *} from different parts of a group stay two
 * {@code *}. A glob may expand to at most 1,024 alternatives.
 *
 * <p><b>Errors.</b> {@link #compile} throws {@link InvalidGlobException} for an empty glob, a leading
 * {@code /}, a trailing {@code \}, an unclosed {@code [} or <code>&#123;</code>, a nested
 * <code>&#123;</code>, an empty class, a reversed range or {@code /} inside a class.
 *
 * <p><b>Cost.</b> All globs form one nondeterministic automaton (Thompson-style, common prefixes
 * shared), run as a deterministic automaton whose states are built on demand by subset construction and
 * cached, so matching a path reads each of its characters once. The cache holds about 16 MiB of states
 * (about 50,000 states for 1,000 typical globs); past that bound, a path that needs a new state
 * finishes by simulating the nondeterministic automaton, slower but with the same answers.
 *
 * <p>Instances are immutable in behaviour and safe to share between threads.
 */
public final class GlobSet {
  /** The default bound on the estimated memory of the cached deterministic states: 16 MiB. */
  static final long DEFAULT_CACHE_BYTES = 16L << 20;

  /** The estimated bytes of a cached state besides its transitions and set: objects, key and map entry. */
  private static final int STATE_OVERHEAD_BYTES = 112;

  private static final VarHandle NEXT = MethodHandles.arrayElementVarHandle(DState[].class);

  private final List<String> globs;
  private final Nfa nfa;
  private final ConcurrentHashMap<StateKey, DState> states = new ConcurrentHashMap<>();
  private final AtomicLong cacheBytes = new AtomicLong();
  private final long maxCacheBytes;
  private final DState start;

  private GlobSet(List<String> globs, Nfa nfa, long maxCacheBytes) {
    this.globs = globs;
    this.nfa = nfa;
    this.maxCacheBytes = maxCacheBytes;
    this.start = newState(nfa.start());
    states.put(new StateKey(start.set), start);
  }

  /**
   * Compiles a list of globs.
   *
   * @param globs the globs, in priority order
   * @return the matcher
   * @throws InvalidGlobException for the first glob that does not parse
   */
  public static GlobSet compile(List<String> globs) {
    return compile(globs, DEFAULT_CACHE_BYTES);
  }

  /**
   * Compiles a list of globs with a given bound on the estimated memory of cached deterministic states.
   * The start state is always cached, whatever the bound.
   *
   * @param globs the globs, in priority order
   * @param maxCacheBytes the bound, at least 0
   * @return the matcher
   */
  static GlobSet compile(List<String> globs, long maxCacheBytes) {
    if (maxCacheBytes < 0) {
      throw new IllegalArgumentException("maxCacheBytes must not be negative, got " + maxCacheBytes);
    }
    List<String> copy = List.copyOf(globs);
    List<List<List<Token>>> parsed = new ArrayList<>(copy.size());
    for (int i = 0; i < copy.size(); i++) {
      parsed.add(GlobParser.parse(copy.get(i), i));
    }
    return new GlobSet(copy, Nfa.of(parsed), maxCacheBytes);
  }

  /**
   * The lowest index of a glob that matches the whole path.
   *
   * @param path a repository-relative path such as {@code src/main/App.java}
   * @return the index in {@link #globs()}, or empty when no glob matches
   */
  public OptionalInt firstMatch(String path) {
    int match = run(path);
    return match < 0 ? OptionalInt.empty() : OptionalInt.of(match);
  }

  /**
   * Whether any glob matches the whole path.
   *
   * @param path a repository-relative path
   * @return true when {@link #firstMatch} is present
   */
  public boolean matches(String path) {
    return run(path) >= 0;
  }

  /**
   * The globs, in the order given to {@link #compile}.
   *
   * @return an unmodifiable list
   */
  public List<String> globs() {
    return globs;
  }

  /**
   * The number of globs.
   *
   * @return the size of {@link #globs()}
   */
  public int size() {
    return globs.size();
  }

  /** The number of deterministic states cached so far. */
  int cachedStates() {
    return states.size();
  }

  @Override
  public String toString() {
    return "GlobSet" + globs;
  }

  private int run(String path) {
    DState state = start;
    int n = path.length();
    int i = 0;
    while (i < n) {
      if (state.dead) {
        return -1;
      }
      char ch = path.charAt(i);
      int cls;
      if (ch < 128) {
        cls = nfa.asciiClass(ch);
        i++;
      } else {
        int cp = path.codePointAt(i);
        i += Character.charCount(cp);
        cls = nfa.classOf(cp);
      }
      DState next = (DState) NEXT.getAcquire(state.next, cls);
      if (next == null) {
        int[] set = nfa.step(state.set, nfa.representative(cls));
        next = intern(set);
        if (next == null) {
          return simulate(set, path, i);
        }
        NEXT.setRelease(state.next, cls, next);
      }
      state = next;
    }
    return state.match;
  }

  /** The cached state of a set, created if the bound allows; null when the cache is full. */
  private @Nullable DState intern(int[] set) {
    StateKey key = new StateKey(set);
    DState state = states.get(key);
    if (state != null) {
      return state;
    }
    // Racing threads may overshoot the bound by one state each; the bound only limits memory.
    if (cacheBytes.get() >= maxCacheBytes) {
      return null;
    }
    return states.computeIfAbsent(key, k -> newState(k.set));
  }

  private DState newState(int[] set) {
    cacheBytes.addAndGet(STATE_OVERHEAD_BYTES + 4L * (nfa.classCount() + set.length));
    return new DState(set, nfa.match(set), nfa.classCount());
  }

  /** Finishes a path on the nondeterministic automaton, from a state set and a character position. */
  private int simulate(int[] from, String path, int position) {
    int[] set = from;
    int i = position;
    while (i < path.length()) {
      if (set.length == 0) {
        return -1;
      }
      int cp = path.codePointAt(i);
      i += Character.charCount(cp);
      set = nfa.step(set, cp);
    }
    return nfa.match(set);
  }

  /** A deterministic state: a set of automaton states, its match and its lazily filled transitions. */
  private static final class DState {
    final int[] set;
    final int match;
    final boolean dead;
    /** Per code point class, the next state or null while unknown; read and written through NEXT. */
    final @Nullable DState[] next;

    DState(int[] set, int match, int classes) {
      this.set = set;
      this.match = match;
      this.dead = set.length == 0;
      this.next = new DState[classes];
    }
  }

  /** A sorted state set as a hash key. */
  private static final class StateKey {
    final int[] set;
    private final int hash;

    StateKey(int[] set) {
      this.set = set;
      this.hash = Arrays.hashCode(set);
    }

    @Override
    public boolean equals(@Nullable Object o) {
      return o instanceof StateKey other && hash == other.hash && Arrays.equals(set, other.set);
    }

    @Override
    public int hashCode() {
      return hash;
    }
  }
}
