package io.emq.migrate.runtime;

/** A job leased from a lane: the {@link Claim} and the lane ({@code group}) it came from ({@code ""} for the flat pending set). */
public record LaneClaim(Claim claim, String group) {
}
