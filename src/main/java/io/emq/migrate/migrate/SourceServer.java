package io.emq.migrate.migrate;

import io.emq.migrate.wire.ServerState;
import io.emq.migrate.wire.Wire;
import java.util.List;
import java.util.Optional;

/**
 * The v1 server a run reads, as the journal records it: its name ({@link io.emq.migrate.wire.Endpoint#describe})
 * and the replication ids of its data ({@link ServerState#replicationIds}; none for a cluster), read once a run.
 */
record SourceServer(String name, List<String> replicationIds) {
    static SourceServer of(Wire source, String name) {
        return new SourceServer(name, ServerState.replicationIds(source.client()));
    }

    /** The id recorded at the fence: the server's own ({@code master_replid}); empty when it has none to tell. */
    String replicationId() {
        return replicationIds.stream().findFirst().orElse("");
    }

    /** Whether this server holds the data history {@code recorded} names (the same id, or the one it took over from). */
    boolean shares(Optional<String> recorded) {
        return recorded.filter(id -> !id.isEmpty()).map(replicationIds::contains).orElse(false);
    }
}
