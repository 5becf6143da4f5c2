package io.emq.migrate.wire;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * The v2 script bundle: one Lua file per constant, read from {@code lua/<name>.lua} on the
 * classpath, identified by the lowercase hex SHA-1 of its bytes (what {@code EVALSHA} expects).
 */
public enum Script {
    ENQUEUE("enqueue"),
    SCHEDULE("schedule"),
    CLAIM("claim"),
    CLAIM_BATCH("claim_batch"),
    COMPLETE("complete"),
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
    MIGRATE_JOURNAL_LOCK("migrate_journal_lock"),
    MIGRATE_JOURNAL_SET("migrate_journal_set"),
    MIGRATE_JOURNAL_FORGET("migrate_journal_forget"),
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
        this.source = read("lua/" + fileName + ".lua");
        this.sha = sha1Hex(source).getBytes(StandardCharsets.US_ASCII);
    }

    /** The file name without {@code .lua}, e.g. {@code claim_batch}. */
    public String fileName() {
        return fileName;
    }

    public byte[] source() {
        return source.clone();
    }

    byte[] shaBytes() {
        return sha;
    }

    /** Lowercase hex SHA-1 of the source. */
    public String sha() {
        return new String(sha, StandardCharsets.US_ASCII);
    }

    byte[] sourceBytes() {
        return source;
    }

    private static byte[] read(String resource) {
        try (InputStream in = Script.class.getClassLoader().getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException("script missing from the classpath: " + resource);
            }
            return in.readAllBytes();
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
