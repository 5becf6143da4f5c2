package io.emq.migrate.v1;

/** One key seen by {@link KeyspaceScanner}, with its {@code TYPE}. */
public record ScannedKey(Bytes key, KeyType type) {
}
