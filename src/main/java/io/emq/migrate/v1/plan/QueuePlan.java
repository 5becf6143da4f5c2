package io.emq.migrate.v1.plan;

import io.emq.migrate.payload.PayloadPolicy;
import io.emq.migrate.v1.Anomaly;
import io.emq.migrate.v1.AnomalyKind;
import io.emq.migrate.v1.QueueSnapshot;
import io.emq.migrate.v1.RefusalKind;
import io.emq.migrate.v1.JobLayout;
import io.emq.migrate.v1.V1State;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The dry-run plan of one queue: what each v1 state becomes in v2, every anomaly and refusal,
 * the payload policy, the first rebranded ids, the v2 keys it would write with a memory estimate,
 * and the v1 keys dropped with the source.
 *
 * @param v2Name   the v2 queue name (the v1 name, or the rename), empty while the name is refused
 * @param fates    how many jobs end up in each v2 fate
 * @param dropped  v1 queue-level keys that have no v2 twin, by suffix (deleted with the source)
 * @param settings the v1 meta settings the v2 gates read, each carried or dropped with the reason
 * @param layouts  how many jobs have each writer's layout
 * @param keptIds  how many jobs keep their v1 id, a JOB branded id ({@code --keep-branded-ids}): v2 serves them by their
 *                 own mint time among the minted ids, not at their place in v1's serve order, and that order is not checked
 */
public record QueuePlan(QueueSnapshot snapshot, Optional<String> v2Name, PayloadPolicy payload,
                        Map<V1State, V2Fate> mapping, Map<V2Fate, Long> fates, List<PlannedRefusal> refusals,
                        List<RebrandEntry> preview, List<V2KeyEstimate> v2Keys, Map<String, Long> dropped,
                        List<QueueSetting> settings, Map<JobLayout, Long> layouts, long keptIds) {

    public QueuePlan {
        mapping = Map.copyOf(mapping);
        fates = Map.copyOf(fates);
        refusals = List.copyOf(refusals);
        preview = List.copyOf(preview);
        v2Keys = List.copyOf(v2Keys);
        dropped = Map.copyOf(dropped);
        settings = List.copyOf(settings);
        layouts = Map.copyOf(layouts);
    }

    public List<Anomaly> anomalies() {
        return snapshot.anomalies();
    }

    /**
     * Whether {@code migrate} with the same options would refuse the queue: an unlifted refusal
     * (anomalies that need a decision are one, lifted by --accept-anomalies; the others are migrated
     * with their stated treatment). The dry run's exit code is then 3.
     */
    public boolean blocked() {
        return refusals.stream().anyMatch(r -> !r.lifted());
    }

    /**
     * What this plan's migration does with the anomalies of a kind, for the report's TREATMENT column: the kind's
     * disposition, but for a kind that refuses the queue while {@code --accept-anomalies} lifts it here, what the
     * option has the migration do ("accepted: migrate-as-dead"); for a queue name that is no v2 name, the v2 name it has
     * here (a {@code --rename}'s, or the one its retired migration went into).
     */
    public String treatment(AnomalyKind kind) {
        if (kind == AnomalyKind.INVALID_QUEUE_NAME && v2Name.isPresent()) {
            return "v2 name " + v2Name.get(); // its --rename, or the name its retired migration went into
        }
        boolean accepted = refusals.stream().anyMatch(r -> r.refusal().kind() == RefusalKind.ANOMALIES && r.lifted());
        return kind.whenAccepted().filter(what -> accepted && kind.disposition() == AnomalyKind.Disposition.REFUSE)
                .map(what -> "accepted: " + what).orElse(kind.disposition().wireName());
    }

    public long estimatedBytes() {
        return v2Keys.stream().mapToLong(V2KeyEstimate::bytes).sum();
    }
}
