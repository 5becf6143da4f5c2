package io.emq.migrate.v1;

/**
 * The small per-job facts a snapshot keeps (the body stays on the server; read it with
 * {@link V1JobReader}). {@code rank} is the 1-based position in the queue's rebrand order,
 * {@code position} the 0-based position in its state's v1 serve order.
 *
 * @param score         the zset score (NaN for list states and unknown jobs)
 * @param createdAt     creation ms, with the v1 app's shifted delayed timestamp undone
 * @param priority      decoded priority: {@code opts.pri} for v1 Elixir jobs, the hash field otherwise
 * @param delayMs       decoded requested delay: {@code opts.del} for v1 Elixir jobs, the hash field otherwise
 * @param dueAt         delayed jobs: {@code floor(score / 4096)}, exactly (see {@link ScoreCodec#dueAt}); -1 otherwise
 * @param attempts      attempts started ({@code ats}, else {@code atm}, else {@code attemptsMade}, else 0)
 * @param attemptsMade  attempts made ({@code atm}, else {@code attemptsMade}, else 0)
 * @param payloadBytes  length of {@code data} in bytes (-1 when absent)
 * @param payloadSha256 hex SHA-256 of the raw {@code data} bytes (empty when absent; null when the snapshot
 *                      was read without payload digests)
 * @param payloadJson   whether {@code data} parses as one JSON value (false when only measured, not read)
 * @param lockTtlMs     active jobs: PTTL of {@code :lock} (-2 none, -1 no expiry); -2 otherwise
 * @param parentKey     full key of the flow parent ({@code parentKey} field), or null
 * @param repeatJobKey  the scheduler id ({@code rjk}), or null
 * @param finishedOn    ms, or -1
 */
public record JobFacts(
        Bytes id,
        V1State state,
        long rank,
        long position,
        double score,
        JobLayout layout,
        String name,
        long createdAt,
        long priority,
        long delayMs,
        long dueAt,
        boolean lifo,
        long attempts,
        long attemptsMade,
        long payloadBytes,
        String payloadSha256,
        boolean payloadJson,
        long lockTtlMs,
        Bytes parentKey,
        Bytes repeatJobKey,
        long finishedOn) {

    public boolean hasLiveLock() {
        return lockTtlMs > 0 || lockTtlMs == -1;
    }
}
