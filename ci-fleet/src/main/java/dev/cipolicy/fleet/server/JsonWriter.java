package dev.cipolicy.fleet.server;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.RecordComponent;
import java.util.Collection;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * Writes the documents of the JSON API: records as objects (their components in order, nulls included), maps as
 * objects, collections as arrays, strings, numbers and booleans as themselves, JSON already written as it is.
 */
final class JsonWriter {
  private static final JsonFactory JSON = new JsonFactory();
  /** Each record class's components, looked up once (the API writes thousands of records per document). */
  private static final ClassValue<RecordComponent[]> COMPONENTS = new ClassValue<>() {
    @Override
    protected RecordComponent[] computeValue(Class<?> type) {
      RecordComponent[] components = type.getRecordComponents();
      for (RecordComponent rc : components) {
        rc.getAccessor().setAccessible(true);
      }
      return components;
    }
  };

  private JsonWriter() {}

  static String write(@Nullable Object value) {
    StringWriter out = new StringWriter();
    try (JsonGenerator g = JSON.createGenerator(out)) {
      write(g, value);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out.toString();
  }

  private static void write(JsonGenerator g, @Nullable Object value) throws IOException {
    if (value == null) {
      g.writeNull();
    } else if (value instanceof LiveView.JsonText t) {
      g.writeRawValue(t.text());
    } else if (value instanceof String s) {
      g.writeString(s);
    } else if (value instanceof Boolean b) {
      g.writeBoolean(b);
    } else if (value instanceof Integer || value instanceof Long) {
      g.writeNumber(((Number) value).longValue());
    } else if (value instanceof Number n) {
      double d = n.doubleValue();
      if (Double.isFinite(d)) {
        g.writeNumber(d);
      } else {
        g.writeNull();
      }
    } else if (value instanceof Map<?, ?> m) {
      g.writeStartObject();
      for (Map.Entry<?, ?> e : m.entrySet()) {
        g.writeFieldName(String.valueOf(e.getKey()));
        write(g, e.getValue());
      }
      g.writeEndObject();
    } else if (value instanceof Collection<?> c) {
      g.writeStartArray();
      for (Object o : c) {
        write(g, o);
      }
      g.writeEndArray();
    } else if (value instanceof Record r) {
      g.writeStartObject();
      for (RecordComponent rc : COMPONENTS.get(r.getClass())) {
        g.writeFieldName(rc.getName());
        try {
          write(g, rc.getAccessor().invoke(r));
        } catch (IllegalAccessException | InvocationTargetException e) {
          throw new IllegalStateException("cannot read " + rc.getName() + " of " + r.getClass().getSimpleName(), e);
        }
      }
      g.writeEndObject();
    } else {
      g.writeString(value.toString());
    }
  }
}
