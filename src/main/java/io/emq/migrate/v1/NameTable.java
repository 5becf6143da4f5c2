package io.emq.migrate.v1;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Job names, stored once each: most queues use a handful. The first {@value #DISTINCT} distinct
 * names are kept as shared strings (a reference {@code >= 0}); past that every new occurrence is
 * stored as UTF-8 bytes in an arena (a reference {@code <= -2}), so a queue of unique names costs
 * its bytes and no dictionary. {@code -1} is no name.
 */
final class NameTable {
    static final int DISTINCT = 10_000;
    private final List<String> shared = new ArrayList<>();
    private final Map<String, Integer> known = new HashMap<>();
    private final ByteArena others = new ByteArena(16);

    int ref(String name) {
        if (name == null) {
            return -1;
        }
        Integer ref = known.get(name);
        if (ref != null) {
            return ref;
        }
        if (shared.size() < DISTINCT) {
            shared.add(name);
            known.put(name, shared.size() - 1);
            return shared.size() - 1;
        }
        return -2 - others.add(name.getBytes(StandardCharsets.UTF_8));
    }

    String name(int ref) {
        return ref == -1 ? null : ref >= 0 ? shared.get(ref) : others.get(-2 - ref).utf8();
    }
}
