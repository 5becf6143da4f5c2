package io.emq.migrate.migrate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.emq.migrate.testing.Monitor;
import io.emq.migrate.testing.RealServerExtension;
import io.emq.migrate.v1.Bytes;
import io.emq.migrate.v1.QueueRef;
import io.emq.migrate.wire.Wire;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.UnifiedJedis;

/**
 * The v1 jobs' digests ({@link SourceFence#read}): a plain read's digest, computed here, is the one the
 * server's script computes of the same job (the one retirement compares), fields in byte order whatever
 * the server's locale; a job with a logs list or a flow key, or a job key of another type, is read by
 * the script, whose digest covers them; the other jobs of the batch are still read plainly.
 */
class SourceFenceTest {
    @RegisterExtension
    static final RealServerExtension SERVER = RealServerExtension.standalone();

    static final QueueRef QUEUE = QueueRef.of("bull", "digests");
    /** Field names whose byte order is not a locale's (upper before lower case, '_' before letters, a non-ASCII name first). */
    static final Map<String, String> FIELDS = Map.of("name", "send", "Name", "upper", "_id", "", "data", "{\"n\":1}",
            "é", "accent");

    private final UnifiedJedis client = SERVER.client();
    private final Wire wire = Wire.unfenced(client);

    @BeforeEach
    void clean() {
        client.flushAll();
    }

    private static String key(String id) {
        return QUEUE.jobKey(Bytes.utf8(id)).display();
    }

    private static List<Bytes> ids(String... ids) {
        return java.util.Arrays.stream(ids).map(Bytes::utf8).toList();
    }

    private List<String> scriptDigests(List<Bytes> ids) {
        return SourceFence.readByScript(wire, QUEUE, ids).stream().map(SourceFence.Job::digest).toList();
    }

    @Test
    void aPlainReadsDigestIsTheScriptsOverTheFieldsInByteOrder() {
        client.hset(key("1"), FIELDS);
        client.hset(key("2"), Map.of("data", "{}", "name", "other"));
        List<Bytes> ids = ids("1", "2", "3"); // 3 has no hash
        List<SourceFence.Job> read = SourceFence.read(wire, QUEUE, ids);
        assertEquals(List.of("fc7c4f9b29eb22c4", SourceFence.digest(read.get(1).hash()), "71f8e7976e4cbc45"),
                read.stream().map(SourceFence.Job::digest).toList(),
                "SHA-1 over 2:é6:accent 3:_id0: 4:Name5:upper 4:data7:{\"n\":1} 4:name4:send; over none for no hash");
        assertEquals(scriptDigests(ids), read.stream().map(SourceFence.Job::digest).toList(), "the script digests them alike");
        assertEquals("send", read.get(0).hash().get(Bytes.utf8("name")).utf8());
        assertEquals(Map.of(), read.get(2).hash());
    }

    @Test
    void aJobWithALogsListOrAFlowKeyIsDigestedWithThem() {
        for (String id : List.of("1", "2", "3")) {
            client.hset(key(id), FIELDS);
        }
        List<Bytes> ids = ids("1", "2", "3");
        String plain = SourceFence.read(wire, QUEUE, ids).get(0).digest();
        client.rpush(key("2") + ":logs", "a log line");
        client.sadd(key("3") + ":dependencies", "bull:child:1");
        List<String> digests = SourceFence.digests(wire, QUEUE, ids);
        assertEquals(scriptDigests(ids), digests);
        assertEquals(plain, digests.get(0), "job 1 holds what it held");
        assertNotEquals(plain, digests.get(1), "job 2's digest covers its logs");
        assertNotEquals(plain, digests.get(2), "job 3's digest covers its dependencies");
    }

    @Test
    void onlyTheJobsWithLogsOrFlowKeysAreReadByTheScript() throws Exception {
        for (String id : List.of("1", "2", "3")) {
            client.hset(key(id), FIELDS);
        }
        client.rpush(key("2") + ":logs", "a log line");
        List<String> commands = new CopyOnWriteArrayList<>();
        try (Monitor monitor = new Monitor(SERVER.node(SERVER.nodes().get(0)), commands::add);
             Jedis marker = SERVER.node(SERVER.nodes().get(0))) {
            Thread.sleep(200);
            SourceFence.read(wire, QUEUE, ids("1", "2", "3"));
            Monitor.awaitShown(marker, commands, "read done");
        }
        List<String> plain = commands.stream().filter(c -> c.contains("\"HGETALL\"") && !c.contains(" lua]")).toList();
        List<String> scripted = commands.stream().filter(c -> c.contains("\"HGETALL\"") && c.contains(" lua]")).toList();
        assertEquals(2, plain.size(), "jobs 1 and 3 read plainly: " + plain);
        assertEquals(1, scripted.size(), "job 2 read by the script: " + scripted);
        assertTrue(scripted.get(0).endsWith("\"" + key("2") + "\""), scripted.get(0));
    }

    @Test
    void aJobKeyOfAnotherTypeIsDigestedByItsType() {
        client.hset(key("1"), FIELDS);
        client.set(key("2").getBytes(StandardCharsets.UTF_8), "not a hash".getBytes(StandardCharsets.UTF_8));
        List<Bytes> ids = ids("1", "2");
        List<SourceFence.Job> read = SourceFence.read(wire, QUEUE, ids);
        assertEquals(scriptDigests(ids), read.stream().map(SourceFence.Job::digest).toList());
        assertEquals("fc7c4f9b29eb22c4", read.get(0).digest());
        assertEquals(Map.of(), read.get(1).hash(), "no hash read");
    }

    @Test
    void aReadWithoutExtrasDigestsNoLogsAndSendsTheScriptOnlyAKeyOfAnotherType() {
        for (String id : List.of("1", "2")) {
            client.hset(key(id), FIELDS);
        }
        client.rpush(key("2") + ":logs", "a log line the caller's scan did not see");
        client.set(key("3").getBytes(StandardCharsets.UTF_8), "not a hash".getBytes(StandardCharsets.UTF_8));
        List<SourceFence.Job> read = SourceFence.readWithoutExtras(wire, QUEUE, ids("1", "2", "3"));
        assertEquals(List.of("fc7c4f9b29eb22c4", "fc7c4f9b29eb22c4", scriptDigests(ids("3")).get(0)),
                read.stream().map(SourceFence.Job::digest).toList(), "job 2 digested as a job without logs, beside a key of another type");
        assertNotEquals(read.get(1).digest(), SourceFence.read(wire, QUEUE, ids("2")).get(0).digest(),
                "so its digest is not the one a read with its logs finds: the re-sync copies it again");
        assertEquals(Map.of(), read.get(2).hash());
    }
    /** The digest as computed before the hashes were read flat (main 8d4a132): over a map, lengths rendered as strings. */
    private static String mapDigest(Map<Bytes, Bytes> hash) {
        java.security.MessageDigest sha1 = Sha1.digester();
        if (hash.isEmpty()) {
            sha1.update("none".getBytes(StandardCharsets.UTF_8));
        } else {
            List<byte[]> pairs = new java.util.ArrayList<>();
            hash.forEach((f, v) -> {
                java.io.ByteArrayOutputStream pair = new java.io.ByteArrayOutputStream();
                pair.writeBytes((f.length() + ":").getBytes(StandardCharsets.UTF_8));
                pair.writeBytes(f.raw());
                pair.writeBytes((v.length() + ":").getBytes(StandardCharsets.UTF_8));
                pair.writeBytes(v.raw());
                pairs.add(pair.toByteArray());
            });
            pairs.sort(java.util.Arrays::compareUnsigned);
            pairs.forEach(sha1::update);
        }
        return java.util.HexFormat.of().formatHex(sha1.digest(), 0, 8);
    }

    @org.junit.jupiter.params.ParameterizedTest
    @org.junit.jupiter.params.provider.ValueSource(strings = {"node-5.65.1", "elixir-v1", "legacy-and-foreign", "node-large-payload"})
    void everyHashOfTheRecordedKeyspacesIsReadFlatAsHgetallReadsItAndDigestedAsBefore(String name) {
        new io.emq.migrate.v1.fixture.FixtureLoader(client).load(io.emq.migrate.v1.fixture.FixtureLoader.resource(name));
        List<byte[]> keys = new java.util.ArrayList<>();
        client.keys("*".getBytes(StandardCharsets.UTF_8)).forEach(k -> {
            if (client.type(k).equals("hash")) {
                keys.add(k);
            }
        });
        keys.add("no:such:hash".getBytes(StandardCharsets.UTF_8));
        List<FlatHash> flat = SourceFence.hashes(wire, keys);
        for (int i = 0; i < keys.size(); i++) {
            Map<Bytes, Bytes> read = new java.util.HashMap<>();
            client.hgetAll(keys.get(i)).forEach((f, v) -> read.put(Bytes.of(f), Bytes.of(v)));
            assertEquals(read, flat.get(i), Bytes.of(keys.get(i)).display());
            assertEquals(read.keySet(), flat.get(i).keySet());
            for (Map.Entry<Bytes, Bytes> field : read.entrySet()) {
                assertEquals(field.getValue(), flat.get(i).get(field.getKey()));
                assertTrue(java.util.Arrays.equals(field.getValue().raw(), flat.get(i).raw(field.getKey().raw())));
            }
            assertEquals(null, flat.get(i).raw("no such field".getBytes(StandardCharsets.UTF_8)));
            assertEquals(mapDigest(read), SourceFence.digest(flat.get(i)), Bytes.of(keys.get(i)).display());
        }
        assertTrue(keys.size() > 1, "the keyspace has hashes");
    }
}
