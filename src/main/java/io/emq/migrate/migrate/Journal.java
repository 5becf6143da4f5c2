package io.emq.migrate.migrate;

import io.emq.migrate.wire.Replies;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.emq.migrate.keyspace.BrandedId;
import io.emq.migrate.keyspace.Keys;
import io.emq.migrate.wire.Script;
import io.emq.migrate.wire.ScriptCall;
import io.emq.migrate.wire.Wire;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import redis.clients.jedis.params.ScanParams;
import redis.clients.jedis.resps.ScanResult;

/**
 * The migration journal of one queue, {@code {emq}:migration:<q>} on the target: one hash holding
 * the header (state, payload policy, source, fence facts, rank high-water mark {@code hwm}), one
 * history row per applied step ({@code history:<version>}), the identity mapping in both directions
 * ({@code v1:<v1 id>} and {@code v2:<branded id>}), the expected shape of each migrated job
 * ({@code r:<branded id>} = {@code <state> <attempts> <sha256 of the v1 data>}), and the lease lock.
 * Every write carries the fencing token of the lease; a migrator whose lease lapsed is refused.
 */
public final class Journal {
    public static final String STATE = "state";
    /** The {@code --lane} a queue's migration started with (empty: none); a re-run must give the same. */
    public static final String LANE = "lane";
    /** The {@code --lane-from} field a queue's migration started with (empty: none). */
    public static final String LANE_FROM = "lane_from";
    /** {@code lane:<group>} = the job-field value a lane was minted from ("" for a fixed lane). */
    static final String LANE_PREFIX = "lane:";
    /** The shortest lease a migrator may take. */
    public static final long MIN_LEASE_MS = 300;
    private static final ObjectMapper JSON = new ObjectMapper();

    /** The queue's overall state. */
    public enum State { PLANNED, RUNNING, VERIFIED, RETIRED, ABANDONED;
        public String wireName() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }

        public static Optional<State> of(String text) {
            for (State s : values()) {
                if (s.wireName().equals(text)) {
                    return Optional.of(s);
                }
            }
            return Optional.empty();
        }
    }

    /**
     * What the journal expects of one migrated job: its v2 state, attempts and v1 data digest, and the
     * digest of the v1 job it was copied from ({@code migrate_v1_source} digest; empty in older journals), by
     * which a re-sync sees a job that changed since.
     */
    public record Expected(String state, long attempts, String sha256, String source) {
        static Expected parse(String text) {
            String[] p = text.split(" ", 4);
            return new Expected(p[0], Long.parseLong(p[1]), p.length > 2 ? p[2] : "", p.length > 3 ? p[3] : "");
        }

        String render() {
            return state + " " + attempts + " " + sha256 + (source.isEmpty() ? "" : " " + source);
        }
    }

    private final Wire wire;
    private final String queue;
    private final byte[] key;
    private volatile String token = "";

    public Journal(Wire wire, String queue) {
        this.wire = wire;
        this.queue = queue;
        this.key = Utf8.bytes(Keys.migrationJournal(queue));
    }

    public String queue() {
        return queue;
    }

    public String key() {
        return Keys.migrationJournal(queue);
    }

    public boolean exists() {
        return wire.client().exists(key);
    }

    /** The fencing token of the lease this journal holds ("" before {@link #acquire}). */
    String token() {
        return token;
    }

    /** Why a lease of this length cannot be taken (empty when it can): the one rule, for the CLI and {@link #acquire}. */
    public static Optional<String> leaseProblem(java.time.Duration lease) {
        if (lease.toMillis() >= MIN_LEASE_MS) {
            return Optional.empty();
        }
        return Optional.of("a lease of " + lease.toMillis() + " ms is too short: it is renewed every third of it, and must"
                + " be at least " + MIN_LEASE_MS + " ms (three renewals of 100 ms); the default is "
                + MigrationOptions.DEFAULT_LEASE.toSeconds() + " s");
    }

    /**
     * Takes the lease; refused ({@code EMQLOCK}) while another migrator's lease is alive, and refused
     * ({@code lease-too-short}) for a lease under {@link #MIN_LEASE_MS}: the lease is renewed every third of
     * it, at most every 100 ms, and a shorter one lapses between renewals, handing a live migrator's queue over.
     */
    public long acquire(String owner, long leaseMs) {
        leaseProblem(java.time.Duration.ofMillis(leaseMs)).ifPresent(problem -> {
            throw new MigrationRefused("lease-too-short", problem);
        });
        long reply = wire.eval(new ScriptCall<>(Script.MIGRATE_JOURNAL_LOCK, List.of(key),
                List.of(Utf8.bytes("acquire"), Utf8.bytes(owner), Utf8.bytes(""), Utf8.bytes(Long.toString(leaseMs))), Replies::asLong));
        token = Long.toString(reply);
        return reply;
    }

    public void renew(long leaseMs) {
        wire.eval(new ScriptCall<>(Script.MIGRATE_JOURNAL_LOCK, List.of(key),
                List.of(Utf8.bytes("renew"), Utf8.bytes(""), Utf8.bytes(token), Utf8.bytes(Long.toString(leaseMs))), Replies::ignored));
    }

    public void release() {
        wire.eval(new ScriptCall<>(Script.MIGRATE_JOURNAL_LOCK, List.of(key), List.of(Utf8.bytes("release"), Utf8.bytes(""), Utf8.bytes(token), Utf8.bytes("0")), Replies::ignored));
    }

    /** Writes header fields, fenced by the lease token. */
    public void set(Map<String, String> fields) {
        List<byte[]> args = new ArrayList<>();
        args.add(Utf8.bytes(token));
        fields.forEach((f, v) -> {
            args.add(Utf8.bytes(f));
            args.add(Utf8.bytes(v));
        });
        wire.eval(new ScriptCall<>(Script.MIGRATE_JOURNAL_SET, List.of(key), args, Replies::ignored));
    }

    public void set(String field, String value) {
        set(Map.of(field, value));
    }

    public Optional<String> get(String field) {
        return Optional.ofNullable(wire.client().hget(Keys.migrationJournal(queue), field));
    }

    public Optional<State> state() {
        return get(STATE).flatMap(State::of);
    }

    public long highWaterMark() {
        return get("hwm").map(Long::parseLong).orElse(0L);
    }

    /** Mints (or finds) the branded ids of these v1 ids, in order; a re-run gives the same answer. */
    public List<BrandedId> assignIds(List<byte[]> v1Ids) {
        return assignIds(v1Ids, false);
    }

    /** As {@link #assignIds(List)}; with {@code keepBranded}, v1 ids that are JOB branded ids keep themselves. */
    public List<BrandedId> assignIds(List<byte[]> v1Ids, boolean keepBranded) {
        List<byte[]> args = new ArrayList<>(v1Ids.size() + 2);
        args.add(Utf8.bytes(token));
        StringBuilder flags = new StringBuilder(v1Ids.size());
        for (byte[] id : v1Ids) {
            boolean keep = keepBranded && BrandedId.parse(new String(id, StandardCharsets.ISO_8859_1)) instanceof BrandedId.Valid v
                    && v.id().namespace().equals(BrandedId.JOB);
            flags.append(keep ? '1' : '0');
        }
        args.add(Utf8.bytes(flags.toString()));
        args.addAll(v1Ids);
        List<?> reply = wire.eval(new ScriptCall<>(Script.MIGRATE_ASSIGN_IDS, List.of(key), args, Replies::asList));
        List<BrandedId> out = new ArrayList<>(reply.size());
        for (Object id : reply) {
            out.add(BrandedId.of(Replies.asText(id)));
        }
        return out;
    }

    /** The branded ids of these v1 ids, without minting; empty entries for ids the journal lacks. */
    public List<Optional<BrandedId>> lookupV1(List<byte[]> v1Ids) {
        List<Optional<BrandedId>> out = new ArrayList<>(v1Ids.size());
        if (v1Ids.isEmpty()) {
            return out;
        }
        byte[][] fields = v1Ids.stream().map(id -> concat("v1:", id)).toArray(byte[][]::new);
        for (byte[] v : wire.client().hmget(key, fields)) {
            out.add(v == null ? Optional.empty() : Optional.of(BrandedId.of(Replies.asText(v))));
        }
        return out;
    }

    /** Whether each of these (branded id) strings is mapped in the journal. */
    public List<Boolean> mapsV2(List<String> ids) {
        if (ids.isEmpty()) {
            return List.of();
        }
        byte[][] fields = ids.stream().map(id -> Utf8.bytes("v2:" + id)).toArray(byte[][]::new);
        return wire.client().hmget(key, fields).stream().map(java.util.Objects::nonNull).toList();
    }

    public Optional<byte[]> lookupV2(BrandedId id) {
        return Optional.ofNullable(wire.client().hget(key, Utf8.bytes("v2:" + id)));
    }

    /** Records what each of these jobs must look like after the migration, in one call fenced by the token. */
    public ScriptCall<Void> expectCall(Map<BrandedId, Expected> expected) {
        List<byte[]> args = new ArrayList<>(expected.size() * 2 + 1);
        args.add(Utf8.bytes(token));
        expected.forEach((id, e) -> {
            args.add(Utf8.bytes("r:" + id));
            args.add(Utf8.bytes(e.render()));
        });
        return new ScriptCall<>(Script.MIGRATE_JOURNAL_SET, List.of(key), args, Replies::ignored);
    }

    public Map<BrandedId, Expected> expectations(List<BrandedId> ids) {
        Map<BrandedId, Expected> out = new LinkedHashMap<>();
        if (ids.isEmpty()) {
            return out;
        }
        byte[][] fields = ids.stream().map(id -> Utf8.bytes("r:" + id)).toArray(byte[][]::new);
        List<byte[]> values = wire.client().hmget(key, fields);
        for (int i = 0; i < ids.size(); i++) {
            if (values.get(i) != null) {
                out.put(ids.get(i), Expected.parse(Replies.asText(values.get(i))));
            }
        }
        return out;
    }

    /** Every mapping of the journal, {@code v2 -> v1}, by HSCAN (the journal can be large). */
    public void forEachMapping(java.util.function.BiConsumer<BrandedId, byte[]> visit) {
        ScanParams params = new ScanParams().match(Utf8.bytes("v2:*")).count(1000);
        byte[] cursor = ScanParams.SCAN_POINTER_START_BINARY;
        do {
            ScanResult<Map.Entry<byte[], byte[]>> page = wire.client().hscan(key, cursor, params);
            for (Map.Entry<byte[], byte[]> e : page.getResult()) {
                visit.accept(BrandedId.of(Replies.asText(e.getKey()).substring(3)), e.getValue());
            }
            cursor = page.getCursorAsBytes();
        } while (!java.util.Arrays.equals(cursor, ScanParams.SCAN_POINTER_START_BINARY));
    }

    public void recordStep(HistoryRow row) {
        try {
            set("history:" + row.version(), JSON.writeValueAsString(row));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    public void forgetStep(int version) {
        forget(List.of(Utf8.bytes("history:" + version)));
    }

    /** Deletes journal fields, fenced by the lease token. */
    public void forget(List<byte[]> fields) {
        List<byte[]> args = new ArrayList<>(fields.size() + 1);
        args.add(Utf8.bytes(token));
        args.addAll(fields);
        wire.eval(new ScriptCall<>(Script.MIGRATE_JOURNAL_FORGET, List.of(key), args, Replies::ignored));
    }

    /** Every field name of the journal that starts with one of these prefixes, by HSCAN. */
    public List<byte[]> fieldsStartingWith(String prefix) {
        List<byte[]> out = new ArrayList<>();
        fieldsStartingWith(prefix, out::addAll);
        return out;
    }

    /** The fields with this prefix, a page of HSCAN at a time (a field may come twice; deleting fields already seen is safe). */
    public void fieldsStartingWith(String prefix, java.util.function.Consumer<List<byte[]>> pages) {
        ScanParams params = new ScanParams().match(Utf8.bytes(globEscape(prefix) + "*")).count(1000);
        byte[] cursor = ScanParams.SCAN_POINTER_START_BINARY;
        do {
            ScanResult<Map.Entry<byte[], byte[]>> page = wire.client().hscan(key, cursor, params);
            if (!page.getResult().isEmpty()) {
                pages.accept(page.getResult().stream().map(Map.Entry::getKey).toList());
            }
            cursor = page.getCursorAsBytes();
        } while (!java.util.Arrays.equals(cursor, ScanParams.SCAN_POINTER_START_BINARY));
    }

    /** Escapes the glob characters of MATCH patterns. */
    public static String globEscape(String text) {
        return text.replaceAll("([\\\\*?\\[\\]])", "\\\\$1");
    }

    /** The history rows, by rank. */
    public List<HistoryRow> history() {
        Map<String, String> all = new HashMap<>();
        ScanParams params = new ScanParams().match("history:*").count(100);
        String cursor = ScanParams.SCAN_POINTER_START;
        do {
            ScanResult<Map.Entry<String, String>> page = wire.client().hscan(Keys.migrationJournal(queue), cursor, params);
            page.getResult().forEach(e -> all.put(e.getKey(), e.getValue()));
            cursor = page.getCursor();
        } while (!cursor.equals(ScanParams.SCAN_POINTER_START));
        List<HistoryRow> rows = new ArrayList<>();
        for (String v : all.values()) {
            if (v.isEmpty()) {
                continue;
            }
            try {
                rows.add(JSON.readValue(v, HistoryRow.class));
            } catch (JsonProcessingException e) {
                throw new IllegalStateException("unreadable history row in " + key() + ": " + v, e);
            }
        }
        rows.sort(Comparator.comparingInt(HistoryRow::rank));
        return rows;
    }




    static byte[] concat(String prefix, byte[] tail) {
        byte[] p = Utf8.bytes(prefix);
        byte[] out = new byte[p.length + tail.length];
        System.arraycopy(p, 0, out, 0, p.length);
        System.arraycopy(tail, 0, out, p.length, tail.length);
        return out;
    }

    /** The lanes the queue's pending jobs were migrated into, as its journal records them; empty: the flat pending set. */
    public java.util.SortedSet<BrandedId> lanes() {
        java.util.SortedSet<BrandedId> out = new java.util.TreeSet<>();
        for (byte[] field : fieldsStartingWith(LANE_PREFIX)) {
            out.add(BrandedId.of(Replies.asText(field).substring(LANE_PREFIX.length())));
        }
        return out;
    }
}
