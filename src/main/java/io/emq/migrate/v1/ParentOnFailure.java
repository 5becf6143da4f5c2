package io.emq.migrate.v1;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;

/**
 * What BullMQ does to a flow child's parent when the child fails, as the child's {@code parent} field tells
 * ({@code {"id", "queueKey", "fpof"|"idof"|"cpof"|"rdof": true}}), and the v2 {@code parent_policy} it becomes: v2 knows
 * only {@code fp} (the parent fails) and {@code id} (the failure is recorded, the parent goes on).
 */
public enum ParentOnFailure {
    /** {@code fpof}: the parent fails. */
    FAIL("fp"),
    /** {@code idof}: the failure is recorded and ignored. */
    IGNORE("id"),
    /** {@code cpof}: the parent goes on (v2 releases it when every child settled: it does not start early). */
    CONTINUE("id"),
    /** {@code rdof}: the child is dropped from the parent's dependencies. */
    REMOVE("id"),
    /**
     * None of them (or a {@code parent} field that is no JSON object): BullMQ's default leaves the parent waiting for its
     * children for ever; v2 has no such policy, and fails the parent ({@code fp}).
     */
    WAIT("fp");

    private static final ObjectMapper JSON = new ObjectMapper();

    private final String v2Policy;

    ParentOnFailure(String v2Policy) {
        this.v2Policy = v2Policy;
    }

    /** The v2 {@code parent_policy}: {@code fp} or {@code id}. */
    public String v2Policy() {
        return v2Policy;
    }

    /** The option of a child's {@code parent} field ({@code null} when absent). */
    public static ParentOnFailure of(byte[] parent) {
        if (parent == null) {
            return WAIT;
        }
        try {
            JsonNode node = JSON.readTree(parent);
            return node == null ? WAIT : node.path("fpof").asBoolean() ? FAIL : node.path("idof").asBoolean() ? IGNORE
                    : node.path("cpof").asBoolean() ? CONTINUE : node.path("rdof").asBoolean() ? REMOVE : WAIT;
        } catch (IOException notJson) {
            return WAIT;
        }
    }
}
