package io.emq.migrate.cli;

import io.emq.migrate.wire.Endpoint;
import io.emq.migrate.wire.Eviction;
import java.util.Optional;
import redis.clients.jedis.UnifiedJedis;

/**
 * What a server's eviction policy means for a migration ({@link Eviction}): one that may evict keys
 * without a TTL blocks it (migrate refuses it before writing, plan reports it blocked); one whose policy
 * cannot be read ({@code INFO} refused) is noted, and the migration goes on.
 */
record ServerMemory(Optional<String> problem, Optional<String> note) {
    static ServerMemory of(Endpoint endpoint, Side side, UnifiedJedis client) {
        Eviction.Finding finding = Eviction.of(client);
        if (finding instanceof Eviction.Evicting evicting) {
            return new ServerMemory(Optional.of(endpoint.describe() + " (" + side.description() + ") may evict keys that have no TTL"
                    + " when it runs short of memory (" + String.join(", ", evicting.nodes()) + "): it could drop jobs during the"
                    + " migration, which adds a copy of each until retirement, and say nothing; set its maxmemory-policy to"
                    + " noeviction (CONFIG SET maxmemory-policy noeviction, or your provider's parameter)"), Optional.empty());
        }
        if (finding instanceof Eviction.Unknown unknown) {
            return new ServerMemory(Optional.empty(), Optional.of("could not read the eviction policy of " + endpoint.describe() + " ("
                    + side.description() + "): INFO memory was refused (" + unknown.refusal() + "); make sure its maxmemory-policy is"
                    + " noeviction or volatile-*: a server that evicts keys without a TTL can drop jobs during the migration"));
        }
        return new ServerMemory(Optional.empty(), Optional.empty());
    }
}
