package io.emq.migrate.wire;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.emq.migrate.testing.RealServerExtension;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import redis.clients.jedis.Connection;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.args.Rawable;

/** {@link RawArguments} sends the very command {@code sendCommand(command, byte[]...)} sends: same replies, same writes. */
class RawArgumentsTest {
    @RegisterExtension
    static final RealServerExtension SERVER = RealServerExtension.standalone();

    private final UnifiedJedis client = SERVER.client();

    @BeforeEach
    void clean() {
        client.flushAll();
    }

    private static byte[] b(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    /** Fields and values alternating, with binary, empty and long values among them. */
    private static List<byte[]> fields(int pairs) {
        List<byte[]> fields = new ArrayList<>();
        for (int i = 0; i < pairs; i++) {
            fields.add(b("f" + i));
            fields.add(i % 3 == 0 ? new byte[] {0, (byte) 0xff, '\r', '\n'} : i % 3 == 1 ? new byte[0] : b("v".repeat(i * 10)));
        }
        return fields;
    }

    @Test
    void aHashWrittenWithRawArgumentsIsTheOneTheArrayPathWrites() {
        List<byte[]> fields = fields(300);
        try (Connection c = DedicatedConnection.to(client, b("raw"))) {
            c.sendCommand(new RawArguments(Protocol.Command.HSET, b("raw"), fields));
            c.sendCommand(Protocol.Command.HSET, prepend(b("array"), fields));
            c.sendCommand(new RawArguments(Protocol.Command.EXISTS, b("raw"), List.of(b("array"), b("none"))));
            assertEquals(List.of(300L, 300L, 2L), c.getMany(3));
        }
        Map<byte[], byte[]> raw = client.hgetAll(b("raw"));
        assertEquals(300, raw.size());
        for (int i = 0; i < fields.size(); i += 2) {
            assertArrayEquals(fields.get(i + 1), client.hget(b("raw"), fields.get(i)));
            assertArrayEquals(client.hget(b("array"), fields.get(i)), client.hget(b("raw"), fields.get(i)));
        }
    }

    @Test
    void itCountsAndHandsOutTheCommandThenEachArgument() {
        RawArguments args = new RawArguments(Protocol.Command.ZADD, b("set"), List.of(b("1"), b("a")));
        assertEquals(4, args.size());
        List<String> seen = new ArrayList<>();
        Iterator<Rawable> it = args.iterator();
        while (it.hasNext()) {
            seen.add(new String(it.next().getRaw(), StandardCharsets.UTF_8));
        }
        assertEquals(List.of("ZADD", "set", "1", "a"), seen);
        assertThrows(NoSuchElementException.class, it::next);
    }

    private static byte[][] prepend(byte[] first, List<byte[]> rest) {
        List<byte[]> all = new ArrayList<>();
        all.add(first);
        all.addAll(rest);
        return all.toArray(byte[][]::new);
    }
}
