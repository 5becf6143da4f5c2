package io.emq.migrate.runtime;

/** The outcome of {@link Lanes#reassign}. */
public enum Reassignment {
    /** The waiting job moved to the other lane. */
    REASSIGNED,
    /** The job already waits in that lane. */
    ALREADY_THERE,
    /** No row, or a row in no lane. */
    NOT_FOUND,
    /** The job is not waiting in its lane (claimed, scheduled or dead); nothing changed. */
    NOT_WAITING;

    static Reassignment ofReply(long reply) {
        return switch ((int) reply) {
            case 1 -> REASSIGNED;
            case 0 -> ALREADY_THERE;
            case -1 -> NOT_FOUND;
            case -2 -> NOT_WAITING;
            default -> throw new IllegalStateException("lane_reassign replied " + reply);
        };
    }
}
