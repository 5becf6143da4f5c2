package io.emq.migrate.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.emq.migrate.migrate.V1QueueGenerator;
import io.emq.migrate.server.LocalServer;
import io.emq.migrate.testing.RealServerExtension;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A copy left at verified in one target (--no-retire) after another migration retired the v1 queue into another target:
 * verify, info and drain (asking the v1 server the journal recorded, or --source) name it stale instead of verifying or
 * serving it (its jobs would run twice), and abandon deletes it.
 */
class SecondCopyTest {
    @RegisterExtension
    static final RealServerExtension SERVER = RealServerExtension.standalone();

    @Test
    void aCopyWhoseV1WasRetiredIntoAnotherTargetIsToldStaleByVerifyAndAbandoned() {
        SERVER.client().flushAll();
        V1QueueGenerator.addWaiting(SERVER.client(), "small", 1, 3, 40);
        try (LocalServer other = LocalServer.start()) {
            CliRun kept = CliRun.of("migrate", "--source", SERVER.uri(), "--target", other.uri(), "--queue", "small", "--no-retire");
            assertEquals(0, kept.code(), kept.all());
            CliRun verified = CliRun.of("verify", "--source", SERVER.uri(), "--target", other.uri(), "--queue", "small");
            assertEquals(0, verified.code(), verified.all());
            CliRun asked = CliRun.of("drain", "--target", other.uri(), "--queue", "small", "--resume");
            assertEquals(ExitCodes.REFUSED, asked.code(), asked.all());
            assertTrue(asked.err().contains("(no other migration retired it since: checked)"), asked.err());

            CliRun retired = CliRun.of("migrate", "--source", SERVER.uri(), "--queue", "small", "--yes");
            assertEquals(0, retired.code(), retired.all());
            CliRun info = CliRun.of("info", "--target", other.uri(), "--queue", "small");
            assertEquals(0, info.code(), info.all());
            assertTrue(info.out().contains("STALE COPY: the v1 queue bull:small was retired by another migration"), info.out());
            CliRun anotherSource = CliRun.of("info", "--source", other.uri(), "--target", other.uri(), "--queue", "small");
            assertTrue(anotherSource.out().contains("STALE COPY"), "a --source naming another server than the journal's is not"
                    + " asked: " + anotherSource.out());
            try (redis.clients.jedis.Jedis copy = new redis.clients.jedis.Jedis(other.hostAndPort())) {
                String recorded = copy.hget("{emq}:migration:small", "source");
                copy.hset("{emq}:migration:small", "source", "redis://127.0.0.1:1"); // as if the v1 server were gone
                CliRun unasked = CliRun.of("info", "--target", other.uri(), "--queue", "small", "--json");
                assertTrue(unasked.out().contains("\"staleCopy\" : null") && unasked.out().contains("could not be asked")
                        && unasked.out().contains("give --source"), unasked.out());
                CliRun sourceGiven = CliRun.of("info", "--source", "redis://127.0.0.1:1", "--target", other.uri(), "--queue", "small");
                assertTrue(sourceGiven.out().contains("could not be asked") && !sourceGiven.out().contains("give --source"),
                        "the --source given is the server that failed: " + sourceGiven.out());
                copy.hset("{emq}:migration:small", "source", recorded);
            }
            for (String[] drain : new String[][] {{"--resume", "--yes"}, {"--dry-run"}}) {
                CliRun served = CliRun.of(Stream.concat(Stream.of("drain", "--target", other.uri(), "--queue", "small"), Stream.of(drain))
                        .toArray(String[]::new));
                assertEquals(ExitCodes.REFUSED, served.code(), served.all());
                assertTrue(served.err().contains("must not be served") && served.err().contains("Nothing was claimed"), served.err());
            }
            try (redis.clients.jedis.Jedis copy = new redis.clients.jedis.Jedis(other.hostAndPort())) {
                assertEquals(3, copy.zcard("emq:{small}:pending"), "the stale copy was not served");
            }
            CliRun unsourced = CliRun.of("verify", "--target", other.uri(), "--queue", "small");
            assertEquals(ExitCodes.REFUSED, unsourced.code(), unsourced.all());
            CliRun stale = CliRun.of("verify", "--source", SERVER.uri(), "--target", other.uri(), "--queue", "small");
            assertEquals(ExitCodes.REFUSED, stale.code(), stale.all());
            assertTrue(stale.err().contains("was retired by another migration") && stale.err().contains("must not be served")
                    && stale.err().contains("emq-migrate abandon --queue small"), stale.err());
            CliRun abandon = CliRun.of("abandon", "--source", SERVER.uri(), "--target", other.uri(), "--queue", "small", "--yes");
            assertEquals(0, abandon.code(), abandon.all());
            assertTrue(abandon.out().contains("v1-retired-by-another"), abandon.out());
            assertEquals(3, SERVER.client().zcard("emq:{small}:pending"), "the retiring migration's copy, whole");
        }
    }
}
