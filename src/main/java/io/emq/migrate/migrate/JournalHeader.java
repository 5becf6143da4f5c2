package io.emq.migrate.migrate;

import io.emq.migrate.payload.PayloadPolicy;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;

/**
 * The header of a migration journal, read with one {@code HMGET}: each field named and typed here
 * once, so no other class spells a header field. The names are the fields of the journal hash on the
 * server (Lua reads {@code id_base}); they never change, so a migration in flight reads on.
 */
public final class JournalHeader {
    /** One header field: its name in the journal hash and how its text reads and writes. */
    public record Field<T>(String name, Function<String, Optional<T>> parse, Function<T, String> render) {
    }

    /** The queue's overall state. */
    public static final Field<MigrationState> STATE = new Field<>("state", MigrationState::of, MigrationState::wireName);
    /** The {@code --payload} the migration started with; every step writes the same way. */
    public static final Field<PayloadPolicy> POLICY = new Field<>("policy", PayloadPolicy::parse, PayloadPolicy::wireName);
    /** The {@code --lane} a queue's migration started with (empty: none); a re-run must give the same. */
    public static final Field<String> LANE = text("lane");
    /** The {@code --lane-from} field a queue's migration started with (empty: none). */
    public static final Field<String> LANE_FROM = text("lane_from");
    /** The v1 queue, as displayed ({@code prefix:name}), and its two parts. */
    public static final Field<String> V1_QUEUE = text("v1_queue");
    public static final Field<String> V1_PREFIX = text("v1_prefix");
    public static final Field<String> V1_NAME = text("v1_name");
    /** The source server's name. */
    public static final Field<String> SOURCE = text("source");
    /** The replication id of the data the v1 queue lived in when the migration began ({@link io.emq.migrate.wire.ServerState#replicationIds}). */
    public static final Field<String> SOURCE_REPLID = text("source_replid");
    public static final Field<String> STARTED_ON = text("started_on");
    /** The queue's id base ({@code migrate_assign_ids} mints from it). */
    public static final Field<Long> ID_BASE = number("id_base");
    /**
     * Whether {@code migrate_assign_ids} kept a v1 id as its own branded id: only then can an id it mints
     * be held already, and its candidates are read. Recorded false with {@link #ID_BASE} (before any id is
     * given); a journal begun by a release before this field has it absent and is always checked.
     */
    public static final Field<Boolean> KEPT_IDS = flag("kept");
    /** Whether the v1 queue was paused before the fence paused it (then it stays paused at the end). */
    public static final Field<Boolean> V1_WAS_PAUSED = flag("v1_was_paused");
    /** Whether the v2 queue was paused before the migration paused it. */
    public static final Field<Boolean> V2_WAS_PAUSED = flag("v2_was_paused");

    /** The instant (epoch ms) this migration paused the v1 queue for its last pass (the pause window starts). */
    public static final Field<Long> V1_PAUSED_AT = number("v1_paused_at");
    /**
     * Whether the retirement followed what v1 wrote after the last pass read it without moving a watched key (dedup
     * keys deleted alone, scheduler templates edited, queue settings): recorded false with {@link #V1_PAUSED_AT}, true once followed, before
     * any v1 job or key is deleted; so a run resumed past the tombstone follows it when an earlier run could not. A
     * journal paused by a release before this field has it absent: a run resumed past that tombstone does not follow.
     */
    public static final Field<Boolean> V1_FOLLOWED = flag("v1_followed");
    /** How long the v1 queue was paused (ms): from {@link #V1_PAUSED_AT} until the v2 queue serves. */
    public static final Field<Long> WINDOW_MS = number("window-ms");
    /**
     * Whether a re-sync pass wrote a row (a job added, or moved, since the ids were planned), set before it
     * writes: only then can v2's order break v1's ({@link ServeOrder}).
     */
    public static final Field<Boolean> PASS_WROTE = flag("pass_wrote");
    /**
     * Where v2's order breaks v1's at the cutover ({@link ServeOrder}), checked once v2 serves: empty when
     * nowhere; absent when unchecked (a pass wrote a row, and the run resumed past the tombstone: it has no
     * source read to check against).
     */
    public static final Field<String> ORDER_DRIFT = text("order_drift");

    /**
     * How many replicas of the target retirement last waited for ({@link ReplicaAcks}: those of the server holding the
     * journal and of the one holding the queue's v2 keys, two masters of a cluster or one server), written before the
     * wait: absent while the target had none online (or would not tell).
     */
    public static final Field<Long> REPLICAS_AWAITED = number("replicas_awaited");

    /**
     * How many rows' expectations the journal holds: the jobs this migration wrote into v2 over all its runs (the fenced
     * journal scripts keep it exact; {@link Expectations#count()}); absent in a journal begun before the counter.
     */
    public static final Field<Long> EXPECTED_ROWS = number("expected_rows");

    static final List<Field<?>> ALL = List.of(STATE, POLICY, LANE, LANE_FROM, V1_QUEUE, V1_PREFIX, V1_NAME, SOURCE,
            SOURCE_REPLID, STARTED_ON, ID_BASE, KEPT_IDS, V1_WAS_PAUSED, V2_WAS_PAUSED, V1_PAUSED_AT, V1_FOLLOWED, WINDOW_MS,
            PASS_WROTE, ORDER_DRIFT, REPLICAS_AWAITED, EXPECTED_ROWS);

    /** The header of a journal that holds none of these fields (a new one). */
    static final JournalHeader NONE = new JournalHeader(Map.of());

    private final Map<String, String> values;

    JournalHeader(Map<String, String> values) {
        this.values = values;
    }

    public <T> Optional<T> get(Field<T> field) {
        return Optional.ofNullable(values.get(field.name())).flatMap(field.parse());
    }

    /** Header fields to write together ({@link Journal#record(Write)}). */
    public static final class Write {
        private final Map<String, String> fields = new LinkedHashMap<>();

        public <T> Write set(Field<T> field, T value) {
            fields.put(field.name(), field.render().apply(value));
            return this;
        }

        Map<String, String> fields() {
            return fields;
        }
    }

    private static Field<String> text(String name) {
        return new Field<>(name, Optional::of, Function.identity());
    }

    private static Field<Long> number(String name) {
        return new Field<>(name, t -> Optional.of(Long.parseLong(t)), v -> Long.toString(v));
    }

    private static Field<Boolean> flag(String name) {
        return new Field<>(name, t -> Optional.of(t.equals("1")), v -> v ? "1" : "0");
    }
}
