package io.emq.migrate.migrate;

import io.emq.migrate.testing.RealServerExtension;
import io.emq.migrate.v1.fixture.FixtureLoader;
import io.emq.migrate.wire.Wire;
import java.util.List;
import redis.clients.jedis.UnifiedJedis;

/** Test helpers: load a recorded v1 fixture into a source, run the migrator into a target. */
final class MigrationHarness {
    private MigrationHarness() {
    }

    static void load(UnifiedJedis source, String fixture) {
        new FixtureLoader(source).load(FixtureLoader.resource(fixture));
    }

    /** Loads the fixture as if recorded at {@code nowMs}: repeated loads at one moment are byte-identical. */
    static void load(UnifiedJedis source, String fixture, long nowMs) {
        new FixtureLoader(source).load(FixtureLoader.resource(fixture), nowMs);
    }

    static List<MigrationResult> migrate(RealServerExtension source, RealServerExtension target, MigrationOptions options,
                                         Checkpoints checkpoints, List<String> prefixes, String... queues) {
        Wire sourceWire = Wire.unfenced(source.client());
        Wire targetWire = Wire.open(target.client());
        return new Migrator(sourceWire, targetWire, source.uri(), options, checkpoints).migrate(prefixes, List.of(queues));
    }
}
