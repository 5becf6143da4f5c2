package io.emq.migrate.cli;

import io.emq.migrate.wire.Endpoint;
import io.emq.migrate.wire.ServerState;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import redis.clients.jedis.UnifiedJedis;

/**
 * What a server's state ({@link ServerState}) means for a migration: one that may evict keys without a TTL, or
 * that is a replica, blocks it (migrate refuses it before writing, plan reports it blocked); one whose state cannot
 * be read ({@code INFO} refused) is noted, and the migration goes on; the memory under its limit of a single server,
 * or of each cluster master, is kept, for the plan to weigh its estimate against.
 */
record ServerChecks(List<String> problems, Optional<String> note, List<ServerState.Memory> memory) {
    /** The checks of the source and, when the target is another server, of the target: in that order, the target's last. */
    static List<ServerChecks> of(Endpoint source, UnifiedJedis sourceClient, Endpoint target, UnifiedJedis targetClient) {
        ServerChecks sourceChecks = of(source, Side.SOURCE, sourceClient, target.equals(source));
        return target.equals(source) ? List.of(sourceChecks) : List.of(sourceChecks, of(target, Side.TARGET, targetClient, true));
    }

    /** The checks of one server; {@code holdsV2}: it is the target, whose replicas retirement waits for (unless INFO is refused). */
    private static ServerChecks of(Endpoint endpoint, Side side, UnifiedJedis client, boolean holdsV2) {
        ServerState.Readout state = ServerState.of(client, endpoint.clientConfig());
        String server = endpoint.describe() + " (" + side.description() + ")";
        List<String> problems = new ArrayList<>();
        if (!state.evicting().isEmpty()) {
            problems.add(server + " may evict keys that have no TTL when it runs short of memory (" + String.join(", ", state.evicting())
                    + "): it could drop jobs during the migration, which adds a copy of each until retirement, and say nothing; set"
                    + " its maxmemory-policy to noeviction (CONFIG SET maxmemory-policy noeviction, or your provider's parameter)");
        }
        state.replicaOf().ifPresent(master -> problems.add(server + " is a read-only replica of " + master + ": a migration writes"
                + " to both servers; point --" + side.word() + " at the master"));
        Optional<String> note = state.unreadable().map(refusal -> "could not read the eviction policy of " + server
                + ": INFO was refused (" + refusal + "); make sure its maxmemory-policy is noeviction or volatile-*: a server that"
                + " evicts keys without a TTL can drop jobs during the migration" + (holdsV2 ? "; nor can retirement count its replicas"
                + " to wait for them to hold v2's rows before it deletes v1's jobs (grant the user +info where it has replicas;"
                + " MIGRATION.md, section 2)" : ""));
        if (note.isEmpty() && !state.unanswered().isEmpty()) {
            note = Optional.of("could not read the eviction policy of the replicas " + String.join(", ", state.unanswered()) + " of "
                    + server + ": make sure theirs is noeviction or volatile-*, as a failover promotes one, which could then drop"
                    + " jobs during the migration");
        }
        return new ServerChecks(problems, note, state.memory());
    }
}
