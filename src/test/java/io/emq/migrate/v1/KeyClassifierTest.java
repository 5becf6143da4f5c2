package io.emq.migrate.v1;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Classification by whole suffixes and types, never by splitting on ':'. */
class KeyClassifierTest {
    private final QueueRef queue = QueueRef.of("bull", "a:b");
    private final KeyClassifier classifier = new KeyClassifier(queue,
            Set.of(Bytes.utf8("wait"), Bytes.utf8("x:logs"), Bytes.utf8("repeat:tick:1700000000000"), Bytes.utf8("7")),
            Set.of(Bytes.utf8("tick")));

    private KeyClass classify(String key, KeyType type) {
        return classifier.classify(new ScannedKey(Bytes.utf8(key), type));
    }

    @Test
    void listedIdsWinOverSuffixes() {
        assertEquals(new KeyClass.JobHash(queue, Bytes.utf8("wait")), classify("bull:a:b:wait", KeyType.HASH));
        assertEquals(new KeyClass.JobHash(queue, Bytes.utf8("x:logs")), classify("bull:a:b:x:logs", KeyType.HASH));
        assertEquals(new KeyClass.JobHash(queue, Bytes.utf8("repeat:tick:1700000000000")),
                classify("bull:a:b:repeat:tick:1700000000000", KeyType.HASH));
        KeyClass wrong = classify("bull:a:b:7", KeyType.STRING);
        assertEquals(AnomalyKind.WRONG_JOB_TYPE, ((KeyClass.Misfit) wrong).anomaly().kind());
    }

    @Test
    void structuresAreCheckedByType() {
        assertEquals(new KeyClass.Structure(queue, QueueStructure.META), classify("bull:a:b:meta", KeyType.HASH));
        assertEquals(new KeyClass.Structure(queue, QueueStructure.METRICS_COMPLETED_DATA),
                classify("bull:a:b:metrics:completed:data", KeyType.LIST));
        assertEquals("legacy", classify("bull:a:b:priority", KeyType.ZSET).kindName());
        KeyClass events = classify("bull:a:b:events", KeyType.ZSET);
        assertEquals(AnomalyKind.WRONG_TYPE, ((KeyClass.Misfit) events).anomaly().kind());
    }

    @Test
    void schedulersDedupSubkeysAndTheRest() {
        assertEquals(new KeyClass.SchedulerRecord(queue, Bytes.utf8("tick")), classify("bull:a:b:repeat:tick", KeyType.HASH));
        assertEquals(new KeyClass.DedupKey(queue, Bytes.utf8("inv:7")), classify("bull:a:b:de:inv:7", KeyType.STRING));
        assertEquals(new KeyClass.JobSubkey(queue, Bytes.utf8("id:with:colons"), JobSubKind.LOCK),
                classify("bull:a:b:id:with:colons:lock", KeyType.STRING));
        assertEquals(new KeyClass.JobSubkey(queue, Bytes.utf8("9"), JobSubKind.UNSUCCESSFUL),
                classify("bull:a:b:9:unsuccessful", KeyType.ZSET));
        assertEquals(new KeyClass.UnlistedHash(queue, Bytes.utf8("orphan")), classify("bull:a:b:orphan", KeyType.HASH));
        assertEquals(AnomalyKind.UNKNOWN_KEY, ((KeyClass.Misfit) classify("bull:a:b:sc", KeyType.STRING)).anomaly().kind());
        assertEquals(AnomalyKind.BARE_QUEUE_HASH, ((KeyClass.Misfit) classify("bull:a:b", KeyType.HASH)).anomaly().kind());
        assertInstanceOf(KeyClass.Foreign.class, classify("bull:other:wait", KeyType.LIST));
    }

    @Test
    void theLongestQueueBaseOwnsAKey() {
        QueueBases bases = new QueueBases(List.of(QueueRef.of("bull", "a"), queue));
        assertEquals(Optional.of(queue), bases.owner(Bytes.utf8("bull:a:b:wait")));
        assertEquals(Optional.of(QueueRef.of("bull", "a")), bases.owner(Bytes.utf8("bull:a:c:wait")));
        assertEquals(Optional.empty(), bases.owner(Bytes.utf8("bull:z:wait")));
        assertEquals(Optional.of(queue), bases.bareOwner(Bytes.utf8("bull:a:b")));
    }

    @Test
    void ofTwoQueuesWithOneBaseTheLastNamedOwnsItsKeys() {
        QueueRef nameWithColon = QueueRef.of("bull", "x:y");
        QueueRef prefixWithColon = QueueRef.of("bull:x", "y"); // both bases are bull:x:y:
        Bytes key = Bytes.utf8("bull:x:y:wait");
        assertEquals(Optional.of(prefixWithColon), new QueueBases(List.of(nameWithColon, prefixWithColon)).owner(key));
        assertEquals(Optional.of(nameWithColon), new QueueBases(List.of(prefixWithColon, nameWithColon)).owner(key));
        assertEquals(Optional.of(nameWithColon), new QueueBases(List.of(prefixWithColon, nameWithColon)).owner(Bytes.utf8("bull:x:y:1:lock")));
    }
}
