package io.emq.migrate.migrate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.emq.migrate.keyspace.BrandedId;
import io.emq.migrate.keyspace.Keys;
import io.emq.migrate.testing.RealServerExtension;
import io.emq.migrate.wire.Endpoint;
import io.emq.migrate.wire.Wire;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.UnifiedJedis;

/**
 * The migrator runs with the least-privilege ACL users MIGRATION.md gives: on the source only keys
 * under the v1 prefix, on the target only {@code emq:*} and {@code {emq}:*}, and no dangerous or
 * admin commands on either.
 */
public class LeastPrivilegeTest {
    @RegisterExtension
    static final RealServerExtension SOURCE = RealServerExtension.standalone();
    @RegisterExtension
    static final RealServerExtension TARGET = RealServerExtension.standalone();

    /** The source user MIGRATION.md gives without the change feed's five rules (the bench's {@code --without-feed} too). */
    public static final String SOURCE_ACL_WITHOUT_FEED = "on >s3cret ~bull:* resetchannels +@read +@write +@scripting +@connection -@dangerous +scan +type +time"
            + " +@transaction";
    /** With the change feed's commands (Redis 6.2 counts CLIENT among the dangerous ones, 7.0 does not). */
    static final String SOURCE_ACL = SOURCE_ACL_WITHOUT_FEED
            + " +client|id +client|tracking +client|getredir +subscribe &__redis__:invalidate";
    /** The feed's subscription allowed, its tracking refused. */
    static final String SOURCE_ACL_WITHOUT_TRACKING = SOURCE_ACL_WITHOUT_FEED + " -client +client|id +client|getredir +subscribe &__redis__:invalidate";
    static final String TARGET_ACL = "on >s3cret ~emq:* ~{emq}:* resetchannels +@read +@write +@scripting +@connection -@dangerous +scan +type +time";

    /**
     * Makes (again) a user with {@link #SOURCE_ACL_WITHOUT_FEED} plus {@code +info} on the server {@code admin} reaches
     * and returns {@code uri} (a {@code redis://} address) as that user: a migration reading v1 through it re-syncs with
     * full passes ({@code --without-feed} of the benches, the feedless tests).
     */
    public static String userWithoutFeed(UnifiedJedis admin, String uri) {
        admin.sendCommand(Protocol.Command.ACL, "DELUSER", "without-feed");
        List<String> setUser = new ArrayList<>(List.of("SETUSER", "without-feed"));
        setUser.addAll(List.of((SOURCE_ACL_WITHOUT_FEED + " +info").split(" ")));
        admin.sendCommand(Protocol.Command.ACL, setUser.toArray(String[]::new));
        return uri.replace("redis://", "redis://without-feed:s3cret@");
    }

    private static void user(RealServerExtension server, String acl) {
        try (Jedis admin = server.node(server.nodes().get(0))) {
            admin.aclDelUser("migrator");
            List<String> rules = List.of(acl.split(" "));
            admin.aclSetUser("migrator", rules.toArray(new String[0]));
        }
    }

    @Test
    void theMigratorNeedsOnlyItsOwnKeysAndNoDangerousCommands() {
        List<MigrationResult> results = migrateAs(SOURCE_ACL);
        assertCatchUpIs("delta-keys", results);
        assertUnlinked(true, results);
        assertCaughtUpBeforeThePause(true, results);
    }

    @Test
    void aSourceUserWithoutTheFeedsSubscriptionCatchesUpWithAFullPassWhereV1Added() {
        String[] added = {null};
        List<MigrationResult> results = migrateAs(SOURCE_ACL_WITHOUT_FEED, (version, where) -> {
            if (version == 30 && added[0] == null) {
                added[0] = LiveV1.add(SOURCE.client(), "emails").orElseThrow();
            }
        });
        for (MigrationResult r : results) {
            assertCatchUpIs(r.v2Queue().equals("emails") ? "full-pass" : "unchanged", List.of(r));
            assertTrue(r.withoutFeed().orElse("").startsWith("the source user may not run the change feed's commands (NOPERM ")
                    && r.withoutFeed().get().endsWith("): it needs +client|id +client|tracking +client|getredir +subscribe"
                    + " &__redis__:invalidate (MIGRATION.md, least privilege)"), r.withoutFeed().toString());
        }
        assertCaughtUpBeforeThePause(false, results);
        assertTrue(new Journal(Wire.open(TARGET.client()), "emails").ids().lookupV1(List.of(added[0].getBytes(StandardCharsets.UTF_8)))
                .get(0).isPresent(), "the job v1 added during the copy was caught up");
    }

    @Test
    void withoutTheFeedAnEditThatKeepsTheSizesTakesNoCatchUpPassAndIsCaughtUnderThePause() {
        String[] edited = {null};
        List<MigrationResult> results = migrateAs(SOURCE_ACL_WITHOUT_FEED, (version, where) -> {
            if (version == 30 && edited[0] == null) {
                edited[0] = SOURCE.client().lrange("bull:emails:paused", 0, 0).get(0);
                SOURCE.client().hset("bull:emails:" + edited[0], "data", "{\"edited\":true}");
            }
        });
        assertCatchUpIs("unchanged", results);
        BrandedId id = new Journal(Wire.open(TARGET.client()), "emails").ids()
                .lookupV1(List.of(edited[0].getBytes(StandardCharsets.UTF_8))).get(0).orElseThrow();
        String payload = TARGET.client().hget(Keys.queue("emails").job(id), "payload");
        assertTrue(payload.contains("\"edited\":true"), payload);
    }

    @Test
    void aSourceUserRefusedClientTrackingTakesNoCatchUpPassWhereV1DidNotMove() {
        assertCatchUpIs("unchanged", migrateAs(SOURCE_ACL_WITHOUT_TRACKING));
    }

    private static List<MigrationResult> migrateAs(String sourceAcl) {
        return migrateAs(sourceAcl, (version, where) -> {
        });
    }

    /** The fixture's {@code emails} queue was paused by its operator before the migration: given back, it stays paused, its add counter thawed. */
    @Test
    void aRetirementWhoseTransactionIsRefusedDeletesNothingAndGivesV1Back() {
        List<MigrationResult> results = run(SOURCE_ACL, (version, where) -> {
            if (version == 120 && where.equals("before retire")) {
                try (Jedis admin = SOURCE.node(SOURCE.nodes().get(0))) {
                    admin.aclSetUser("migrator", "-multi"); // its connections stay open, the guard's watch too
                }
            }
        });
        MigrationResult emails = results.stream().filter(r -> r.v2Queue().equals("emails")).findFirst().orElseThrow();
        assertEquals(MigrationResult.Outcome.FAILED, emails.outcome(), emails.toString());
        assertTrue(emails.message().contains("NOPERM") && emails.message().contains("nothing was deleted, and the v1 queue serves as it"
                + " did before the migration"), emails.message());
        assertTrue(SOURCE.client().exists("bull:emails:paused"), "the structures are kept");
        assertTrue(SOURCE.client().exists("bull:emails:delayed"), "the structures are kept");
        assertEquals("bullmq:5.65.1", SOURCE.client().hget("bull:emails:meta", "version"), "no tombstone");
        assertEquals("5", SOURCE.client().get("bull:emails:id"), "the add counter thawed, as before the migration");
    }

    /**
     * A source user that may read and run scripts but not write (a planner's user given to migrate): the first script
     * that writes to v1 is refused inside the script, which Redis 7.0 words without NOPERM and without naming the
     * command; the failure says what to grant, and v1 keeps every job.
     */
    @Test
    void aSourceUserThatMayNotWriteIsToldWhatToGrantWithV1Intact() {
        List<MigrationResult> results = run(SOURCE_ACL.replace(" +@write", ""), (version, where) -> {
        });
        MigrationResult emails = results.stream().filter(r -> r.v2Queue().equals("emails")).findFirst().orElseThrow();
        assertEquals(MigrationResult.Outcome.FAILED, emails.outcome(), emails.toString());
        assertTrue(emails.message().contains("grant that server's ACL user ") && emails.message().contains(
                "on the source +@read +@write +@scripting (a user that may only read can plan, not migrate)")
                || emails.message().contains("grant that server's ACL user +"), emails.message()); // a server that names the command
        assertTrue(SOURCE.client().exists("bull:emails:paused"), "v1 keeps its jobs");
        assertEquals("bullmq:5.65.1", SOURCE.client().hget("bull:emails:meta", "version"), "no tombstone");
    }

    private static List<MigrationResult> migrateAs(String sourceAcl, Checkpoints.Observer v1Meanwhile) {
        List<MigrationResult> results = run(sourceAcl, v1Meanwhile);
        results.forEach(r -> assertTrue(r.ok(), r.toString()));
        assertTrue(TARGET.client().zcard("emq:{emails}:pending") > 0);
        assertEquals("untouched", SOURCE.client().get("foreign:key"));
        return results;
    }

    /** Migrates the fixture's three queues as the migrator user with this source ACL. */
    private static List<MigrationResult> run(String sourceAcl, Checkpoints.Observer v1Meanwhile) {
        SOURCE.client().flushAll();
        TARGET.client().flushAll();
        MigrationHarness.load(SOURCE.client(), "node-5.65.1");
        SOURCE.client().set("foreign:key", "untouched");
        user(SOURCE, sourceAcl);
        user(TARGET, TARGET_ACL);
        try (UnifiedJedis source = Endpoint.parse("redis://migrator:s3cret@" + SOURCE.uri().substring(8)).open();
             UnifiedJedis target = Endpoint.parse("redis://migrator:s3cret@" + TARGET.uri().substring(8)).open()) {
            return new Migrator(Wire.unfenced(source), Wire.open(target), SOURCE.uri(),
                    MigrationOptions.defaults().withAcceptAnomalies(true), Checkpoints.observed(v1Meanwhile))
                    .migrate(List.of("bull"), List.of("emails", "flows-parent", "flows-child"));
        }
    }

    /** Whether retirement unlinked jobs on the feed's word (every queue's V120 counts some), or none at all. */
    private static void assertUnlinked(boolean some, List<MigrationResult> results) {
        for (MigrationResult r : results) {
            long unlinked = new Journal(Wire.open(TARGET.client()), r.v2Queue()).history().rows().stream()
                    .filter(row -> row.version() == 120).findFirst().orElseThrow().counts().get("unlinked");
            assertEquals(some, unlinked > 0, r.v2Queue() + ": unlinked=" + unlinked);
        }
    }

    /**
     * Whether V120 caught up while v1 still served before it paused it (only with the change feed: without
     * it a live pass would read the whole source again, as the pass under the pause does).
     */
    private static void assertCaughtUpBeforeThePause(boolean caughtUp, List<MigrationResult> results) {
        for (MigrationResult r : results) {
            Map<String, Long> counts = new Journal(Wire.open(TARGET.client()), r.v2Queue()).history().rows().stream()
                    .filter(row -> row.version() == 120).findFirst().orElseThrow().counts();
            assertEquals(caughtUp, counts.containsKey("live-passes"), r.v2Queue() + ": " + counts);
        }
    }

    /** Every queue's catch-up ran in this mode ({@code delta-keys}, {@code full-pass}, or {@code unchanged}: no pass). */
    private static void assertCatchUpIs(String mode, List<MigrationResult> results) {
        for (MigrationResult r : results) {
            Map<String, Long> counts = new Journal(Wire.open(TARGET.client()), r.v2Queue()).history().rows().stream()
                    .filter(row -> row.version() == 100).findFirst().orElseThrow().counts();
            assertTrue(counts.containsKey(mode), r.v2Queue() + ": " + counts);
        }
    }
}
