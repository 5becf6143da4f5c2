package io.emq.migrate.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The one JSON mapper of the CLI: pretty, printed as one document, deterministic. Maps built in a
 * chosen order ({@link LinkedHashMap}) keep it; any other map is printed sorted by key, so two runs
 * over the same data diff cleanly.
 */
public final class Json {
    public static final ObjectMapper MAPPER = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    private Json() {
    }

    public static void print(Object document, PrintStream out) {
        try {
            out.println(MAPPER.writeValueAsString(stable(document)));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot render JSON", e);
        }
    }

    private static Object stable(Object value) {
        if (value instanceof Map<?, ?> map) {
            Map<String, Object> out = map instanceof LinkedHashMap<?, ?> ? new LinkedHashMap<>() : new TreeMap<>();
            map.forEach((k, v) -> out.put(String.valueOf(k), stable(v)));
            return out;
        }
        if (value instanceof Collection<?> list) {
            List<Object> out = new ArrayList<>(list.size());
            list.forEach(v -> out.add(stable(v)));
            return out;
        }
        return value;
    }
}
