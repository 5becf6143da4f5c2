package io.emq.migrate.runtime;

/** A job leased to the caller; {@code token} (the row's attempts after the claim) fences every settlement. */
public record Claim(String id, byte[] payload, long token) {
}
