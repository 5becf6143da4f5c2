package io.emq.migrate.wire;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Optional;

/**
 * The v2 script bundle: one Lua file per constant, read from {@code lua/<name>.lua} on the
 * classpath with its {@code --- @include} lines expanded ({@link LuaIncludes}), identified by the
 * lowercase hex SHA-1 of the expanded bytes (what the server computes, and {@code EVALSHA} expects).
 */
public enum Script {
    ENQUEUE("enqueue"),
    SCHEDULE("schedule"),
    CLAIM("claim"),
    CLAIM_BATCH("claim_batch"),
    COMPLETE("complete"),
    COMPLETE_BATCH("complete_batch"),
    RETRY("retry"),
    FLOW_DELIVER("flow_deliver"),
    FLOW_FAIL_DELIVER("flow_fail_deliver"),
    FLOW_OUTBOX_TRIM("flow_outbox_trim"),
    DELAY("delay"),
    PROMOTE("promote"),
    REAP("reap"),
    EXTEND_LOCK("extend_lock"),
    EXTEND_LOCKS("extend_locks"),
    SWEEP_STALLED("sweep_stalled"),
    QUEUE_PAUSE("queue_pause"),
    QUEUE_RESUME("queue_resume"),
    COUNTS("counts"),
    STATE_LOOKUP("state_lookup"),
    REMOVE_JOB("remove_job"),
    REPROCESS("reprocess"),
    UPDATE_DATA("update_data"),
    UPDATE_PROGRESS("update_progress"),
    ADD_LOG("add_log"),
    DRAIN("drain"),
    DRAIN_STATUS("drain_status"),
    OBLITERATE("obliterate"),
    LANE_ENQUEUE("lane_enqueue"),
    LANE_CLAIM("lane_claim"),
    LANE_CLAIM_WEIGHTED("lane_claim_weighted"),
    LANE_CLAIM_BATCH("lane_claim_batch"),
    LANE_WEIGHT("lane_weight"),
    LANE_PAUSE("lane_pause"),
    LANE_RESUME("lane_resume"),
    LANE_LIMIT("lane_limit"),
    LANE_REASSIGN("lane_reassign"),
    LANE_DRAIN("lane_drain"),
    LANE_REAP("lane_reap"),
    FLOW_HOLD("flow_hold"),
    FLOW_CHILD("flow_child"),
    QUEUE_LIMIT("queue_limit"),
    IS_MAXED("is_maxed"),
    RATE_TTL("rate_ttl"),
    LANE_COUNTS("lane_counts"),
    REPEAT_REGISTER("repeat_register"),
    REPEAT_CANCEL("repeat_cancel"),
    REPEAT_FIRE("repeat_fire"),
    MIGRATE_JOURNAL_LOCK("migrate_journal_lock"),
    MIGRATE_JOURNAL_SET("migrate_journal_set"),
    MIGRATE_JOURNAL_FORGET("migrate_journal_forget"),
    MIGRATE_JOURNAL_UNLINK("migrate_journal_unlink"),
    MIGRATE_JOURNAL_KNOWN("migrate_journal_known"),
    MIGRATE_JOURNALS("migrate_journals"),
    MIGRATE_ASSIGN_IDS("migrate_assign_ids"),
    MIGRATE_WRITE_JOBS("migrate_write_jobs"),
    MIGRATE_WRITE("migrate_write"),
    MIGRATE_V2_FENCE("migrate_v2_fence"),
    MIGRATE_COUNT_COMPLETED("migrate_count_completed"),
    MIGRATE_V1_FENCE("migrate_v1_fence"),
    MIGRATE_V1_SOURCE("migrate_v1_source");

    private final String fileName;
    private final byte[] source;
    private final byte[] sha;

    Script(String fileName) {
        this.fileName = fileName;
        String raw = new String(resource("lua/" + fileName + ".lua").orElseThrow(
                () -> new IllegalStateException("script missing from the classpath: lua/" + fileName + ".lua")),
                StandardCharsets.UTF_8);
        this.source = new LuaIncludes(LuaIncludes::classpathSnippet).expand(fileName, raw).getBytes(StandardCharsets.UTF_8);
        this.sha = sha1Hex(source).getBytes(StandardCharsets.US_ASCII);
    }

    /** The file name without {@code .lua}, e.g. {@code claim_batch}. */
    public String fileName() {
        return fileName;
    }

    /** The expanded source, as sent with {@code SCRIPT LOAD}. */
    public byte[] source() {
        return source.clone();
    }

    byte[] shaBytes() {
        return sha;
    }

    /** Lowercase hex SHA-1 of the expanded source. */
    public String sha() {
        return new String(sha, StandardCharsets.US_ASCII);
    }

    byte[] sourceBytes() {
        return source;
    }

    static Optional<byte[]> resource(String resource) {
        try (InputStream in = Script.class.getClassLoader().getResourceAsStream(resource)) {
            return in == null ? Optional.empty() : Optional.of(in.readAllBytes());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + resource, e);
        }
    }

    static String sha1Hex(byte[] bytes) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-1").digest(bytes));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-1 is required of every JVM", e);
        }
    }
}
