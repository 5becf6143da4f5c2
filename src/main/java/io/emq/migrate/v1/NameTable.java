package io.emq.migrate.v1;

import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;

/**
 * Job names, stored once each: most queues use a handful. The first {@value #DISTINCT} distinct
 * names are shared; past that every new occurrence is stored as it comes (still as bytes, not
 * as a {@code String}), so a queue of unique names costs its bytes and no dictionary.
 */
final class NameTable {
    static final int DISTINCT = 10_000;
    private final ByteArena names = new ByteArena(16);
    private final Map<String, Integer> known = new HashMap<>();

    /** The reference of a name; -1 for none. */
    int ref(String name) {
        if (name == null) {
            return -1;
        }
        Integer ref = known.get(name);
        if (ref != null) {
            return ref;
        }
        int added = names.add(name.getBytes(StandardCharsets.UTF_8));
        if (known.size() < DISTINCT) {
            known.put(name, added);
        }
        return added;
    }

    String name(int ref) {
        return ref < 0 ? null : names.get(ref).utf8();
    }
}
