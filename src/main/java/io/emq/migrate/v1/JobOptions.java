package io.emq.migrate.v1;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Set;
import java.util.stream.Stream;

/**
 * What the planner reads from a job's {@code opts} JSON, as Jackson's tree of it holds it: whether it has
 * an option key only the v1 Elixir app writes, and the values of {@code pri}, {@code del} and
 * {@code lifo} (null when absent). Text that is no JSON object reads as no options. The members are
 * found by {@link JsonScan} and only those three values become Jackson nodes; text the scan leaves
 * undecided is read into a whole tree.
 */
final class JobOptions {
    static final JobOptions NONE = new JobOptions(false, null, null, null);
    private static final ObjectMapper MAPPER = new ObjectMapper();
    /** Option keys only the v1 Elixir app writes (spec v1-keyspace §2.1). */
    private static final Set<String> ELIXIR_KEYS = Set.of("at", "pri", "del", "bo", "ro", "rof", "rep");
    private static final byte[][] ELIXIR_KEY_BYTES = ELIXIR_KEYS.stream()
            .map(k -> k.getBytes(StandardCharsets.UTF_8)).toArray(byte[][]::new);
    private static final byte[] PRI = bytes("pri");
    private static final byte[] DEL = bytes("del");
    private static final byte[] LIFO = bytes("lifo");
    /** Every name the options read: the Elixir keys, and {@code lifo}. */
    private static final byte[][] READ_NAMES = Stream.concat(Arrays.stream(ELIXIR_KEY_BYTES), Stream.of(LIFO)).toArray(byte[][]::new);

    private final boolean elixir;
    private final JsonNode pri;
    private final JsonNode del;
    private final JsonNode lifo;

    private JobOptions(boolean elixir, JsonNode pri, JsonNode del, JsonNode lifo) {
        this.elixir = elixir;
        this.pri = pri;
        this.del = del;
        this.lifo = lifo;
    }

    static JobOptions of(byte[] raw) {
        if (raw == null || namesNone(raw)) {
            return NONE;
        }
        Spans spans = new Spans(raw);
        return switch (JsonScan.rootObject(raw, spans)) {
            case JSON -> spans.options();
            case NOT_JSON -> NONE;
            case UNDECIDED -> ofTree(raw);
        };
    }

    /**
     * Whether the text names none of the members the options read ({@code "pri"}, {@code "at"}, ..., each between
     * quotes as a JSON name is) and holds no backslash (an escape may spell one): JSON or not, it then reads as no
     * options, without a scan (the options of nearly every Node BullMQ job).
     */
    private static boolean namesNone(byte[] raw) {
        for (int i = 0; i < raw.length; i++) {
            if (raw[i] == '\\' || raw[i] == '"' && quotedNameAt(raw, i + 1)) {
                return false;
            }
        }
        return true;
    }

    /** Whether one of the names the options read, then a quote, starts at {@code at}. */
    private static boolean quotedNameAt(byte[] raw, int at) {
        for (byte[] name : READ_NAMES) {
            if (at + name.length < raw.length && raw[at + name.length] == '"'
                    && Arrays.equals(raw, at, at + name.length, name, 0, name.length)) {
                return true;
            }
        }
        return false;
    }

    /** Whether a key only the v1 Elixir app writes is there. */
    boolean elixir() {
        return elixir;
    }

    /** {@code pri} as a whole number, else 0. */
    long pri() {
        return number(pri);
    }

    /** {@code del} as a whole number, else 0. */
    long del() {
        return number(del);
    }

    /** {@code lifo} as Jackson reads a node as a boolean, else false. */
    boolean lifo() {
        return lifo != null && lifo.asBoolean(false);
    }

    private static long number(JsonNode n) {
        return n != null && n.canConvertToLong() ? n.asLong() : 0;
    }

    private static JobOptions ofTree(byte[] raw) {
        JsonNode opts;
        try {
            opts = MAPPER.readTree(raw);
        } catch (java.io.IOException e) {
            return NONE;
        }
        if (opts == null || !opts.isObject()) {
            return NONE;
        }
        return new JobOptions(ELIXIR_KEYS.stream().anyMatch(opts::has), opts.get("pri"), opts.get("del"), opts.get("lifo"));
    }

    /** The last place of each member the options need (a repeated key's last value is the tree's). */
    private static final class Spans implements JsonScan.Members {
        private final byte[] raw;
        private boolean elixir;
        private int priFrom = -1, priTo, delFrom = -1, delTo, lifoFrom = -1, lifoTo;

        Spans(byte[] raw) {
            this.raw = raw;
        }

        public void member(int nameFrom, int nameTo, int valueFrom, int valueTo) {
            for (byte[] key : ELIXIR_KEY_BYTES) {
                elixir |= named(key, nameFrom, nameTo);
            }
            if (named(PRI, nameFrom, nameTo)) {
                priFrom = valueFrom;
                priTo = valueTo;
            } else if (named(DEL, nameFrom, nameTo)) {
                delFrom = valueFrom;
                delTo = valueTo;
            } else if (named(LIFO, nameFrom, nameTo)) {
                lifoFrom = valueFrom;
                lifoTo = valueTo;
            }
        }

        private boolean named(byte[] key, int from, int to) {
            return Arrays.equals(raw, from, to, key, 0, key.length);
        }

        JobOptions options() {
            return new JobOptions(elixir, node(priFrom, priTo), node(delFrom, delTo), node(lifoFrom, lifoTo));
        }

        /** The value's node, as the whole tree would hold it (the scan found it to be one JSON value). */
        private JsonNode node(int from, int to) {
            if (from < 0) {
                return null;
            }
            try {
                return MAPPER.readTree(raw, from, to - from);
            } catch (java.io.IOException e) {
                throw new IllegalStateException("a value JsonScan accepted did not parse", e);
            }
        }
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
