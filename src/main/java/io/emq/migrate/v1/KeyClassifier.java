package io.emq.migrate.v1;

import java.util.Optional;
import java.util.Set;
import java.util.function.Predicate;

/**
 * Classifies a key of one queue (pure: no I/O). It knows the ids the queue's structures list and
 * the scheduler ids of its {@code repeat} zset; keys are matched by whole known suffixes and then
 * checked by type, never split on {@code :}. The order of the rules matters: a listed id wins over
 * a suffix (a v1 id may equal {@code wait} or end in {@code :logs}).
 */
public final class KeyClassifier {
    public static final Bytes REPEAT = Bytes.utf8("repeat:");

    private final QueueRef queue;
    private final Predicate<Bytes> listedIds;
    private final Predicate<Bytes> schedulerIds;

    public KeyClassifier(QueueRef queue, Set<Bytes> listedIds, Set<Bytes> schedulerIds) {
        this(queue, listedIds::contains, schedulerIds::contains);
    }

    /** {@code listedIds} and {@code schedulerIds} answer whether an id is listed, a scheduler id. */
    public KeyClassifier(QueueRef queue, Predicate<Bytes> listedIds, Predicate<Bytes> schedulerIds) {
        this.queue = queue;
        this.listedIds = listedIds;
        this.schedulerIds = schedulerIds;
    }

    public KeyClass classify(ScannedKey scanned) {
        Bytes key = scanned.key();
        KeyType type = scanned.type();
        if (key.equals(queue.bareKey())) {
            return new KeyClass.Misfit(queue, new Anomaly(AnomalyKind.BARE_QUEUE_HASH, key,
                    "a " + type.wireName() + " at the bare queue key " + key.display()
                            + " (left by the v1 stalled-check wrapper); no v1 reader uses it"));
        }
        if (!key.startsWith(queue.base())) {
            return new KeyClass.Foreign(key);
        }
        Bytes rest = key.dropPrefix(queue.base());
        if (listedIds.test(rest)) {
            return type == KeyType.HASH
                    ? new KeyClass.JobHash(queue, rest)
                    : misfit(AnomalyKind.WRONG_JOB_TYPE, key, "job " + rest.display() + " is listed but its key is a "
                            + type.wireName() + ", not a hash");
        }
        Optional<QueueStructure> structure = QueueStructure.bySuffix(rest);
        if (structure.isPresent()) {
            QueueStructure s = structure.get();
            return type == s.type()
                    ? new KeyClass.Structure(queue, s)
                    : misfit(AnomalyKind.WRONG_TYPE, key, s.suffix() + " is a " + type.wireName() + ", expected a "
                            + s.type().wireName());
        }
        if (rest.startsWith(REPEAT) && type == KeyType.HASH && schedulerIds.test(rest.dropPrefix(REPEAT))) {
            return new KeyClass.SchedulerRecord(queue, rest.dropPrefix(REPEAT));
        }
        if (rest.startsWith(KeyClass.DedupKey.PREFIX) && rest.length() > KeyClass.DedupKey.PREFIX.length() && type == KeyType.STRING) {
            return new KeyClass.DedupKey(queue, rest.dropPrefix(KeyClass.DedupKey.PREFIX));
        }
        for (JobSubKind sub : JobSubKind.values()) {
            if (sub.shapes(rest) && type == sub.type()) {
                return new KeyClass.JobSubkey(queue, rest.dropSuffix(sub.colonSuffix()), sub);
            }
        }
        if (type == KeyType.HASH) {
            return new KeyClass.UnlistedHash(queue, rest);
        }
        return misfit(AnomalyKind.UNKNOWN_KEY, key, "a " + type.wireName() + " under the queue that matches no v1 key shape");
    }

    private KeyClass misfit(AnomalyKind kind, Bytes key, String reason) {
        return new KeyClass.Misfit(queue, new Anomaly(kind, key, reason));
    }
}
