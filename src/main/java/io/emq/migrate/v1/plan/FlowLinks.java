package io.emq.migrate.v1.plan;

import io.emq.migrate.v1.Bytes;
import io.emq.migrate.v1.QueueRef;
import io.emq.migrate.v1.QueueStructure;
import java.nio.charset.StandardCharsets;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisDataException;

/**
 * Why a flow job that a migrated job links to (its parent, or a child) has no branded id, and what to do: as {@code plan}
 * foresees it for a parent ({@link Planner}) and as {@code migrate} finds it for either.
 */
public final class FlowLinks {
    private FlowLinks() {
    }

    /** No v1 queue under the run's prefixes holds the linked job. */
    public static String outsideThePrefixes() {
        return "no v1 queue under the run's prefixes holds it: if its queue is under another prefix, add that --prefix; if"
                + " its queue is gone, the link dangles in v1 too: remove it by hand, then migrate again";
    }

    /** The linked job's queue is neither in the run nor migrated on the target before. */
    public static String queueLeftOut(QueueRef owner) {
        return "migrate its queue " + owner.display() + " in the same run (add --queue for it, or use --all)";
    }

    /** The linked job's queue has no valid v2 name (its own, or one {@code --rename} gives it). */
    public static String withoutV2Name(QueueRef owner) {
        return "its queue " + owner.display() + " has no valid v2 name: migrate it in the same run with --rename "
                + owner.name().display() + "=NEW";
    }

    /**
     * Whether v1 holds the job at {@code key} (of queue {@code owner}) completed and naming no parent: a job no migration
     * gives a branded id ({@link Planner#getsIdentity}). Two reads; a {@code completed} or a job key of another type (an
     * anomaly of that queue, reported with it) holds no completed job.
     */
    public static boolean completedWithoutParent(UnifiedJedis source, QueueRef owner, Bytes key) {
        try {
            return source.zscore(owner.key(QueueStructure.COMPLETED).raw(), key.dropPrefix(owner.base()).raw()) != null
                    && !source.hexists(key.raw(), "parentKey".getBytes(StandardCharsets.US_ASCII));
        } catch (JedisDataException e) {
            if (e.getMessage() != null && e.getMessage().startsWith("WRONGTYPE")) {
                return false;
            }
            throw e;
        }
    }

    /** The linked job is completed in v1 and names no parent ({@link #completedWithoutParent}). */
    public static String completedWithoutId() {
        return "v1 holds it completed, and a completed job gets a branded id only as a flow child naming its parent (its"
                + " parentKey; v2 keeps no completed job): the link outlived its flow (a parent completes after letting a failed"
                + " child go, with ignoreDependencyOnFailure or removeDependencyOnFailure; a finished child may have lost its"
                + " parentKey): remove the link by hand (the child's parentKey and parent fields, or the parent's entry for"
                + " the child), or give a finished child its parentKey back, then migrate again";
    }

    /** The linked job, at {@code key}, does not exist in v1. */
    public static String dangling(Bytes key) {
        return "v1 holds no job at " + key.display() + " (deleted, its link left behind): the link dangles in v1 too: remove it"
                + " by hand, then migrate again";
    }

    /** The linked job's queue has a migration that gave no job an id yet: refused at its start, or stopped before. */
    public static String givenNoIdsYet(QueueRef owner) {
        return "the migration of its queue " + owner.display() + " has given no job an id yet (refused: see its refusal, or"
                + " stopped before): migrate that queue first, or both in one run once its refusal is lifted";
    }

    /** The linked job's queue began its migration before v1 added the job. */
    public static String addedSince(QueueRef owner) {
        return "the migration of its queue " + owner.display() + " began before v1 added it, while a flow producer was live:"
                + " stop the flow producers, then migrate again (`emq-migrate abandon` both queues first if it is refused again)";
    }
}
