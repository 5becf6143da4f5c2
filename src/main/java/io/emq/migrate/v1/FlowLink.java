package io.emq.migrate.v1;

/**
 * A flow edge seen from the child: the child job of this queue and the full key of its parent
 * (which may live in another queue or prefix, in which case {@code crossQueue} is true), and what the child's failure
 * does to the parent.
 */
public record FlowLink(Bytes childId, Bytes parentKey, boolean crossQueue, ParentOnFailure onFailure) {
}
