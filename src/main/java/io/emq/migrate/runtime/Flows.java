package io.emq.migrate.runtime;

import static io.emq.migrate.runtime.QueueKeys.bytes;
import static io.emq.migrate.runtime.QueueKeys.num;

import io.emq.migrate.keyspace.JobSub;
import io.emq.migrate.keyspace.SnowflakeMinter;
import io.emq.migrate.wire.Replies;
import io.emq.migrate.wire.Script;
import io.emq.migrate.wire.ScriptCall;
import io.emq.migrate.wire.Wire;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Flow admission (v2 protocol §4.9, the reference's {@code EchoMQ.Flows}): a tree of jobs, any depth,
 * its nodes in any queues. Admission is top-down and parent-first: each node waiting for children is
 * held ({@code flow_hold}, {@code :dependencies} = its child count) before any of its children
 * exists, so a child can never complete into a missing counter; leaves are admitted claimable
 * ({@code flow_child}). Across queues this is one script per node, not one transaction: a partial
 * admission leaves its parents held (never run early). Completion and failure then travel up the
 * tree through {@code complete}, {@code retry} and the flow outbox.
 */
public final class Flows {

    private final Wire wire;
    private final SnowflakeMinter minter;

    private Flows(Wire wire, SnowflakeMinter minter) {
        this.wire = wire;
        this.minter = minter;
    }

    /** Flows over {@code wire}, minting ids with {@code minter}. */
    public static Flows on(Wire wire, SnowflakeMinter minter) {
        return new Flows(wire, minter);
    }

    /** Admits {@code root} and its tree under fresh ids. */
    public AdmittedFlow add(FlowNode root) {
        return admit(root, "", "");
    }

    /** Admits many trees, one after the other; each is admitted (or left held) on its own. */
    public List<AdmittedFlow> addAll(List<FlowNode> roots) {
        List<AdmittedFlow> out = new ArrayList<>(roots.size());
        for (FlowNode root : roots) {
            out.add(add(root));
        }
        return out;
    }

    private AdmittedFlow admit(FlowNode node, String parent, String parentQueue) {
        QueueKeys keys = new QueueKeys(node.queue());
        String id = minter.mintJob().toString();
        if (node.children().isEmpty()) {
            wire.eval(new ScriptCall<>(Script.FLOW_CHILD, List.of(keys.row(id), keys.pending),
                    List.of(bytes(id), node.payload(), bytes(parent), bytes(parentQueue), bytes(node.policy())), Replies::ignored));
            return new AdmittedFlow(node.queue(), id, List.of());
        }
        wire.eval(new ScriptCall<>(Script.FLOW_HOLD, List.of(keys.row(id), keys.rowSub(id, JobSub.DEPENDENCIES)),
                List.of(bytes(id), node.payload(), num(node.children().size()), bytes(parent), bytes(parentQueue),
                        bytes(node.policy())), Replies::ignored));
        List<AdmittedFlow> children = new ArrayList<>();
        for (FlowNode child : node.children()) {
            children.add(admit(child, id, node.queue()));
        }
        return new AdmittedFlow(node.queue(), id, children);
    }

    /** The results of a parent's completed children, by child id (the parent's {@code :processed}). */
    public Map<String, String> childrenValues(String queue, String parent) {
        Map<String, String> out = new LinkedHashMap<>();
        wire.hgetAll(new QueueKeys(queue).rowSub(parent, JobSub.PROCESSED))
                .forEach((k, v) -> out.put(Replies.asText(k), Replies.asText(v)));
        return out;
    }
}
