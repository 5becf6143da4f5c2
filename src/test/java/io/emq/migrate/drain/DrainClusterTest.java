package io.emq.migrate.drain;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.emq.migrate.migrate.Checkpoints;
import io.emq.migrate.migrate.MigrationOptions;
import io.emq.migrate.migrate.MigrationResult;
import io.emq.migrate.migrate.Migrator;
import io.emq.migrate.runtime.ConsumerListener;
import io.emq.migrate.testing.RealServerExtension;
import io.emq.migrate.v1.fixture.FixtureLoader;
import io.emq.migrate.wire.Wire;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The dry run and the validating drain of a queue migrated into a three-master cluster. */
class DrainClusterTest {
    @RegisterExtension
    static final RealServerExtension SOURCE = RealServerExtension.standalone();
    @RegisterExtension
    static final RealServerExtension CLUSTER = RealServerExtension.cluster();

    @Test
    void aQueueMigratedIntoAClusterValidates() throws Exception {
        new FixtureLoader(SOURCE.client()).load(FixtureLoader.resource("node-5.65.1"));
        SOURCE.client().del(MigratedFixture.LIVE_LOCK);
        List<MigrationResult> results = new Migrator(Wire.unfenced(SOURCE.client()), Wire.open(CLUSTER.client()),
                SOURCE.uri(), MigrationOptions.defaults().withDropCronSchedulers(true), Checkpoints.none())
                .migrate(List.of("bull"), List.of("orders", "emails"));
        results.forEach(r -> assertTrue(r.ok(), r.toString()));

        DrainReport dry = new Drain(Wire.unfenced(CLUSTER.client()), "orders").dryRun();
        assertTrue(dry.passed(), dry.checks() + " " + dry.problems());
        long ordersPending = CLUSTER.client().zcard("emq:{orders}:pending");
        String copyName;
        try (ShadowQueue copy = ShadowQueue.of(CLUSTER.client(), "orders").copy()) {
            copyName = copy.name();
            Wire wire = Wire.open(CLUSTER.client());
            io.emq.migrate.runtime.Jobs.on(wire, copyName).resume();
            DrainReport shadow = Drain.ofShadow(wire, "orders", copy)
                    .run(DrainOptions.defaults(), job -> { }, new ConsumerListener() { });
            assertTrue(shadow.passed(), shadow.checks() + " " + shadow.problems());
        }
        assertEquals(ordersPending, CLUSTER.client().zcard("emq:{orders}:pending"), "the shadow drain consumed nothing real");
        assertTrue(CLUSTER.client().keys("emq:{" + copyName + "}:*").isEmpty(), "the copy on another slot is deleted");
        Drain drain = new Drain(Wire.open(CLUSTER.client()), "emails");
        drain.resume();
        DrainReport r = drain.run(DrainOptions.defaults().withWorkers(2), job -> { }, new ConsumerListener() { });
        assertTrue(r.passed(), r.checks() + " " + r.problems());
        assertEquals(4L, r.before().get("pending"));
        assertEquals(0L, r.after().get("pending"));
    }
}
