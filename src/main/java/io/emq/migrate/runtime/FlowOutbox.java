package io.emq.migrate.runtime;

import static io.emq.migrate.runtime.QueueKeys.bytes;

import io.emq.migrate.keyspace.JobSub;
import io.emq.migrate.wire.Replies;
import io.emq.migrate.wire.Script;
import io.emq.migrate.wire.ScriptCall;
import io.emq.migrate.wire.ScriptReply;
import io.emq.migrate.wire.Wire;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Delivers one queue's {@code flow:outbox} to flow parents in other queues (v2 protocol §4.9, the
 * pump sweep). Entries are read from the head, each is delivered by {@code flow_deliver} or
 * {@code flow_fail_deliver} on its parent's slot (separate calls in a cluster), and only then
 * taken off the outbox: at-least-once delivery, made effectively-once by the scripts' HSETNX.
 *
 * <p>The outbox is trimmed by {@code flow_outbox_trim}, which removes each delivered entry only
 * while it is the head, rather than by {@code LTRIM n -1}: with two deliverers on one outbox (two
 * consumers of the queue, or a consumer's beat and its drained check) a count-based trim would drop
 * entries pushed after the other deliverer's read. Malformed entries are taken off with the rest,
 * reported as {@link FlowDelivery#MALFORMED} with their bytes in the {@link OutboxSweep}; the
 * closed key grammar has no place to park them.
 */
final class FlowOutbox {

    private final Wire wire;
    private final byte[] outbox;

    FlowOutbox(Wire wire, QueueKeys keys) {
        this.wire = wire;
        this.outbox = bytes(keys.keys.flowOutbox());
    }

    /**
     * Delivers up to {@code batch} entries from the head, in one pipeline. A delivery refused by
     * the server stops the sweep: the entries before it are taken off, it and those after it stay
     * for the next sweep (those after it were delivered already, so delivering them again changes
     * nothing), and the refusal is thrown.
     */
    OutboxSweep deliver(int batch) {
        List<byte[]> entries = wire.lrange(outbox, 0, batch - 1L);
        List<Optional<OutboxEntry>> parsed = new ArrayList<>(entries.size());
        List<ScriptCall<FlowDelivery>> calls = new ArrayList<>();
        for (byte[] raw : entries) {
            Optional<OutboxEntry> entry = OutboxEntry.parse(raw);
            parsed.add(entry);
            entry.ifPresent(e -> calls.add(deliveryCall(e)));
        }
        List<ScriptReply<FlowDelivery>> replies = wire.evalAll(calls);
        List<FlowDelivery> outcomes = new ArrayList<>();
        List<byte[]> malformed = new ArrayList<>();
        RuntimeException refused = null;
        int reply = 0;
        for (int i = 0; i < entries.size() && refused == null; i++) {
            if (parsed.get(i).isEmpty()) {
                outcomes.add(FlowDelivery.MALFORMED);
                malformed.add(entries.get(i));
                continue;
            }
            ScriptReply<FlowDelivery> r = replies.get(reply++);
            if (r.ok()) {
                outcomes.add(r.value());
            } else {
                refused = r.error();
            }
        }
        if (!outcomes.isEmpty()) {
            wire.eval(new ScriptCall<>(Script.FLOW_OUTBOX_TRIM, List.of(outbox), entries.subList(0, outcomes.size()), Replies::ignored));
        }
        if (refused != null) {
            throw refused;
        }
        return new OutboxSweep(outcomes, malformed);
    }

    private static ScriptCall<FlowDelivery> deliveryCall(OutboxEntry entry) {
        QueueKeys parent = new QueueKeys(entry.parentQueue());
        String id = entry.parentId();
        byte[] child = bytes(entry.childId());
        if (entry instanceof OutboxEntry.Died d) {
            return new ScriptCall<>(Script.FLOW_FAIL_DELIVER,
                    List.of(parent.rowSub(id, JobSub.DEPENDENCIES), parent.rowSub(id, JobSub.FAILED),
                            parent.rowSub(id, JobSub.UNSUCCESSFUL), parent.row(id)),
                    List.of(child, d.error(), bytes(id), parent.base, bytes(d.policy())), FlowOutbox::delivery);
        }
        OutboxEntry.Completed c = (OutboxEntry.Completed) entry;
        return new ScriptCall<>(Script.FLOW_DELIVER,
                List.of(parent.rowSub(id, JobSub.DEPENDENCIES), parent.rowSub(id, JobSub.PROCESSED), parent.row(id)),
                List.of(child, c.result(), bytes(id), parent.base), FlowOutbox::delivery);
    }

    private static FlowDelivery delivery(Object reply) {
        return FlowDelivery.ofReply(Replies.asLong(reply));
    }
}
