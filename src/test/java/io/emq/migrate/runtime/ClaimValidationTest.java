package io.emq.migrate.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.emq.migrate.keyspace.Keys;
import io.emq.migrate.testing.RealServerExtension;
import io.emq.migrate.wire.Clients;
import io.emq.migrate.wire.Wire;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import redis.clients.jedis.UnifiedJedis;

/**
 * {@code claim} and {@code claim_batch} validate a row before they write to it: a row whose attempts
 * no claim can increment (overflow, negative, not an integer) or that is not a hash goes to dead
 * with the reason, and the good jobs around it are claimed; nothing is left in no set.
 */
class ClaimValidationTest {
    @RegisterExtension
    static final RealServerExtension SERVER = RealServerExtension.standalone();
    private static final Duration LEASE = Duration.ofSeconds(30);

    static UnifiedJedis client;

    @BeforeAll
    static void open() {
        client = Clients.open(SERVER.endpoint(), 4);
    }

    @AfterAll
    static void close() {
        client.close();
    }

    /** Five jobs in mint order; the rows of the second to fourth get the attempts given, the fifth stays good. */
    private static List<String> queueWithBadRows(String queue, String... badAttempts) {
        Jobs jobs = Jobs.on(Wire.open(client), queue);
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < 2 + badAttempts.length; i++) {
            ids.add(jobs.enqueue(("job-" + i).getBytes(StandardCharsets.UTF_8)).id());
        }
        Keys keys = Keys.queue(queue);
        for (int i = 0; i < badAttempts.length; i++) {
            client.hset(keys.base() + "job:" + ids.get(i + 1), "attempts", badAttempts[i]);
        }
        return ids;
    }

    @Test
    void aBatchDeadLettersRowsItCannotCountAndClaimsTheJobsBehindThem() {
        List<String> ids = queueWithBadRows("batch", "9223372036854775807", "1e30", "-7");
        Jobs jobs = Jobs.on(Wire.open(client), "batch");
        List<Claim> claimed = jobs.claimBatch(LEASE, 5);
        assertEquals(List.of(ids.get(0), ids.get(4)), claimed.stream().map(Claim::id).toList());
        assertEquals(List.of(1L, 1L), claimed.stream().map(Claim::token).toList());
        Keys keys = Keys.queue("batch");
        assertEquals(Set.of(ids.get(1), ids.get(2), ids.get(3)), Set.copyOf(client.zrange(keys.dead(), 0, -1)));
        assertEquals(0, client.zcard(keys.pending()));
        assertEquals(2, client.zcard(keys.active()));
        assertEquals("dead", client.hget(keys.base() + "job:" + ids.get(1), "state"));
        assertEquals("claim: attempts '9223372036854775807' is not a count from 0 to 2^53-2",
                client.hget(keys.base() + "job:" + ids.get(1), "last_error"));
        assertEquals("1e30", client.hget(keys.base() + "job:" + ids.get(2), "attempts"), "a dead-lettered row is left as it was found");
        for (Claim c : claimed) {
            assertEquals(Completion.COMPLETED, jobs.complete(c.id(), c.token()));
        }
    }

    @Test
    void aSingleClaimSkipsPastABadHeadToTheNextJob() {
        List<String> ids = queueWithBadRows("single", "2.5");
        Keys keys = Keys.queue("single");
        client.hset(keys.base() + "job:" + ids.get(2), "attempts", String.valueOf((1L << 53) - 2)); // the largest countable
        Jobs jobs = Jobs.on(Wire.open(client), "single");
        assertEquals(ids.get(0), jobs.claim(LEASE).orElseThrow().id());
        Claim next = jobs.claim(LEASE).orElseThrow();
        assertEquals(ids.get(2), next.id());
        assertEquals((1L << 53) - 1, next.token(), "the token is still exact");
        assertEquals(List.of(ids.get(1)), client.zrange(keys.dead(), 0, -1));
        assertTrue(jobs.claim(LEASE).isEmpty());
    }

    @Test
    void aRowThatIsNotAHashIsDeadLetteredWithoutTouchingIt() {
        List<String> ids = queueWithBadRows("typed");
        Keys keys = Keys.queue("typed");
        client.del(keys.base() + "job:" + ids.get(0));
        client.set(keys.base() + "job:" + ids.get(0), "not a row");
        Jobs jobs = Jobs.on(Wire.open(client), "typed");
        assertEquals(List.of(ids.get(1)), jobs.claimBatch(LEASE, 2).stream().map(Claim::id).toList());
        assertEquals(List.of(ids.get(0)), client.zrange(keys.dead(), 0, -1));
        assertEquals("not a row", client.get(keys.base() + "job:" + ids.get(0)));
    }
}
