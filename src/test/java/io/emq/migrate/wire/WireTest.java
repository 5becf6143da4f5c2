package io.emq.migrate.wire;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.emq.migrate.testing.RealServerExtension;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisDataException;

class WireTest {
    @RegisterExtension
    static final RealServerExtension SERVER = RealServerExtension.standalone();

    private static final String ID = "JOB0NwdXCmjyDI";

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static long enqueue(Wire wire, String id) {
        return wire.eval(new ScriptCall<>(Script.ENQUEUE, List.of(b("emq:{w}:job:" + id), b("emq:{w}:pending")), List.of(b(id), b("p")),
                Replies::asLong));
    }

    @Test
    void everyScriptLoadsAndHashesAsTheServerDoes() {
        for (Script s : Script.values()) {
            assertEquals(s.sha(), SERVER.client().scriptLoad(new String(s.source(), StandardCharsets.UTF_8)), s.fileName());
        }
    }

    @Test
    void theFenceClaimsAnEmptyDeploymentThenAcceptsItsOwnVersion() {
        Wire.open(SERVER.client());
        assertEquals(VersionFence.DEFAULT_VERSION, SERVER.client().get("{emq}:version"));
        Wire.open(SERVER.client());
    }

    @Test
    void theFenceRefusesAnotherVersionNamingFoundAndExpected() {
        SERVER.client().set("{emq}:version", "echomq:3.0.0");
        EmqWireException.VersionFence e = assertThrows(EmqWireException.VersionFence.class,
                () -> Wire.open(SERVER.client()));
        assertEquals("echomq:3.0.0", e.found());
        assertEquals("echomq:2.0.0", e.expected());
        assertTrue(e.getMessage().contains("echomq:3.0.0") && e.getMessage().contains("echomq:2.0.0"));
        Wire.open(SERVER.client(), "echomq:3.0.0");
    }

    @Test
    void theFenceRunsAgainAfterAReconnect() {
        try (UnifiedJedis client = Clients.open(SERVER.endpoint(), 1)) {
            Wire wire = Wire.open(client);
            assertEquals(1L, enqueue(wire, ID));
            SERVER.client().set("{emq}:version", "echomq:9.9.9");
            Object id = client.sendCommand(Protocol.Command.CLIENT, "ID");
            SERVER.client().sendCommand(Protocol.Command.CLIENT, "KILL", "ID", String.valueOf(id));
            assertThrows(RuntimeException.class, () -> enqueue(wire, "JOB0NwdXCmjyDJ"));
            EmqWireException.VersionFence e = assertThrows(EmqWireException.VersionFence.class,
                    () -> enqueue(wire, "JOB0NwdXCmjyDJ"));
            assertEquals("echomq:9.9.9", e.found());
        }
    }

    @Test
    void noscriptLoadsTheSourceAndRetriesMappingRefusalsTheSameWay() {
        Wire wire = Wire.open(SERVER.client());
        SERVER.client().scriptFlush();
        assertEquals(1L, enqueue(wire, ID));
        SERVER.client().scriptFlush();
        EmqWireException.Kind kind = assertThrows(EmqWireException.Kind.class, () -> enqueue(wire, "ORD0NwdXCmjyDI"));
        assertEquals("EMQKIND", kind.wireClass());
        assertEquals("job id must be JOB-namespaced", kind.detail());
        EmqWireException.Kind again = assertThrows(EmqWireException.Kind.class, () -> enqueue(wire, "ORD0NwdXCmjyDI"));
        assertEquals(kind.getMessage(), again.getMessage());
    }

    @Test
    void pipelinedCallsReportEachOutcomeEvenOnAColdCache() {
        Wire wire = Wire.open(SERVER.client());
        SERVER.client().scriptFlush();
        List<ScriptReply<Long>> replies = wire.evalAll(List.of(
                new ScriptCall<>(Script.ENQUEUE, List.of(b("emq:{w}:job:" + ID), b("emq:{w}:pending")), List.of(b(ID), b("p")),
                        Replies::asLong),
                new ScriptCall<>(Script.ENQUEUE, List.of(b("emq:{w}:job:ORD0NwdXCmjyDI"), b("emq:{w}:pending")),
                        List.of(b("ORD0NwdXCmjyDI"), b("p")), Replies::asLong),
                new ScriptCall<>(Script.ENQUEUE, List.of(b("emq:{w}:job:" + ID), b("emq:{w}:pending")), List.of(b(ID), b("p")),
                        Replies::asLong)));
        assertEquals(1L, replies.get(0).get());
        assertInstanceOf(EmqWireException.Kind.class, replies.get(1).error());
        assertEquals(0L, replies.get(2).get());
    }

    @Test
    void everyWireClassMapsToItsOwnTypeAndUnknownWordsPassThrough() {
        assertInstanceOf(EmqWireException.Kind.class, WireErrors.map(new JedisDataException("EMQKIND x")));
        assertInstanceOf(EmqWireException.Stale.class, WireErrors.map(new JedisDataException("EMQSTALE x")));
        assertInstanceOf(EmqWireException.Rate.class, WireErrors.map(new JedisDataException("EMQRATE x")));
        assertInstanceOf(EmqWireException.Lock.class, WireErrors.map(new JedisDataException("EMQLOCK x")));
        assertInstanceOf(EmqWireException.State.class, WireErrors.map(new JedisDataException("EMQSTATE x")));
        RuntimeException unknown = WireErrors.map(new JedisDataException("EMQQUOTA over quota"));
        EmqWireException.Protocol p = assertInstanceOf(EmqWireException.Protocol.class, unknown);
        assertEquals("EMQQUOTA", p.wireClass());
        assertEquals("EMQQUOTA over quota", p.getMessage());
        JedisDataException other = new JedisDataException("WRONGTYPE Operation against a key");
        assertEquals(other, WireErrors.map(other));
        assertTrue(((EmqWireException.Stale) WireErrors.map(new JedisDataException("EMQSTALE job gone"))).jobGone());
    }
}
