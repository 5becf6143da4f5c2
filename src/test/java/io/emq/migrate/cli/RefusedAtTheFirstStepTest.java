package io.emq.migrate.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.emq.migrate.migrate.V1QueueGenerator;
import io.emq.migrate.testing.RealServerExtension;
import io.emq.migrate.v1.fixture.FixtureLoader;
import io.emq.migrate.v1.fixture.KeyspaceDump;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The journal a migration refused at its first step leaves on the target, as the runbook meets it (queue notify, refused
 * for its orphan hash): every command tells the same story of it. {@code info} says where its runs were refused and the
 * ways on, {@code validate} does not count it, the commands that need a migrated queue refuse it saying so and write
 * nothing, and {@code abandon} deletes it, v1 key for key as it was. A journal an earlier migration was abandoned in,
 * refused at its first step since, keeps that migration's high-water mark through a second {@code abandon}.
 */
class RefusedAtTheFirstStepTest {
    @RegisterExtension
    static final RealServerExtension SOURCE = RealServerExtension.standalone();
    @RegisterExtension
    static final RealServerExtension TARGET = RealServerExtension.standalone();

    private static final String REFUSED_AT_V10 = "its runs were refused (or stopped) at the first step, V10 fence source, before"
            + " they wrote anything but its journal (v1 untouched, nothing of it on v2): fix the cause and run `migrate` again,"
            + " or `abandon` deletes the journal";

    private static CliRun migrate(String queue, String... more) {
        String[] args = {"migrate", "--source", SOURCE.uri(), "--target", TARGET.uri(), "--queue", queue, "--no-retire"};
        return CliRun.of(java.util.stream.Stream.concat(java.util.Arrays.stream(args), java.util.Arrays.stream(more))
                .toArray(String[]::new));
    }

    private static CliRun abandon(String queue) {
        return CliRun.of("abandon", "--source", SOURCE.uri(), "--target", TARGET.uri(), "--queue", queue, "--yes");
    }

    private static String digest(RealServerExtension server) {
        return new KeyspaceDump(server.client()).digest();
    }

    @Test
    void everyCommandTellsTheJournalOfARunRefusedAtTheFirstStepAndAbandonDeletesIt() throws Exception {
        new FixtureLoader(SOURCE.client()).load(FixtureLoader.resource("elixir-v1"));
        assertEquals(ExitCodes.OK, migrate("mailer", "--accept-anomalies").code());
        CliRun refused = migrate("notify");
        assertEquals(ExitCodes.REFUSED, refused.code(), refused.all());
        assertTrue(TARGET.client().exists("{emq}:migration:notify"), "the refused run left its journal");
        String v1 = digest(SOURCE);
        String v2 = digest(TARGET);

        CliRun info = CliRun.of("info", "--target", TARGET.uri(), "--queue", "notify");
        assertEquals(ExitCodes.OK, info.code(), info.all());
        assertTrue(info.out().contains("no step applied: " + REFUSED_AT_V10) && !info.out().contains("gives v1 back"), info.out());
        JsonNode infoJson = Json.MAPPER.readTree(CliRun.of("info", "--target", TARGET.uri(), "--queue", "notify", "--json").out());
        assertTrue(infoJson.get("queues").get(0).get("wroteNothing").asBoolean(), infoJson.toString());

        CliRun validate = CliRun.of("validate", "--target", TARGET.uri());
        assertEquals(ExitCodes.OK, validate.code(), validate.all());
        assertTrue(validate.out().contains("validated 1 queue: every applied step matches migrations/; not counted, no step applied"
                + " (refused at the first step, or abandoned; see `info`): notify"), validate.out());
        JsonNode validated = Json.MAPPER.readTree(CliRun.of("validate", "--target", TARGET.uri(), "--json").out());
        assertEquals("[\"mailer\"]", validated.get("queues").toString(), validated.toString());
        assertEquals("[\"notify\"]", validated.get("notCounted").toString(), validated.toString());

        for (CliRun needsAMigration : new CliRun[] {
                CliRun.of("validate", "--target", TARGET.uri(), "--queue", "notify"),
                CliRun.of("lookup", "--target", TARGET.uri(), "--queue", "notify", "--all"),
                CliRun.of("verify", "--target", TARGET.uri(), "--queue", "notify"),
                CliRun.of("drain", "--target", TARGET.uri(), "--queue", "notify"),
                CliRun.of("repair", "--target", TARGET.uri(), "--queue", "notify"),
                CliRun.of("forget", "--target", TARGET.uri(), "--queue", "notify", "--yes")}) {
            assertEquals(ExitCodes.REFUSED, needsAMigration.code(), needsAMigration.all());
            assertTrue(needsAMigration.err().contains("queue notify was never migrated on this target: " + REFUSED_AT_V10),
                    needsAMigration.all());
        }
        assertEquals(v2, digest(TARGET), "the refusals wrote nothing");

        CliRun abandoned = abandon("notify");
        assertEquals(ExitCodes.OK, abandoned.code(), abandoned.all());
        assertTrue(abandoned.out().startsWith("abandoned notify: its journal {emq}:migration:notify (") && abandoned.out()
                .contains("fields) was deleted: its runs were refused at the first step before they wrote anything else"), abandoned.out());
        assertFalse(TARGET.client().exists("{emq}:migration:notify"));
        assertTrue(TARGET.client().keys("emq:{notify}:*").isEmpty(), "nothing of notify on v2");
        assertEquals(v1, digest(SOURCE), "v1 key for key as it was");
        CliRun validatedAfter = CliRun.of("validate", "--target", TARGET.uri());
        assertEquals("validated 1 queue: every applied step matches migrations/", validatedAfter.out().strip());

        CliRun anew = migrate("notify", "--accept-anomalies");
        assertEquals(ExitCodes.OK, anew.code(), anew.all());
    }

    @Test
    void aJournalAnEarlierMigrationWasAbandonedInKeepsItsHighWaterMarkWhenARefusedRunIsAbandoned() {
        V1QueueGenerator.addWaiting(SOURCE.client(), "emails", 1, 5, 20);
        assertEquals(ExitCodes.OK, migrate("emails").code());
        assertEquals(ExitCodes.OK, abandon("emails").code());
        SOURCE.client().zadd("bull:emails:repeat", 1, "legacy::::60000"); // refused at the fence: a legacy repeatable
        assertEquals(ExitCodes.REFUSED, migrate("emails").code());
        String v1 = digest(SOURCE);

        CliRun info = CliRun.of("info", "--target", TARGET.uri(), "--queue", "emails");
        assertTrue(info.out().contains("`migrate` again resumes it, `abandon` gives v1 back") && !info.out().contains("no step applied"),
                info.out());
        CliRun abandoned = abandon("emails");
        assertEquals(ExitCodes.OK, abandoned.code(), abandoned.all());
        assertTrue(abandoned.out().contains("abandoned emails: ") && abandoned.out().contains("the v1 queue is as it was"), abandoned.out());
        assertEquals("abandoned", TARGET.client().hget("{emq}:migration:emails", "state"));
        assertEquals("5", TARGET.client().hget("{emq}:migration:emails", "hwm"), "a later migration never reuses its ids");
        assertEquals(v1, digest(SOURCE), "v1 key for key as it was");
    }
}
