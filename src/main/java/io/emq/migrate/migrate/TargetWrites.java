package io.emq.migrate.migrate;

import io.emq.migrate.keyspace.Keys;
import io.emq.migrate.wire.Replies;
import io.emq.migrate.wire.Script;
import io.emq.migrate.wire.ScriptCall;
import io.emq.migrate.wire.Wire;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A batch of the migrator's plain writes to one v2 queue (flow records, dedup keys, receipts, logs,
 * schedulers, undo), sent as {@code migrate_write} calls that check the lease's fencing token first.
 * Commands are sent in order; {@link #flush} sends what is queued. Long argument lists are split into
 * several commands of the same kind, so no call unpacks more than Lua's stack allows.
 */
final class TargetWrites {
    static final int PART = 500;
    static final int COMMANDS_PER_CALL = 1000;

    private final Wire target;
    private final Keys keys;
    private final Journal journal;
    private final List<byte[]> callKeys = new ArrayList<>();
    private final Map<String, Integer> keyIndex = new HashMap<>();
    private final List<byte[]> args = new ArrayList<>();
    private int commands;

    TargetWrites(Wire target, Keys keys, Journal journal) {
        this.target = target;
        this.keys = keys;
        this.journal = journal;
        reset();
    }

    TargetWrites(QueueMigration m) {
        this(m.targetWire, m.keys, m.journal);
    }

    TargetWrites del(String key) {
        return command("DEL", key, List.of());
    }

    /** DEL only while the key is a string holding {@code value}. */
    TargetWrites delEq(String key, byte[] value) {
        return command("DELEQ", key, List.of(value));
    }

    /** SET, with a PX expiry when {@code pxMs > 0}, only if absent when {@code nx}. */
    TargetWrites set(String key, byte[] value, long pxMs, boolean nx) {
        return command("SET", key, List.of(value, Utf8.bytes(Long.toString(Math.max(0, pxMs))), Utf8.bytes(nx ? "1" : "0")));
    }

    TargetWrites hset(String key, Map<byte[], byte[]> fields) {
        List<byte[]> flat = new ArrayList<>(fields.size() * 2);
        fields.forEach((f, v) -> {
            flat.add(f);
            flat.add(v);
        });
        return split("HSET", key, flat, 2);
    }

    TargetWrites hdel(String key, String... fields) {
        return split("HDEL", key, java.util.Arrays.stream(fields).map(Utf8::bytes).toList(), 1);
    }

    TargetWrites hincrBy(String key, String field, long by) {
        return command("HINCRBY", key, List.of(Utf8.bytes(field), Utf8.bytes(Long.toString(by))));
    }

    TargetWrites rpush(String key, List<byte[]> values) {
        return split("RPUSH", key, values, 1);
    }

    TargetWrites zadd(String key, long score, String member) {
        return command("ZADD", key, List.of(Utf8.bytes(Long.toString(score)), Utf8.bytes(member)));
    }

    TargetWrites zrem(String key, String member) {
        return command("ZREM", key, List.of(Utf8.bytes(member)));
    }

    /** Sends what is queued (nothing when nothing is). */
    void flush() {
        if (commands > 0) {
            target.eval(new ScriptCall<>(Script.MIGRATE_WRITE, callKeys, args, Replies::ignored));
        }
        reset();
    }

    private TargetWrites split(String name, String key, List<byte[]> items, int unit) {
        for (int from = 0; from < items.size(); from += PART * unit) {
            command(name, key, items.subList(from, Math.min(items.size(), from + PART * unit)));
        }
        return this;
    }

    private TargetWrites command(String name, String key, List<byte[]> commandArgs) {
        int k = keyIndex.computeIfAbsent(key, x -> {
            callKeys.add(Utf8.bytes(x));
            return callKeys.size();
        });
        args.add(Utf8.bytes(name));
        args.add(Utf8.bytes(Integer.toString(k)));
        args.add(Utf8.bytes(Integer.toString(commandArgs.size())));
        args.addAll(commandArgs);
        if (++commands >= COMMANDS_PER_CALL) {
            flush();
        }
        return this;
    }

    private void reset() {
        callKeys.clear();
        keyIndex.clear();
        args.clear();
        commands = 0;
        callKeys.add(Utf8.bytes(keys.meta()));
        keyIndex.put(keys.meta(), 1);
        args.add(Utf8.bytes(journal.token()));
    }
}
