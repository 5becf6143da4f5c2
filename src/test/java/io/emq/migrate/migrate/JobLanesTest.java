package io.emq.migrate.migrate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.emq.migrate.keyspace.BrandedId;
import io.emq.migrate.v1.Bytes;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The lane each job is migrated into, from the options and the job's v1 hash. */
class JobLanesTest {
    private static Map<Bytes, Bytes> hash(String name, String opts) {
        return Map.of(Bytes.utf8("name"), Bytes.utf8(name), Bytes.utf8("opts"), Bytes.utf8(opts));
    }

    private static Optional<BrandedId> lane(MigrationOptions o, Map<Bytes, Bytes> hash) {
        return JobLanes.of(o, hash).map(Map.Entry::getKey);
    }

    @Test
    void flatFixedOrOneLanePerValue() {
        MigrationOptions flat = MigrationOptions.defaults();
        BrandedId fixed = BrandedId.of("GRP0000000001A");
        assertEquals(Optional.empty(), lane(flat, hash("a", "{}")));
        assertEquals(Optional.of(fixed), lane(flat.withLane(Optional.of(fixed)), hash("a", "{}")));

        MigrationOptions byGroup = flat.withLaneFrom(Optional.of("group"));
        assertEquals(Optional.of(JobLanes.mint("t-7")), lane(byGroup, hash("a", "{\"group\":{\"id\":\"t-7\"}}")));
        assertEquals(Optional.of(JobLanes.mint("")), lane(byGroup, hash("a", "not json")), "no value: the empty value's lane");
        assertEquals(Optional.of(fixed), lane(byGroup.withLane(Optional.of(fixed)), hash("a", "{}")), "no value: --lane");
        assertEquals(Optional.of(JobLanes.mint("a")), lane(flat.withLaneFrom(Optional.of("name")), hash("a", "{}")));

        assertEquals(JobLanes.mint("t-7"), JobLanes.mint("t-7"), "the same on every run");
        assertNotEquals(JobLanes.mint("t-7"), JobLanes.mint("t-8"));
        assertTrue(BrandedId.isValid(JobLanes.mint("anything").toString()));
    }
}
