package io.emq.migrate.runtime;

/**
 * One claimed job as a handler sees it.
 *
 * @param attempts  the claim token: the row's attempts after this claim (a migrated job continues
 *                  its v1 count, so the first v2 claim of a job that made 2 v1 attempts reads 3)
 * @param worker    the index of the worker thread that claimed it, 0-based
 * @param claimSeq  the consumer-wide sequence number of the delivery, 1-based, assigned in the
 *                  order claims came back (exactly the server's claim order with one worker)
 * @param lane      the group whose lane served the job (lanes mode), {@code ""} from the flat pending set
 */
public record Delivery(String queue, String id, byte[] payload, long attempts, int worker, long claimSeq, String lane) {
}
