package io.emq.migrate.migrate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.emq.migrate.testing.RealServerExtension;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code --archive-completed FILE} keeps every queue's completed jobs: a run of several queues (one after the other
 * or at once), or a later run of another queue, adds its lines beside those already there; a re-run of a queue
 * replaces its own. A file that holds other lines is refused untouched, before anything is deleted.
 */
class CompletedArchiveTest {
    @RegisterExtension
    static final RealServerExtension SERVER = RealServerExtension.standalone();

    /** Short, so a re-run after an injected crash need not wait long for the crashed run's lease to lapse. */
    static final Duration LEASE = Duration.ofMillis(300);

    @TempDir
    Path dir;
    Path archive;

    @BeforeEach
    void queues() {
        archive = dir.resolve("completed.jsonl");
        for (String q : List.of("a", "b", "c")) {
            SERVER.client().hset("bull:" + q + ":meta", Map.of("opts.maxLenEvents", "10000", "version", "bullmq:5.65.1"));
            for (int id = 1; id <= 2; id++) {
                SERVER.client().hset("bull:" + q + ":" + id, Map.of("name", "n", "data", "{\"q\":\"" + q + id + "\"}", "timestamp", "1",
                        "processedOn", "2", "finishedOn", "3", "returnvalue", "null", "atm", "1"));
                SERVER.client().zadd("bull:" + q + ":completed", 3, Integer.toString(id));
            }
            SERVER.client().set("bull:" + q + ":id", "2");
        }
    }

    private List<MigrationResult> migrate(int parallel, Checkpoints checkpoints, String... queues) {
        return migrate(Optional.of(archive), true, parallel, checkpoints, queues);
    }

    private List<MigrationResult> migrate(Optional<Path> archiving, boolean retire, int parallel, Checkpoints checkpoints, String... queues) {
        MigrationOptions o = MigrationOptions.defaults();
        MigrationOptions options = new MigrationOptions(o.payload(), o.renames(), o.keepBrandedIds(), o.waitForLocks(), archiving,
                retire, o.acceptAnomalies(), o.dropCronSchedulers(), o.dropLegacyRepeatables(), o.dropBoundedSchedulers(), LEASE, o.lane(), o.laneFrom(), o.acceptOrderDrift());
        return new Migrator(io.emq.migrate.wire.Wire.unfenced(SERVER.client()), io.emq.migrate.wire.Wire.open(SERVER.client()),
                SERVER.uri(), options, checkpoints).parallel(parallel).migrate(List.of("bull"), List.of(queues));
    }

    /** Two waiting jobs more in queue a (3 and 4), for a v1 worker to finish during the migration. */
    private static void waiting() {
        for (int id = 3; id <= 4; id++) {
            SERVER.client().hset("bull:a:" + id, Map.of("name", "n", "data", "{\"q\":\"a" + id + "\"}", "timestamp", "4"));
            SERVER.client().lpush("bull:a:wait", Integer.toString(id));
        }
        SERVER.client().set("bull:a:id", "4");
    }

    /**
     * A v1 worker finishes a job after the archive was written (V80): the re-sync passes archive the completed jobs again,
     * so the retirement, which deletes every completed job's hash, leaves the archive holding it (it held only the jobs
     * completed at V80: the job's data and return value were deleted unarchived; options probe A2).
     */
    @Test
    void aJobAV1WorkerFinishesAfterTheArchiveWasWrittenIsArchivedBeforeItIsDeleted() throws Exception {
        waiting();
        boolean[] finished = {false};
        assertRetired(migrate(1, Checkpoints.observed((version, where) -> {
            if (version == 80 && where.equals("before the fold") && !finished[0]) {
                finished[0] = true;
                String taken = LiveV1.take(SERVER.client(), "a", false, 60_000).orElseThrow();
                assertTrue(LiveV1.complete(SERVER.client(), "a", taken));
            }
        }), "a"));
        assertEquals(Map.of("bull:a", List.of("{\"q\":\"a1\"}", "{\"q\":\"a2\"}", "{\"q\":\"a3\"}")), archived());
        assertFalse(SERVER.client().exists("bull:a:3"), "retired: its hash is gone, its line kept");
    }

    /** A re-run given --archive-completed after a run that counted the completed jobs without it archives them before they are deleted. */
    @Test
    void aReRunGivenTheArchiveAfterARunWithoutItArchivesBeforeTheRetirement() throws Exception {
        assertEquals(MigrationResult.Outcome.VERIFIED, migrate(Optional.empty(), false, 1, Checkpoints.none(), "a").get(0).outcome());
        assertFalse(Files.exists(archive));
        assertRetired(migrate(1, Checkpoints.none(), "a"));
        assertEquals(Map.of("bull:a", List.of("{\"q\":\"a1\"}", "{\"q\":\"a2\"}")), archived());
    }

    /** The archive's lines by queue: each queue's data values, in the file's order. */
    private Map<String, List<String>> archived() throws Exception {
        Map<String, List<String>> byQueue = new TreeMap<>();
        for (String line : Files.readAllLines(archive)) {
            var job = new ObjectMapper().readTree(line);
            byQueue.computeIfAbsent(job.get("queue").asText(), q -> new ArrayList<>()).add(job.get("data").asText());
        }
        return byQueue;
    }

    private static void assertRetired(List<MigrationResult> results) {
        results.forEach(r -> assertEquals(MigrationResult.Outcome.RETIRED, r.outcome(), r.toString()));
    }

    @Test
    void queuesMigratedTogetherOrOneAfterAnotherEachKeepTheirLines() throws Exception {
        assertRetired(migrate(1, Checkpoints.none(), "a", "b"));
        assertRetired(migrate(1, Checkpoints.none(), "c"));
        assertEquals(Map.of("bull:a", List.of("{\"q\":\"a1\"}", "{\"q\":\"a2\"}"), "bull:b", List.of("{\"q\":\"b1\"}", "{\"q\":\"b2\"}"),
                "bull:c", List.of("{\"q\":\"c1\"}", "{\"q\":\"c2\"}")), archived());
    }

    @Test
    void queuesMigratedAtOnceEachKeepTheirLines() throws Exception {
        assertRetired(migrate(3, Checkpoints.none(), "a", "b", "c"));
        assertEquals(List.of("bull:a", "bull:b", "bull:c"), List.copyOf(archived().keySet()));
        archived().values().forEach(lines -> assertEquals(2, lines.size(), lines.toString()));
    }

    @Test
    void anIdThatIsNotTextIsArchivedAsItsBytesNotAsADisplayATextIdShares() throws Exception {
        byte[] binary = {(byte) 0xff, 'z'};
        byte[] key = "bull:a:\u00ffz".getBytes(StandardCharsets.ISO_8859_1);
        SERVER.client().hset(key, Map.of("name".getBytes(StandardCharsets.UTF_8), binary,
                "data".getBytes(StandardCharsets.UTF_8), "{}".getBytes(StandardCharsets.UTF_8),
                "finishedOn".getBytes(StandardCharsets.UTF_8), "3".getBytes(StandardCharsets.UTF_8)));
        SERVER.client().zadd("bull:a:completed".getBytes(StandardCharsets.UTF_8), 3, binary);
        SERVER.client().hset("bull:a:\\xffz", Map.of("name", "text", "data", "{}", "finishedOn", "3"));
        SERVER.client().zadd("bull:a:completed", 3, "\\xffz");
        assertRetired(migrate(1, Checkpoints.none(), "a"));
        List<String> ids = new ArrayList<>();
        for (String line : Files.readAllLines(archive)) {
            var job = new ObjectMapper().readTree(line);
            ids.add(job.has("id") ? job.get("id").asText() : "base64 " + job.get("idBase64").asText() + ", name " + job.get("nameBase64").asText());
        }
        assertEquals(List.of("1", "2", "\\xffz", "base64 /3o=, name /3o="), ids.stream().sorted().toList());
    }

    @Test
    void aRerunReplacesTheQueuesOwnLines() throws Exception {
        assertRetired(migrate(1, Checkpoints.none(), "a"));
        assertThrows(Checkpoints.InjectedCrash.class, () -> migrate(1, Checkpoints.throwingAt("80:archive written"), "b"));
        Thread.sleep(LEASE.toMillis() + 100); // the crashed run's lease lapses
        assertRetired(migrate(1, Checkpoints.none(), "b"));
        Map<String, List<String>> lines = archived();
        assertEquals(List.of("{\"q\":\"a1\"}", "{\"q\":\"a2\"}"), lines.get("bull:a"));
        assertEquals(List.of("{\"q\":\"b1\"}", "{\"q\":\"b2\"}"), lines.get("bull:b"), "b archived twice, its lines once");
    }

    @Test
    void aFileOfOtherLinesIsRefusedUntouchedAndNothingIsDeleted() throws Exception {
        Files.writeString(archive, "{\"queue\":\"bull:x\",\"id\":\"1\"}\nnot an archive line\n");
        List<MigrationResult> r = migrate(1, Checkpoints.none(), "a");
        assertEquals(MigrationResult.Outcome.REFUSED, r.get(0).outcome(), r.toString());
        assertEquals(Optional.of(MigrationRefused.Kind.ARCHIVE), r.get(0).refusalKind(), r.toString());
        assertTrue(r.get(0).message().contains("holds a line that is not an archive line (line 2)"), r.get(0).message());
        assertEquals("{\"queue\":\"bull:x\",\"id\":\"1\"}\nnot an archive line\n", Files.readString(archive));
        assertEquals(2, SERVER.client().zcard("bull:a:completed"), "v1 keeps its completed jobs");
        Files.delete(archive);
        assertRetired(migrate(1, Checkpoints.none(), "a"));
        assertEquals(List.of("bull:a"), List.copyOf(archived().keySet()));
    }

    @Test
    void anArchiveThatCannotBeWrittenIsRefusedAndNothingIsDeleted() {
        archive = dir.resolve("no-such-dir").resolve("completed.jsonl");
        List<MigrationResult> r = migrate(1, Checkpoints.none(), "a");
        assertEquals(Optional.of(MigrationRefused.Kind.ARCHIVE), r.get(0).refusalKind(), r.toString());
        assertTrue(r.get(0).message().startsWith("cannot write the completed-jobs archive " + archive), r.get(0).message());
        assertEquals(2, SERVER.client().zcard("bull:a:completed"), "v1 keeps its completed jobs");
    }
}
