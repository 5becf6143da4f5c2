package io.emq.migrate.v1;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The anomalies a snapshot met in its jobs' hashes ({@link QueueSnapshot#CARRIED}), by job: a refresh carries those of each
 * job whose facts it keeps (its hash not written since), as a full read would meet them in that hash again.
 */
final class FactAnomalies {
    private final ByteArena ids;
    private final IdIndex index;
    /** By the entry of {@link #ids} that first holds a job's id: that job's anomalies, in the order the snapshot lists them. */
    private final Map<Integer, List<Anomaly>> byJob = new HashMap<>();

    FactAnomalies(QueueSnapshot snapshot) {
        Bytes base = snapshot.queue().base();
        List<Anomaly> met = snapshot.anomalies().stream().filter(a -> QueueSnapshot.CARRIED.contains(a.kind())).toList();
        ids = new ByteArena(met.size());
        index = new IdIndex(ids, met.size());
        for (Anomaly a : met) {
            int entry = ids.add(a.key().dropPrefix(base).raw());
            int first = index.putIfAbsent(entry);
            byJob.computeIfAbsent(first < 0 ? entry : first, e -> new ArrayList<>(1)).add(a);
        }
    }

    /** The anomalies the snapshot met in the hash of the job whose id is entry {@code entry} of {@code listed}. */
    List<Anomaly> of(ByteArena listed, int entry) {
        if (byJob.isEmpty()) {
            return List.of();
        }
        int at = index.find(listed, entry);
        return at < 0 ? List.of() : byJob.get(at);
    }

    boolean isEmpty() {
        return byJob.isEmpty();
    }
}
