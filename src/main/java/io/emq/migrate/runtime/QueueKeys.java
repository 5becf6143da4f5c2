package io.emq.migrate.runtime;

import io.emq.migrate.keyspace.BrandedId;
import io.emq.migrate.keyspace.JobSub;
import io.emq.migrate.keyspace.Keys;
import io.emq.migrate.keyspace.Part;
import io.emq.migrate.keyspace.StructureType;
import java.nio.charset.StandardCharsets;

/** The keys of one queue, built by {@link Keys} and encoded once, as the scripts take them. */
final class QueueKeys {

    final String queue;
    final Keys keys;
    final byte[] base;
    final byte[] jobBase;
    final byte[] pending;
    final byte[] active;
    final byte[] schedule;
    final byte[] dead;
    final byte[] meta;
    final byte[] ring;
    final byte[] lanesPaused;
    final byte[] glimit;
    final byte[] gweight;
    final byte[] limiter;
    final byte[] repeat;
    final byte[] wake;

    QueueKeys(String queue) {
        this.keys = Keys.queue(queue);
        this.queue = queue;
        this.base = bytes(keys.base());
        this.jobBase = bytes(keys.base() + "job:");
        this.pending = bytes(keys.pending());
        this.active = bytes(keys.active());
        this.schedule = bytes(keys.schedule());
        this.dead = bytes(keys.dead());
        this.meta = bytes(keys.meta());
        this.ring = bytes(keys.structure(StructureType.RING));
        this.lanesPaused = bytes(keys.structure(StructureType.PAUSED));
        this.glimit = bytes(keys.structure(StructureType.GLIMIT));
        this.gweight = bytes(keys.structure(StructureType.GWEIGHT));
        this.limiter = bytes(keys.structure(StructureType.LIMITER));
        this.repeat = bytes(keys.structure(StructureType.REPEAT));
        this.wake = bytes(keys.structure(StructureType.WAKE));
    }

    /** The row key; an id that is not a well-formed branded id is refused here, before any wire. */
    byte[] row(String id) {
        return bytes(keys.job(BrandedId.of(id)));
    }

    byte[] rowSub(String id, JobSub sub) {
        return bytes(keys.job(BrandedId.of(id), sub));
    }

    /** The pending set of a lane; a group that is not a well-formed branded id is refused here. */
    byte[] lane(String group) {
        return bytes(keys.key(new Part.GroupPending(BrandedId.of(group))));
    }

    byte[] dedup(String did) {
        return bytes(keys.dedup(did));
    }

    static byte[] num(long n) {
        return bytes(Long.toString(n));
    }

    static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
