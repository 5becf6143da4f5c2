package io.emq.migrate.drain;

import io.emq.migrate.keyspace.Keys;
import io.emq.migrate.migrate.Checkpoints;
import io.emq.migrate.migrate.MigrationOptions;
import io.emq.migrate.migrate.MigrationResult;
import io.emq.migrate.migrate.Migrator;
import io.emq.migrate.testing.RealServerExtension;
import io.emq.migrate.v1.fixture.FixtureLoader;
import io.emq.migrate.wire.Wire;
import java.util.List;

/** Test helper: the recorded node-5.65.1 keyspace, migrated on one server. */
final class MigratedFixture {
    /** The queue's live v1 lock, deleted as if its worker had died (the demo does the same). */
    static final String LIVE_LOCK = "bull:orders:10:lock";

    private MigratedFixture() {
    }

    /**
     * Loads the fixture and migrates {@code queue} with the cron scheduler dropped; for orders: 12
     * pending, 3 scheduled (due in an hour), 2 dead.
     */
    static MigrationResult migrate(RealServerExtension server, String queue) {
        new FixtureLoader(server.client()).load(FixtureLoader.resource("node-5.65.1"));
        server.client().del(LIVE_LOCK);
        MigrationOptions options = MigrationOptions.defaults().withDropCronSchedulers(true);
        List<MigrationResult> results = new Migrator(Wire.unfenced(server.client()), Wire.open(server.client()),
                server.uri(), options, Checkpoints.none()).migrate(List.of("bull"), List.of(queue));
        if (!results.get(0).ok()) {
            throw new AssertionError("fixture did not migrate: " + results.get(0));
        }
        // The recorded delays are absolute times that fall due as the calendar moves on; push them an
        // hour ahead so every run sees the same split (the journal records no due times).
        String schedule = Keys.queue(queue).schedule();
        long later = System.currentTimeMillis() + 3_600_000;
        server.client().zrange(schedule, 0, -1).forEach(id -> server.client().zadd(schedule, later, id));
        return results.get(0);
    }
}
