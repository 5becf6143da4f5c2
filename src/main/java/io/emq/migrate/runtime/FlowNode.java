package io.emq.migrate.runtime;

import java.util.List;

/**
 * One job of a flow tree: the queue it runs in, its payload, what its death does to its parent
 * ({@code fp} fail-parent, {@code id} ignore-dependency; unused at the root) and its children, which
 * may live in other queues. A node with children waits for them ({@code awaiting_children}).
 */
public record FlowNode(String queue, byte[] payload, String policy, List<FlowNode> children) {
    public FlowNode {
        if (!policy.equals("fp") && !policy.equals("id")) {
            throw new IllegalArgumentException("a flow policy is fp (fail parent) or id (ignore dependency), got " + policy);
        }
        children = List.copyOf(children);
    }

    /** A leaf that fails its parent when it dies. */
    public static FlowNode leaf(String queue, byte[] payload) {
        return new FlowNode(queue, payload, "fp", List.of());
    }

    /** A node waiting for {@code children}, failing its own parent when it dies. */
    public static FlowNode of(String queue, byte[] payload, FlowNode... children) {
        return new FlowNode(queue, payload, "fp", List.of(children));
    }

    /** This node with policy {@code id}: its death only counts as settled for its parent. */
    public FlowNode ignoringFailure() {
        return new FlowNode(queue, payload, "id", children);
    }

    /** Levels below and including this node (a leaf is 1). */
    public int depth() {
        return 1 + children.stream().mapToInt(FlowNode::depth).max().orElse(0);
    }
}
