package io.emq.migrate.runtime;

import java.nio.charset.StandardCharsets;

/** The keys of one queue, encoded once, as the scripts take them. */
final class QueueKeys {

    final String queue;
    final byte[] base;
    final byte[] jobBase;
    final byte[] pending;
    final byte[] active;
    final byte[] schedule;
    final byte[] dead;
    final byte[] meta;
    private final String jobBaseText;

    QueueKeys(String queue) {
        this.queue = queue;
        String b = "emq:{" + queue + "}:";
        this.base = bytes(b);
        this.jobBaseText = b + "job:";
        this.jobBase = bytes(jobBaseText);
        this.pending = bytes(b + "pending");
        this.active = bytes(b + "active");
        this.schedule = bytes(b + "schedule");
        this.dead = bytes(b + "dead");
        this.meta = bytes(b + "meta");
    }

    byte[] row(String id) {
        return bytes(jobBaseText + id);
    }

    byte[] rowSub(String id, String sub) {
        return bytes(jobBaseText + id + ":" + sub);
    }

    byte[] dedup(String did) {
        return bytes("emq:{" + queue + "}:de:" + did);
    }

    static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
