package dev.cipolicy.architecture;

import java.lang.reflect.Constructor;
import java.lang.reflect.Executable;
import java.lang.reflect.Field;
import java.lang.reflect.GenericArrayType;
import java.lang.reflect.Member;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.lang.reflect.TypeVariable;
import java.lang.reflect.WildcardType;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Predicate;

/**
 * Finds the types a published API lets its users see: for every type a user can name (public, or
 * protected inside a public type, with every enclosing type accessible), the supertypes and type
 * parameter bounds, and the signatures of its public and protected fields, constructors and methods
 * (and the public ones it inherits from a base class a user cannot name, which it publishes as its own) —
 * return, parameter and exception types with every generic argument, wildcard and array component.
 *
 * <p>Each mention of a type matching a predicate is one finding, e.g.
 * {@code dev.cipolicy.api.policy.Policy#builder(): return type mentions ImmutablePolicy.Builder}.
 */
final class PublicSignatures {
  private PublicSignatures() {}

  /**
   * Every mention of a matching type in the published signatures of the given types.
   *
   * @param types the types to inspect; those a user cannot name are skipped
   * @param forbidden what a user must not see
   * @return one finding per member (or supertype) and mentioned type, in a stable order
   */
  static List<String> mentions(Collection<Class<?>> types, Predicate<Class<?>> forbidden) {
    List<String> findings = new ArrayList<>();
    types.stream().filter(PublicSignatures::nameable)
        .sorted(java.util.Comparator.comparing(Class::getName))
        .forEach(type -> inspect(type, forbidden, findings));
    return findings;
  }

  /** Whether a user outside the type's package can name it. */
  static boolean nameable(Class<?> type) {
    for (Class<?> c = type; c != null; c = c.getEnclosingClass()) {
      if (c.isAnonymousClass() || c.isLocalClass() || c.isSynthetic()) {
        return false;
      }
      int m = c.getModifiers();
      boolean visible = Modifier.isPublic(m) || (c.getEnclosingClass() != null && Modifier.isProtected(m));
      if (!visible) {
        return false;
      }
    }
    return true;
  }

  private static void inspect(Class<?> type, Predicate<Class<?>> forbidden, List<String> findings) {
    String owner = type.getName();
    if (forbidden.test(type)) {
      findings.add(owner + ": the type itself is published");
    }
    Type superclass = type.getGenericSuperclass();
    if (superclass != null) {
      // a hidden base class (the generated builder a public nested Builder extends) cannot be named, so it
      // leaks nothing by itself; its public methods are inspected below as members of the public type
      report(owner, "superclass", superclass, forbidden, PublicSignatures::nameable, findings);
    }
    for (Type i : type.getGenericInterfaces()) {
      report(owner, "interface", i, forbidden, PublicSignatures::nameable, findings);
    }
    for (TypeVariable<?> v : type.getTypeParameters()) {
      for (Type bound : v.getBounds()) {
        report(owner, "type parameter " + v.getName(), bound, forbidden, c -> true, findings);
      }
    }
    for (Field f : published(type, type.getFields(), type.getDeclaredFields())) {
      report(owner + "#" + f.getName(), "field type", f.getGenericType(), forbidden, c -> true, findings);
    }
    for (Constructor<?> c : published(type, type.getConstructors(), type.getDeclaredConstructors())) {
      executable(owner + "#<init>" + params(c), c, forbidden, findings);
    }
    for (Method m : published(type, type.getMethods(), type.getDeclaredMethods())) {
      if (m.getDeclaringClass() == Object.class || m.isSynthetic() || m.isBridge()) {
        continue;
      }
      String where = owner + "#" + m.getName() + params(m);
      report(where, "return type", m.getGenericReturnType(), forbidden, c -> true, findings);
      executable(where, m, forbidden, findings);
    }
  }

  private static <T extends Member> List<T> published(Class<?> owner, T[] publicMembers, T[] declared) {
    Set<T> all = new java.util.LinkedHashSet<>(List.of(publicMembers));
    for (T d : declared) {
      if (Modifier.isProtected(d.getModifiers())) {
        all.add(d);
      }
    }
    List<T> out = new ArrayList<>();
    for (T m : all) {
      // members inherited from a type a user can name are inspected on that type; those of a hidden base
      // class are published by this type
      if (!m.isSynthetic() && (m.getDeclaringClass() == owner || !nameable(m.getDeclaringClass()))) {
        out.add(m);
      }
    }
    return out;
  }

  private static void executable(String where, Executable e, Predicate<Class<?>> forbidden, List<String> findings) {
    Type[] parameters = e.getGenericParameterTypes();
    for (int i = 0; i < parameters.length; i++) {
      report(where, "parameter " + i, parameters[i], forbidden, c -> true, findings);
    }
    for (Type t : e.getGenericExceptionTypes()) {
      report(where, "exception", t, forbidden, c -> true, findings);
    }
    for (TypeVariable<?> v : e.getTypeParameters()) {
      for (Type bound : v.getBounds()) {
        report(where, "type parameter " + v.getName(), bound, forbidden, c -> true, findings);
      }
    }
  }

  private static String params(Executable e) {
    StringBuilder sb = new StringBuilder("(");
    Class<?>[] types = e.getParameterTypes();
    for (int i = 0; i < types.length; i++) {
      sb.append(i > 0 ? ", " : "").append(types[i].getSimpleName());
    }
    return sb.append(')').toString();
  }

  /**
   * Records every forbidden class mentioned in {@code t}; the top-level class of {@code t} counts only when
   * {@code counts} accepts it (generic arguments always count).
   */
  private static void report(String where, String what, Type t, Predicate<Class<?>> forbidden,
      Predicate<Class<?>> counts, List<String> findings) {
    Set<Class<?>> mentioned = new java.util.LinkedHashSet<>();
    collect(t, mentioned, new HashSet<>(), true, counts);
    for (Class<?> c : mentioned) {
      if (forbidden.test(c)) {
        findings.add(where + ": " + what + " mentions " + c.getName().substring(c.getName().lastIndexOf('.') + 1)
            .replace('$', '.'));
      }
    }
  }

  private static void collect(Type t, Set<Class<?>> out, Set<TypeVariable<?>> seen, boolean top,
      Predicate<Class<?>> counts) {
    if (t instanceof Class<?> c) {
      if (c.isArray()) {
        collect(c.getComponentType(), out, seen, top, counts);
      } else if (!top || counts.test(c)) {
        out.add(c);
      }
    } else if (t instanceof ParameterizedType p) {
      collect(p.getRawType(), out, seen, top, counts);
      if (p.getOwnerType() != null) {
        collect(p.getOwnerType(), out, seen, top, counts);
      }
      for (Type a : p.getActualTypeArguments()) {
        collect(a, out, seen, false, counts);
      }
    } else if (t instanceof WildcardType w) {
      for (Type b : w.getUpperBounds()) {
        collect(b, out, seen, false, counts);
      }
      for (Type b : w.getLowerBounds()) {
        collect(b, out, seen, false, counts);
      }
    } else if (t instanceof GenericArrayType a) {
      collect(a.getGenericComponentType(), out, seen, top, counts);
    } else if (t instanceof TypeVariable<?> v && seen.add(v)) {
      for (Type b : v.getBounds()) {
        collect(b, out, seen, false, counts);
      }
    }
  }
}
