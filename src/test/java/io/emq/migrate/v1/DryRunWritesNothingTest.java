package io.emq.migrate.v1;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.emq.migrate.testing.RealServerExtension;
import io.emq.migrate.v1.fixture.FixtureLoader;
import io.emq.migrate.v1.fixture.KeyspaceDump;
import io.emq.migrate.wire.Endpoint;
import java.net.URI;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisDataException;

/**
 * Dry runs write nothing, shown twice: discover and plan succeed as an ACL user limited to
 * {@code +@read} (plus {@code CLIENT SETNAME}), and a digest of the whole keyspace is the same
 * before and after. {@code SCAN}, {@code TYPE}, {@code PTTL} and {@code DBSIZE} are all in
 * {@code @read} on Redis 6.2 and 7.0.
 */
class DryRunWritesNothingTest {
    @RegisterExtension
    static final RealServerExtension SERVER = RealServerExtension.standalone();
    static final String[] FIXTURES = {"node-5.65.1", "node-large-payload", "elixir-v1", "legacy-and-foreign"};

    @Test
    void aReadOnlyUserCanDiscoverAndPlanEverythingAndTheKeyspaceIsUnchanged() {
        UnifiedJedis admin = SERVER.client();
        for (String f : FIXTURES) {
            new FixtureLoader(admin).load(FixtureLoader.resource(f));
        }
        // +@read, and of the connection commands only the CLIENT SETNAME the client sends (AUTH is always allowed)
        admin.sendCommand(Protocol.Command.ACL, "SETUSER", "reader", "reset", "on", ">read-only-pw", "~*", "+@read", "+client|setname");
        String before = new KeyspaceDump(admin).digest();
        String readerUri = readerUri();
        try (UnifiedJedis reader = Endpoint.parse(readerUri).open()) {
            JedisDataException denied = assertThrows(JedisDataException.class, () -> reader.set("probe", "x"));
            assertTrue(denied.getMessage().contains("NOPERM"), denied.getMessage());
        }

        PlanCommandTest.Result discover = PlanCommandTest.run(false, "--source", readerUri, "--prefix", "bull", "--prefix", "echo", "--json");
        assertEquals(0, discover.code(), discover.err());
        PlanCommandTest.Result plan = PlanCommandTest.run(true, "--source", readerUri, "--prefix", "bull", "--prefix", "echo", "--all", "--json");
        assertEquals(3, plan.code(), plan.err());
        assertEquals(12, plan.json().path("queues").size());
        PlanCommandTest.Result text = PlanCommandTest.run(true, "--source", readerUri, "--all");
        assertEquals(3, text.code(), text.err());

        assertEquals(before, new KeyspaceDump(admin).digest(), "the dry run changed the keyspace");
    }

    private static String readerUri() {
        URI server = URI.create(SERVER.uri());
        return "redis://reader:read-only-pw@" + server.getHost() + ":" + server.getPort();
    }
}
