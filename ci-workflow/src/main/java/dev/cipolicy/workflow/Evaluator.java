package dev.cipolicy.workflow;

import dev.cipolicy.workflow.ExprValue.Arr;
import dev.cipolicy.workflow.ExprValue.Bool;
import dev.cipolicy.workflow.ExprValue.Null;
import dev.cipolicy.workflow.ExprValue.Num;
import dev.cipolicy.workflow.ExprValue.Obj;
import dev.cipolicy.workflow.ExprValue.Str;
import dev.cipolicy.workflow.ExprValue.Unknown;
import dev.cipolicy.workflow.Node.Bin;
import dev.cipolicy.workflow.Node.Call;
import dev.cipolicy.workflow.Node.Ctx;
import dev.cipolicy.workflow.Node.Index;
import dev.cipolicy.workflow.Node.Lit;
import dev.cipolicy.workflow.Node.Not;
import dev.cipolicy.workflow.Node.Prop;
import dev.cipolicy.workflow.Node.Star;
import dev.cipolicy.workflow.Node.Template;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/** Evaluates a syntax tree with GitHub's semantics; optionally records every node's value to explain it. */
final class Evaluator {
  private final String source;
  private final ExpressionEnvironment env;
  private final @Nullable Map<Node, ExprValue> values;
  private final Map<StatusFunction, StatusCheck> statuses = new java.util.EnumMap<>(StatusFunction.class);

  Evaluator(String source, ExpressionEnvironment env, boolean record) {
    this.source = source;
    this.env = env;
    this.values = record ? new IdentityHashMap<>() : null;
  }

  private String text(Node n) {
    return source.substring(n.start(), n.end());
  }

  ExprValue eval(Node n) {
    ExprValue v = compute(n);
    if (values != null) {
      values.put(n, v);
    }
    return v;
  }

  private ExprValue unknown(Node n, ExprValue... operands) {
    for (ExprValue o : operands) {
      if (o instanceof Unknown u && !(n instanceof Prop || n instanceof Index || n instanceof Star)) {
        return new Unknown(u.term(), Tri.UNKNOWN);
      }
    }
    return new Unknown(text(n), Tri.UNKNOWN);
  }

  private ExprValue compute(Node n) {
    if (n instanceof Lit l) {
      return l.value();
    } else if (n instanceof Ctx c) {
      ExprValue v = env.context(c.name());
      return v instanceof Unknown ? new Unknown(text(c), Tri.UNKNOWN) : v;
    } else if (n instanceof Prop p) {
      ExprValue t = eval(p.target());
      if (t instanceof Unknown) {
        return unknown(p, t);
      }
      return property(t, p.name(), n);
    } else if (n instanceof Index ix) {
      ExprValue t = eval(ix.target());
      ExprValue i = eval(ix.index());
      if (t instanceof Unknown || i instanceof Unknown) {
        return unknown(ix, t, i);
      }
      if (t instanceof Arr a && a.filtered()) {
        List<ExprValue> out = new ArrayList<>();
        for (ExprValue e : a.items()) {
          ExprValue r = index(e, i);
          if (r instanceof Unknown) {
            return unknown(ix, r);
          }
          if (!(r instanceof Null)) {
            out.add(r);
          }
        }
        return new Arr(out, true);
      }
      return index(t, i);
    } else if (n instanceof Star s) {
      ExprValue t = eval(s.target());
      if (t instanceof Unknown) {
        return unknown(s, t);
      }
      List<ExprValue> out = new ArrayList<>();
      if (t instanceof Arr a && a.filtered()) {
        for (ExprValue e : a.items()) {
          if (e instanceof Arr inner) {
            out.addAll(inner.items());
          } else if (e instanceof Obj o) {
            if (o.open()) {
              return unknown(s);
            }
            out.addAll(o.entries().values());
          }
        }
      } else if (t instanceof Arr a) {
        out.addAll(a.items());
      } else if (t instanceof Obj o) {
        if (o.open()) {
          return unknown(s);
        }
        out.addAll(o.entries().values());
      }
      return new Arr(out, true);
    } else if (n instanceof Not not) {
      ExprValue v = eval(not.operand());
      Tri t = v.truth();
      return t == Tri.UNKNOWN ? unknown(not, v) : new Bool(t == Tri.FALSE);
    } else if (n instanceof Bin b) {
      return binary(b);
    } else if (n instanceof Call c) {
      return call(c);
    }
    Template t = (Template) n;
    StringBuilder sb = new StringBuilder();
    for (Node part : t.parts()) {
      ExprValue v = eval(part);
      if (v instanceof Unknown u) {
        return new Unknown(u.term(), Tri.UNKNOWN);
      }
      append(sb, Coercion.toStr(v), t, "the template");
    }
    return new Str(sb.toString());
  }

  private ExprValue property(ExprValue t, String name, Node n) {
    if (t instanceof Obj o) {
      ExprValue v = o.get(name);
      return v instanceof Unknown ? new Unknown(text(n), Tri.UNKNOWN) : v;
    } else if (t instanceof Arr a && a.filtered()) {
      List<ExprValue> out = new ArrayList<>();
      for (ExprValue e : a.items()) {
        if (e instanceof Obj o) {
          ExprValue v = o.get(name);
          if (v instanceof Unknown) {
            return new Unknown(text(n), Tri.UNKNOWN);
          }
          if (!(v instanceof Null)) {
            out.add(v);
          }
        }
      }
      return new Arr(out, true);
    }
    return ExprValue.NULL;
  }

  private static ExprValue index(ExprValue t, ExprValue i) {
    if (t instanceof Arr a) {
      if (i instanceof Str || i instanceof Null || i instanceof Bool || i instanceof Num) {
        double d = Coercion.toNumber(i);
        if (i instanceof Num && !Double.isNaN(d) && d >= 0 && d == Math.floor(d) && d < a.items().size()) {
          return a.items().get((int) d);
        }
        if (i instanceof Str && !Double.isNaN(d) && d >= 0 && d == Math.floor(d) && d < a.items().size()) {
          return a.items().get((int) d);
        }
      }
      return ExprValue.NULL;
    } else if (t instanceof Obj o) {
      if (i instanceof Str s) {
        return o.get(s.value());
      }
      if (i instanceof Num || i instanceof Bool || i instanceof Null) {
        return o.get(Coercion.toStr(i));
      }
    }
    return ExprValue.NULL;
  }

  private ExprValue binary(Bin b) {
    switch (b.op()) {
      case AND -> {
        ExprValue l = eval(b.left());
        Tri tl = l.truth();
        if (tl == Tri.FALSE) {
          return l;
        }
        ExprValue r = eval(b.right());
        if (tl == Tri.TRUE) {
          return r;
        }
        Unknown u = (Unknown) l;
        return new Unknown(u.term(), r.truth() == Tri.FALSE ? Tri.FALSE : Tri.UNKNOWN);
      }
      case OR -> {
        ExprValue l = eval(b.left());
        Tri tl = l.truth();
        if (tl == Tri.TRUE) {
          return l;
        }
        ExprValue r = eval(b.right());
        if (tl == Tri.FALSE) {
          return r;
        }
        Unknown u = (Unknown) l;
        return new Unknown(u.term(), r.truth() == Tri.TRUE ? Tri.TRUE : Tri.UNKNOWN);
      }
      default -> {
        ExprValue l = eval(b.left());
        ExprValue r = eval(b.right());
        if (l instanceof Unknown || r instanceof Unknown) {
          return unknown(b, l, r);
        }
        if (b.op() == Node.Op.EQ || b.op() == Node.Op.NE) {
          return new Bool(looseEquals(l, r) == (b.op() == Node.Op.EQ));
        }
        Integer c = compare(l, r);
        return new Bool(c != null && switch (b.op()) {
          case LT -> c < 0;
          case LE -> c <= 0;
          case GT -> c > 0;
          default -> c >= 0;
        });
      }
    }
  }

  /** GitHub's loose equality; strings ignore case, arrays and objects are equal only to themselves. */
  @SuppressWarnings("ReferenceEquality")
  static boolean looseEquals(ExprValue l, ExprValue r) {
    if (l.getClass() == r.getClass()) {
      if (l instanceof Null) {
        return true;
      } else if (l instanceof Bool a) {
        return a.value() == ((Bool) r).value();
      } else if (l instanceof Num a) {
        return a.value() == ((Num) r).value();
      } else if (l instanceof Str a) {
        return upper(a.value()).equals(upper(((Str) r).value()));
      }
      return l == r;
    }
    double a = Coercion.toNumber(l);
    double b = Coercion.toNumber(r);
    return a == b;
  }

  /**
   * GitHub's ordering: strings (ignoring case) among themselves, otherwise numbers; null when either side
   * is NaN (an array, an object, a non-numeric string against a number), for which every comparison is false.
   */
  private static @Nullable Integer compare(ExprValue l, ExprValue r) {
    if (l instanceof Str a && r instanceof Str b) {
      return Integer.signum(upper(a.value()).compareTo(upper(b.value())));
    }
    double a = Coercion.toNumber(l);
    double b = Coercion.toNumber(r);
    if (Double.isNaN(a) || Double.isNaN(b)) {
      return null;
    }
    return a < b ? -1 : a > b ? 1 : 0;
  }

  private static String upper(String s) {
    return s.toUpperCase(Locale.ROOT);
  }

  private ExprValue call(Call c) {
    switch (c.name()) {
      case "success", "failure", "cancelled", "always" -> {
        StatusFunction f = StatusFunction.valueOf(c.name().toUpperCase(Locale.ROOT));
        StatusCheck s = env.status(f);
        statuses.put(f, s);
        return s.value() == Tri.UNKNOWN ? new Unknown(c.name() + "()", Tri.UNKNOWN) : new Bool(s.value() == Tri.TRUE);
      }
      case "hashFiles" -> {
        for (Node a : c.args()) {
          eval(a);
        }
        return new Unknown(text(c), Tri.UNKNOWN);
      }
      default -> { }
    }
    List<ExprValue> args = new ArrayList<>();
    for (Node a : c.args()) {
      ExprValue v = eval(a);
      if (v instanceof Unknown) {
        return unknown(c, v);
      }
      args.add(v);
    }
    switch (c.name()) {
      case "contains" -> {
        ExprValue search = args.get(0);
        if (search instanceof Arr a) {
          for (ExprValue e : a.items()) {
            if (looseEquals(e, args.get(1))) {
              return new Bool(true);
            }
          }
          return new Bool(false);
        }
        return new Bool(upper(Coercion.toStr(search)).contains(upper(Coercion.toStr(args.get(1)))));
      }
      case "startsWith" -> {
        return new Bool(upper(Coercion.toStr(args.get(0))).startsWith(upper(Coercion.toStr(args.get(1)))));
      }
      case "endsWith" -> {
        return new Bool(upper(Coercion.toStr(args.get(0))).endsWith(upper(Coercion.toStr(args.get(1)))));
      }
      case "format" -> {
        return new Str(format(c, args));
      }
      case "join" -> {
        String sep = args.size() > 1 ? Coercion.toStr(args.get(1)) : ",";
        if (args.get(0) instanceof Arr a) {
          StringBuilder sb = new StringBuilder();
          for (int i = 0; i < a.items().size(); i++) {
            if (i > 0) {
              append(sb, sep, c, "join()");
            }
            append(sb, Coercion.toStr(a.items().get(i)), c, "join()");
          }
          return new Str(sb.toString());
        }
        return new Str(Coercion.toStr(args.get(0)));
      }
      case "toJSON" -> {
        try {
          return new Str(Json.write(args.get(0), Expression.MAX_STRING_LENGTH));
        } catch (Json.TooLong e) {
          throw tooLong(c, "toJSON()");
        }
      }
      default -> {
        String text = Coercion.toStr(args.get(0));
        try {
          return Json.parse(text);
        } catch (Json.Malformed e) {
          throw new InvalidExpressionException(source, c.start() + 1,
              "fromJSON() got text that is not JSON (" + e.getMessage() + "); expected a JSON document");
        }
      }
    }
  }

  private String format(Call c, List<ExprValue> args) {
    String f = Coercion.toStr(args.get(0));
    StringBuilder sb = new StringBuilder();
    int i = 0;
    while (i < f.length()) {
      char ch = f.charAt(i);
      if (ch == '{') {
        if (i + 1 < f.length() && f.charAt(i + 1) == '{') {
          append(sb, "{", c, "format()");
          i += 2;
          continue;
        }
        int close = f.indexOf('}', i);
        String digits = close < 0 ? "" : f.substring(i + 1, close);
        if (digits.isEmpty() || digits.length() > 9 || !digits.chars().allMatch(d -> d >= '0' && d <= '9')) {
          throw new InvalidExpressionException(source, c.start() + 1,
              "format() string has '{' at index " + i + " not starting a placeholder; expected {N} or {{");
        }
        int k = Integer.parseInt(digits);
        if (k + 1 >= args.size()) {
          throw new InvalidExpressionException(source, c.start() + 1, "format() placeholder {" + k + "} but only "
              + (args.size() - 1) + " argument" + (args.size() == 2 ? "" : "s") + " after the format string");
        }
        append(sb, Coercion.toStr(args.get(k + 1)), c, "format()");
        i = close + 1;
      } else if (ch == '}') {
        if (i + 1 < f.length() && f.charAt(i + 1) == '}') {
          append(sb, "}", c, "format()");
          i += 2;
          continue;
        }
        throw new InvalidExpressionException(source, c.start() + 1,
            "format() string has a lone '}' at index " + i + "; expected }} for a literal brace");
      } else {
        if (sb.length() >= Expression.MAX_STRING_LENGTH) {
          throw tooLong(c, "format()");
        }
        sb.append(ch);
        i++;
      }
    }
    return sb.toString();
  }

  /** Appends a piece of a computed string, failing before it grows past {@link Expression#MAX_STRING_LENGTH}. */
  private void append(StringBuilder sb, String piece, Node at, String what) {
    if ((long) sb.length() + piece.length() > Expression.MAX_STRING_LENGTH) {
      throw tooLong(at, what);
    }
    sb.append(piece);
  }

  private ExpressionLimitException tooLong(Node at, String what) {
    return new ExpressionLimitException(source, at.start() + 1, what + " makes a string");
  }

  // ---- explanations

  /** Why {@code n} has its truth; needs a recording evaluator that has evaluated the root. */
  String explain(Node n) {
    ExprValue v = recorded(n);
    Tri t = v.truth();
    if (n instanceof Call c && STATUS_NAMES.contains(c.name())) {
      StatusCheck s = statuses.get(status(c));
      return c.name() + "() is " + t + (s == null ? "" : ": " + s.reason());
    } else if (n instanceof Bin b && (b.op() == Node.Op.AND || b.op() == Node.Op.OR)) {
      ExprValue l = recorded(b.left());
      @Nullable ExprValue r = values == null ? null : values.get(b.right());
      if (r == null) { // short-circuited
        return explain(b.left());
      }
      Tri tl = l.truth();
      boolean and = b.op() == Node.Op.AND;
      Tri decisive = and ? Tri.FALSE : Tri.TRUE;
      if (t == decisive) {
        return explain(tl == decisive ? b.left() : b.right());
      } else if (t == Tri.UNKNOWN) {
        return explain(tl == Tri.UNKNOWN ? b.left() : b.right());
      }
      return explain(b.left()) + (and ? " and " : "; and ") + explain(b.right());
    } else if (n instanceof Not not) {
      return "`" + text(n) + "` is " + t + " (" + explain(not.operand()) + ")";
    } else if (v instanceof Unknown u) {
      return "`" + text(n) + "` is unknown (" + u.term() + " is not known to the simulation)";
    } else if (n instanceof Bin b) {
      StringBuilder sb = new StringBuilder("`").append(text(n)).append("` is ").append(t);
      List<String> operands = new ArrayList<>();
      for (Node o : List.of(b.left(), b.right())) {
        if (!(o instanceof Lit)) {
          operands.add(text(o) + " is " + display(recorded(o)));
        }
      }
      if (!operands.isEmpty()) {
        sb.append(" (").append(String.join(", ", operands)).append(')');
      }
      return sb.toString();
    } else if (n instanceof Lit) {
      return "`" + text(n) + "` is " + t;
    }
    return "`" + text(n) + "` is " + display(v);
  }

  private static final java.util.Set<String> STATUS_NAMES = java.util.Set.of("success", "failure", "cancelled", "always");

  private static StatusFunction status(Call c) {
    return StatusFunction.valueOf(c.name().toUpperCase(Locale.ROOT));
  }

  private ExprValue recorded(Node n) {
    ExprValue v = values == null ? null : values.get(n);
    if (v == null) {
      throw new IllegalStateException("node not evaluated");
    }
    return v;
  }

  /** The longest string an explanation shows whole. */
  private static final int SHOWN_STRING = 200;

  static String display(ExprValue v) {
    if (v instanceof Str s && s.value().length() > SHOWN_STRING) {
      return "'" + s.value().substring(0, SHOWN_STRING).replace("'", "''") + "...' (" + s.value().length()
          + " characters)";
    } else if (v instanceof Str s) {
      return "'" + s.value().replace("'", "''") + "'";
    } else if (v instanceof Unknown u) {
      return "unknown (" + u.term() + ")";
    } else if (v instanceof Arr || v instanceof Obj) {
      String json;
      try {
        json = Json.write(v, 4 * SHOWN_STRING).replaceAll("\\s+", " ");
      } catch (Json.TooLong e) {
        return v instanceof Arr ? "a large array" : "a large object";
      }
      return json.length() > 80 ? json.substring(0, 77) + "..." : json;
    }
    return Coercion.toStr(v).isEmpty() ? "null" : Coercion.toStr(v);
  }
}
