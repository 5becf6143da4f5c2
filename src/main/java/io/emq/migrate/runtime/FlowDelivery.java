package io.emq.migrate.runtime;

/** What delivering one {@code flow:outbox} entry did to the parent it names. */
public enum FlowDelivery {
    /** The child was recorded; the parent still awaits other children (or is not awaiting any more). */
    RECORDED,
    /** The child was recorded and it was the last: the parent went to its queue's pending set. */
    RELEASED,
    /** A fail-parent child died: the parent was dead-lettered (once, at the first such death). */
    PARENT_DEAD,
    /** The child was already recorded (the entry was delivered before, then not trimmed): nothing changed. */
    REPEATED,
    /** The parent row no longer exists: nothing was written. */
    PARENT_GONE,
    /** Not an outbox entry (neither NUL-joined shape, or a bad queue name, id or policy): dropped. */
    MALFORMED;

    /** The reply of {@code flow_deliver} or {@code flow_fail_deliver}. */
    static FlowDelivery ofReply(long reply) {
        return switch ((int) reply) {
            case 3 -> PARENT_DEAD;
            case 2 -> RELEASED;
            case 1 -> RECORDED;
            case 0 -> REPEATED;
            case -1 -> PARENT_GONE;
            default -> throw new IllegalStateException("unexpected flow delivery reply " + reply);
        };
    }
}
