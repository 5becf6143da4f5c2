package io.emq.migrate.v1;

/** How a {@link QueueSnapshotReader} reads each job's payload ({@code data}). */
public enum PayloadRead {
    /** Its length only ({@code HSTRLEN}): no JSON or UTF-8 check, no digest (the migration's fence, which digests what it copies). */
    MEASURED,
    /** Its bytes, checked for UTF-8 and JSON ({@code non-json-data}) but not hashed: what the dry run reports. */
    CHECKED,
    /** Its bytes, checked and hashed (SHA-256): what source verification compares. */
    DIGESTED
}
