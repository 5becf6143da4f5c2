package io.emq.migrate.v1;

/** A deduplication key {@code P:Q:de:<did>}: the job id it holds and its PTTL (-1 none). */
public record DedupEntry(Bytes dedupId, Bytes jobId, long pttlMs) {
}
