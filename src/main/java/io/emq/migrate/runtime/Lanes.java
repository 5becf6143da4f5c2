package io.emq.migrate.runtime;

import static io.emq.migrate.runtime.QueueKeys.bytes;
import static io.emq.migrate.runtime.QueueKeys.num;

import io.emq.migrate.wire.Replies;
import io.emq.migrate.wire.Script;
import io.emq.migrate.wire.ScriptCall;
import io.emq.migrate.wire.Wire;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;

/**
 * The fair lanes of one queue (v2 protocol, the reference's {@code EchoMQ.Lanes}): a lane is a
 * pending set per group ({@code emq:{q}:g:<group>:pending}, the group a branded id); the ring holds
 * exactly the lanes that can be served now (nonempty, not paused, below their {@code glimit}) and
 * every claim rotates it one step first, so groups are served in turn. Settling, retrying, reaping
 * and promoting a lane job are the {@link Jobs} verbs, which read the row's {@code group}.
 */
public final class Lanes {

    private static final int REAP_LIMIT = 100;

    private final Wire wire;
    private final QueueKeys keys;
    private final Jobs jobs;

    private Lanes(Wire wire, Jobs jobs) {
        this.wire = wire;
        this.jobs = jobs;
        this.keys = new QueueKeys(jobs.queue());
    }

    /** The lanes of {@code jobs}' queue over {@code wire}. */
    public static Lanes of(Wire wire, Jobs jobs) {
        return new Lanes(wire, jobs);
    }

    /** Admits a job into lane {@code group} under a fresh id. */
    public Admission enqueue(String group, byte[] payload) {
        return enqueue(group, jobs.mintId(), payload);
    }

    /** Admits a job into lane {@code group} under the caller's id; {@code EMQKIND} unless a {@code JOB} id. */
    public Admission enqueue(String group, String id, byte[] payload) {
        long added = wire.eval(new ScriptCall<>(Script.LANE_ENQUEUE, List.of(keys.row(id), keys.lane(group)),
                List.of(bytes(id), payload, bytes(group), keys.base), Replies::asLong));
        return new Admission(id, added == 1);
    }

    /** Rotates the ring one step and claims the head of that lane; empty when paused or nothing is served. */
    public Optional<LaneClaim> claim(Duration lease) {
        return wire.eval(claimCall(lease)).stream().findFirst();
    }

    /** A {@code lane_claim} reply: empty, or one job. */
    private static List<LaneClaim> laneClaimOf(Object reply) {
        List<Object> quad = Replies.asList(reply);
        return quad.isEmpty() ? List.of() : List.of(laneClaim(quad));
    }

    /** Rotates the ring one step and claims the lane's fair share: min(weight, depth, limit headroom). */
    public List<LaneClaim> claimWeighted(Duration lease) {
        return wire.eval(turn(Script.LANE_CLAIM_WEIGHTED, lease, Lanes::laneClaims));
    }

    /** Rotates the ring one step and claims a batch from that one lane: min(depth, limit headroom). */
    public List<LaneClaim> claimBatch(Duration lease) {
        return wire.eval(turn(Script.LANE_CLAIM_BATCH, lease, Lanes::laneClaims));
    }

    ScriptCall<List<LaneClaim>> claimCall(Duration lease) {
        return turn(Script.LANE_CLAIM, lease, Lanes::laneClaimOf);
    }

    private ScriptCall<List<LaneClaim>> turn(Script script, Duration lease, Function<Object, List<LaneClaim>> decoder) {
        return new ScriptCall<>(script, List.of(keys.ring, keys.active, keys.meta), List.of(keys.base, num(lease.toMillis())),
                decoder);
    }

    private static List<LaneClaim> laneClaims(Object reply) {
        List<LaneClaim> out = new ArrayList<>();
        for (Object member : Replies.asList(reply)) {
            out.add(laneClaim(Replies.asList(member)));
        }
        return out;
    }

    private static LaneClaim laneClaim(List<Object> quad) {
        return new LaneClaim(new Claim(Replies.asText(quad.get(0)), Replies.asBytes(quad.get(1)), Replies.asLong(quad.get(2))),
                Replies.asText(quad.get(3)));
    }

    /** Sets the lane's share per weighted turn (at least 1). */
    public void weight(String group, int weight) {
        keys.lane(group);
        if (weight < 1) {
            throw new IllegalArgumentException("a lane weight is at least 1, got " + weight);
        }
        wire.eval(new ScriptCall<>(Script.LANE_WEIGHT, List.of(keys.gweight), List.of(bytes(group), num(weight)), Replies::ignored));
    }

    /** Takes the lane out of rotation; its backlog and its jobs in flight are untouched. */
    public void pause(String group) {
        keys.lane(group);
        wire.eval(new ScriptCall<>(Script.LANE_PAUSE, List.of(keys.lanesPaused, keys.ring), List.of(bytes(group)), Replies::ignored));
    }

    /** Returns the lane to rotation when it can be served. */
    public void resume(String group) {
        keys.lane(group);
        wire.eval(new ScriptCall<>(Script.LANE_RESUME, List.of(keys.lanesPaused), List.of(keys.base, bytes(group)), Replies::ignored));
    }

    /** Sets the lane's concurrency ceiling (at least 1): at most that many of its jobs in flight. */
    public void limit(String group, int limit) {
        keys.lane(group);
        if (limit < 1) {
            throw new IllegalArgumentException("a lane limit is at least 1, got " + limit);
        }
        wire.eval(new ScriptCall<>(Script.LANE_LIMIT, List.of(keys.glimit), List.of(keys.base, bytes(group), num(limit)), Replies::ignored));
    }

    /** Moves a waiting job to lane {@code group}, keeping its place in mint order. */
    public Reassignment reassign(String id, String group) {
        return wire.eval(new ScriptCall<>(Script.LANE_REASSIGN, List.of(keys.row(id), keys.lane(group)),
                List.of(bytes(id), bytes(group), keys.base), reply -> Reassignment.ofReply(Replies.asLong(reply))));
    }

    /** Deletes every waiting job of the lane and takes it off the ring; returns how many. */
    public long drain(String group) {
        return wire.eval(new ScriptCall<>(Script.LANE_DRAIN, List.of(keys.lane(group)), List.of(keys.base, bytes(group)), Replies::asLong));
    }

    /** Returns the lane's lapsed leases to the lane; other lanes' are left to {@link Jobs#reap()}. */
    public long reap(String group) {
        keys.lane(group);
        return wire.eval(new ScriptCall<>(Script.LANE_REAP, List.of(keys.active), List.of(keys.base, bytes(group), num(REAP_LIMIT)), Replies::asLong));
    }

    /** Jobs waiting in the lane. */
    public long depth(String group) {
        return wire.zcard(keys.lane(group));
    }

    /** Jobs waiting in each of {@code groups}' lanes, read at once, in the order given. */
    public Map<String, Long> depths(List<String> groups) {
        List<byte[]> args = new ArrayList<>();
        args.add(keys.base);
        for (String g : groups) {
            keys.lane(g);
            args.add(bytes(g));
        }
        List<Object> counts = wire.eval(new ScriptCall<>(Script.LANE_COUNTS, List.of(keys.ring), args, Replies::asList));
        Map<String, Long> out = new LinkedHashMap<>();
        for (int i = 0; i < groups.size(); i++) {
            out.put(groups.get(i), Replies.asLong(counts.get(i)));
        }
        return out;
    }

    /**
     * Waits up to {@code timeout} for a lane to join the ring (a push on {@code emq:{q}:wake}), taking
     * that push; true when one came. A consumer with nothing to claim parks here instead of polling.
     */
    public boolean park(Duration timeout) {
        return wire.takeWithin(keys.wake, timeout);
    }

    /** The ring, head first: the lanes that can be served now, in serve order. */
    public List<String> ring() {
        List<String> out = new ArrayList<>();
        for (byte[] g : wire.lrange(keys.ring, 0, -1)) {
            out.add(Replies.asText(g));
        }
        return out;
    }
}
