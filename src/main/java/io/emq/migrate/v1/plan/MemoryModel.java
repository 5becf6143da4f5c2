package io.emq.migrate.v1.plan;

import io.emq.migrate.payload.PayloadPolicy;
import io.emq.migrate.v1.JobFacts;

/**
 * A rough model of what v2 keys cost in server memory (bytes), for the plan's estimate: a fixed
 * per-key overhead (dict entry, object header, key sds, expiry slot), small hashes, rows (hashtable-encoded
 * once a value passes 64 bytes, as an envelope payload always does), and skiplist zsets. Real usage depends
 * on the server's encodings and allocator; the plan labels these figures as estimates. Calibrated on Redis
 * 7.0 (session 19): 200,000 jobs of 200-byte data added 221 MiB to {@code used_memory} (a row 680 bytes by
 * {@code MEMORY USAGE}, the pending zset 104 bytes a member, the journal 389 bytes a job: its id map and the
 * expectation, a SHA-256 and two digests, of each job); the model says 223 MiB.
 */
final class MemoryModel {
    static final long KEY = 72;
    static final long HASH_FIELD = 24;
    static final long SMALL_HASH = KEY + 4 * HASH_FIELD + 64;
    static final long STRING_KEY = KEY + 48;
    static final long LIST_KEY = KEY + 128;
    static final long ZSET_MEMBER = 104;
    static final long JOURNAL_ENTRY = 390;
    /** What a row's fields cost more once it is a hashtable (a value over 64 bytes) than in a listpack. */
    private static final long HASHTABLE_ROW = 96;
    private static final long ENVELOPE_OVERHEAD = 160;
    private static final long ROW_FIELDS = 3 * HASH_FIELD + "state".length() + "pending".length() + "attempts".length() + 4
            + "payload".length();

    private MemoryModel() {
    }

    static long zset(long members) {
        return KEY + members * ZSET_MEMBER;
    }

    static long jobRow(String base, JobFacts j, PayloadPolicy policy, String queue) {
        long data = Math.max(0, j.payloadBytes());
        long payload = policy == PayloadPolicy.DATA ? data
                : data + (j.payloadJson() ? 0 : data / 8 + 2) + ENVELOPE_OVERHEAD
                        + (j.name() == null ? 0 : j.name().length()) + j.id().length() + queue.length();
        long extra = j.parentKey() == null ? 0 : 3 * HASH_FIELD + j.parentKey().length();
        return KEY + base.length() + "job:".length() + 14 + ROW_FIELDS + payload + extra + (payload > 64 ? HASHTABLE_ROW : 0);
    }
}
