package io.emq.migrate.migrate;

import io.emq.migrate.keyspace.Slots;
import io.emq.migrate.v1.QueueRef;
import io.emq.migrate.v1.QueueStructure;
import io.emq.migrate.wire.ServerState;
import io.emq.migrate.wire.Wire;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import redis.clients.jedis.RedisClusterClient;

/**
 * The v1 server a run reads, as the journal records it: its name ({@link io.emq.migrate.wire.Endpoint#describe})
 * and the replication ids of the data a queue lives in ({@link ServerState#replicationIds}): a single server's, or on
 * a cluster those of the master serving the queue's slot (BullMQ keeps a queue's keys in one), read once a run a slot.
 */
public final class SourceServer {
    private final Wire source;
    private final String name;
    private final Map<Integer, List<String>> idsBySlot = new ConcurrentHashMap<>();

    private SourceServer(Wire source, String name) {
        this.source = source;
        this.name = name;
    }

    public static SourceServer of(Wire source, String name) {
        return new SourceServer(source, name);
    }

    String name() {
        return name;
    }

    /** The id recorded at the fence: that of the data {@code queue} lives in ({@code master_replid}); empty when the server tells none. */
    String replicationId(QueueRef queue) {
        return replicationIds(queue).stream().findFirst().orElse("");
    }

    /**
     * Whether a migration of {@code queue} whose journal records {@code recordedSource} (when it does) and
     * {@code recordedId} began from this server's data: the same address ({@link SourceAddress#sameServer}), or the same
     * database in the same data history (its master, a replica, the replica that replaced it: the same replication id,
     * or the one its server took over from). Every database of a server shares its replication ids, so another database
     * is other data.
     */
    public boolean holdsDataOf(QueueRef queue, Optional<String> recordedSource, Optional<String> recordedId) {
        Optional<SourceAddress> was = recordedSource.map(SourceAddress::of);
        SourceAddress now = SourceAddress.of(name);
        if (was.filter(now::sameServer).isPresent()) {
            return true;
        }
        return was.map(a -> a.database().equals(now.database())).orElse(true) && shares(queue, recordedId);
    }

    /** Whether {@code queue} lives in the data history {@code recorded} names here (the same id, or the one its server took over from). */
    private boolean shares(QueueRef queue, Optional<String> recorded) {
        return recorded.filter(id -> !id.isEmpty()).map(replicationIds(queue)::contains).orElse(false);
    }

    private List<String> replicationIds(QueueRef queue) {
        byte[] meta = queue.key(QueueStructure.META).raw();
        int slot = source.client() instanceof RedisClusterClient ? Slots.slot(meta) : 0;
        return idsBySlot.computeIfAbsent(slot, s -> ServerState.replicationIds(source.client(), meta));
    }
}
