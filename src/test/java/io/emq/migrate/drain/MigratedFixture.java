package io.emq.migrate.drain;

import io.emq.migrate.migrate.Checkpoints;
import io.emq.migrate.migrate.MigrationOptions;
import io.emq.migrate.migrate.MigrationResult;
import io.emq.migrate.migrate.Migrator;
import io.emq.migrate.migrate.PayloadPolicy;
import io.emq.migrate.testing.RealServerExtension;
import io.emq.migrate.v1.fixture.FixtureLoader;
import io.emq.migrate.wire.Wire;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** Test helper: the recorded node-5.65.1 keyspace, migrated on one server. */
final class MigratedFixture {
    /** The queue's live v1 lock, deleted as if its worker had died (the demo does the same). */
    static final String LIVE_LOCK = "bull:orders:10:lock";

    private MigratedFixture() {
    }

    /** Loads the fixture and migrates {@code queue} with the cron scheduler dropped; 12 pending, 3 scheduled, 2 dead for orders. */
    static MigrationResult migrate(RealServerExtension server, String queue) {
        new FixtureLoader(server.client()).load(FixtureLoader.resource("node-5.65.1"));
        server.client().del(LIVE_LOCK);
        MigrationOptions options = new MigrationOptions(PayloadPolicy.ENVELOPE, Map.of(), false, Duration.ZERO,
                Optional.empty(), true, false, true, MigrationOptions.DEFAULT_LEASE);
        List<MigrationResult> results = new Migrator(Wire.source(server.client()), Wire.open(server.client()),
                server.uri(), options, Checkpoints.none()).migrate(List.of("bull"), List.of(queue));
        if (!results.get(0).ok()) {
            throw new AssertionError("fixture did not migrate: " + results.get(0));
        }
        return results.get(0);
    }
}
