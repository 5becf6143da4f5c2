package io.emq.migrate.v1;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The anomalies of one queue in bounded memory: the first {@value #KEPT_PER_KIND} of each kind
 * with their reasons (what the plan report lists), and the number of distinct keys of each kind.
 * A key reported twice under one kind (SCAN may return a key twice; an id may be listed twice in
 * one structure) counts once: exactly among the kept ones, and past them by a 64-bit fingerprint
 * of kind and key, so two distinct keys would merge only on a fingerprint collision (odds about
 * n²/2⁶⁵: below 10⁻⁷ for a million anomalies of one queue), and then only the count is one short.
 * The kept ones are listed in the order they were met: an anomaly found late about a key met
 * earlier (a listed job key the scan passes without asking its type, found not to be a hash when
 * its facts are read) goes where the key was met, at the place {@link #mark} reserved then.
 */
final class AnomalyLog {
    static final int KEPT_PER_KIND = 1000;

    private final List<Placed> kept = new ArrayList<>();
    private final Set<Key> keptKeys = new HashSet<>();
    private final EnumMap<AnomalyKind, Long> counts = new EnumMap<>(AnomalyKind.class);
    private final FingerprintSet beyond = new FingerprintSet();
    private int clock;

    /** A place in the order of the anomalies met so far, for an anomaly that may be found later ({@link #addAt}). */
    int mark() {
        return clock++;
    }

    void add(AnomalyKind kind, Bytes key, String reason) {
        put(mark(), kind, key, reason);
    }

    /** An anomaly listed at {@code place}, a {@link #mark} taken when its key was met. */
    void addAt(int place, AnomalyKind kind, Bytes key, String reason) {
        put(place, kind, key, reason);
    }

    private void put(int place, AnomalyKind kind, Bytes key, String reason) {
        long n = counts.getOrDefault(kind, 0L);
        if (n < KEPT_PER_KIND) {
            if (keptKeys.add(new Key(kind, key))) {
                kept.add(new Placed(place, new Anomaly(kind, key, reason)));
                counts.put(kind, n + 1);
            }
        } else if (!keptKeys.contains(new Key(kind, key)) && beyond.add(FingerprintSet.fingerprint(kind.ordinal(), key.raw()))) {
            counts.put(kind, n + 1);
        }
    }

    List<Anomaly> kept() {
        return kept.stream().sorted(Comparator.comparingInt(Placed::place)).map(Placed::anomaly).toList();
    }

    EnumMap<AnomalyKind, Long> counts() {
        return counts;
    }

    private record Placed(int place, Anomaly anomaly) {
    }

    private record Key(AnomalyKind kind, Bytes key) {
    }
}
