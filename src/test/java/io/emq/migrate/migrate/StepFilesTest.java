package io.emq.migrate.migrate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.emq.migrate.testing.Monitor;
import io.emq.migrate.testing.RealServerExtension;
import io.emq.migrate.wire.Script;
import io.emq.migrate.wire.Wire;
import java.lang.reflect.Modifier;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import redis.clients.jedis.Jedis;

/**
 * The step files of {@code migrations/} and the code they name agree: every file runs a step class
 * and every step class is run by a file; the scripts a file lists are exactly the migration scripts
 * its class calls (watched with MONITOR on a real server during a migration, a v1 producer adding a
 * job after the fence, jobs with logs among every step's, so the script that reads only such batches
 * is seen); exactly the steps that say they destroy delete v1 keys; every checkpoint a step
 * passes in that run is one its class declares, and a crash spec naming one it does not is refused.
 */
class StepFilesTest {
    @RegisterExtension
    static final RealServerExtension SERVER = RealServerExtension.standalone();

    /**
     * The journal's own scripts: the runner holds the lease and records history with them, and every step
     * reads and writes the journal through them alike ({@link Journal}).
     */
    private static final Set<String> RUNNER_SCRIPTS = Set.of("migrate_journal_lock", "migrate_journals", "migrate_journal_set", "migrate_journal_forget",
            "migrate_journal_known");
    private static final Pattern EVALSHA = Pattern.compile("\"(?:EVALSHA|evalsha)\" \"([0-9a-f]{40})\"");
    private static final Pattern DELETES_V1 = Pattern.compile("\"(?:DEL|UNLINK|del|unlink)\" \"bull:");
    private static final Pattern MARK = Pattern.compile("\"ECHO\" \"step (\\d+)\"", Pattern.CASE_INSENSITIVE);

    @Test
    void everyStepFileRunsAStepClassAndEveryStepClassIsRun() throws Exception {
        StepCatalog catalog = StepCatalog.load();
        Set<String> run = catalog.steps().stream().map(StepDefinition::runs).collect(Collectors.toCollection(TreeSet::new));
        Set<String> classes = new TreeSet<>();
        for (String file : ClasspathFolder.list(Step.class.getPackageName().replace('.', '/'))) {
            if (file.endsWith(".class") && !file.contains("$")) {
                Class<?> c = Class.forName(Step.class.getPackageName() + "." + file.substring(0, file.length() - 6));
                if (Step.class.isAssignableFrom(c) && !c.isInterface() && !Modifier.isAbstract(c.getModifiers())) {
                    classes.add(c.getSimpleName());
                }
            }
        }
        assertEquals(classes, run, "step classes and the classes step files run");
        catalog.steps().forEach(StepDefinition::create);
        assertEquals(List.of(120), catalog.steps().stream().filter(StepDefinition::destroys).map(StepDefinition::version).toList(),
                "only retirement destroys");
    }

    @Test
    void eachStepFileListsExactlyTheMigrationScriptsItsClassCallsAndPassesOnlyTheCheckpointsItDeclares() throws Exception {
        MigrationHarness.load(SERVER.client(), "node-5.65.1");
        SERVER.client().keys("bull:orders:*:lock").forEach(SERVER.client()::del);
        // a log on every delayed job and on each late job: a batch holding a job with logs is read by migrate_v1_source
        SERVER.client().zrange("bull:orders:delayed", 0, -1).forEach(id -> SERVER.client().rpush("bull:orders:" + id + ":logs", "a log"));
        Map<String, String> bySha = Arrays.stream(Script.values()).collect(Collectors.toMap(Script::sha, Script::fileName));
        Map<Integer, Set<String>> called = new ConcurrentHashMap<>();
        Set<Integer> deleting = ConcurrentHashMap.newKeySet();
        AtomicInteger current = new AtomicInteger(-1);
        Map<Integer, Set<String>> passed = new ConcurrentHashMap<>();
        Checkpoints observed = Checkpoints.observed((version, where) ->
                passed.computeIfAbsent(version, v -> ConcurrentHashMap.newKeySet()).add(where));
        Monitor monitor = new Monitor(SERVER.node(SERVER.nodes().get(0)), command -> {
            Matcher mark = MARK.matcher(command);
            if (mark.find()) {
                current.set(Integer.parseInt(mark.group(1)));
                return;
            }
            if (DELETES_V1.matcher(command).find()) {
                deleting.add(current.get());
            }
            Matcher eval = EVALSHA.matcher(command);
            if (eval.find() && current.get() > 0) { // before the first mark: the test's own loading
                String name = bySha.getOrDefault(eval.group(1), "unknown sha " + eval.group(1));
                if (!RUNNER_SCRIPTS.contains(name) && name.startsWith("migrate_")) {
                    called.computeIfAbsent(current.get(), v -> ConcurrentHashMap.newKeySet()).add(name);
                }
            }
        });
        Thread.sleep(200);
        StepCatalog catalog = StepCatalog.load();
        try (Jedis marker = SERVER.node(SERVER.nodes().get(0))) {
            List<MigrationResult> results = new Migrator(Wire.unfenced(SERVER.client()), Wire.open(SERVER.client()), SERVER.uri(),
                    MigrationOptions.defaults().withAcceptAnomalies(true).withDropCronSchedulers(true)
                            .withAcceptOrderDrift(true), observed) // the late adds into wait go before orders' prioritized jobs
                    .listener(new Migrator.Listener() {
                        @Override
                        public void stepStarted(String queue, StepDefinition step) {
                            marker.echo("step " + step.version());
                            if ((step.runs().equals("CatchUp") || step.destroys()) && queue.equals("orders")) {
                                // a v1 producer adds a job after the fence: catch-up, and retirement's own
                                // re-sync, must absorb it
                                String late = "late-" + step.version();
                                SERVER.client().hset("bull:orders:" + late, Map.of("name", "late", "data", "{}",
                                        "opts", "{}", "timestamp", "1", "delay", "0", "priority", "0"));
                                SERVER.client().rpush("bull:orders:" + late + ":logs", "a log");
                                SERVER.client().lpush("bull:orders:paused", late);
                                // and a v1 worker completes one: their passes fold the new completed count (a
                                // count already folded in this run is not sent again)
                                String done = "done-" + step.version();
                                SERVER.client().hset("bull:orders:" + done, Map.of("name", "done", "data", "{}",
                                        "opts", "{}", "timestamp", "1", "delay", "0", "priority", "0", "finishedOn", "2",
                                        "returnvalue", "null"));
                                SERVER.client().zadd("bull:orders:completed", 2, done);
                            }
                        }

                        @Override
                        public void stepFinished(String queue, StepDefinition step, Map<String, Long> counts, long jobs, long millis) {
                        }
                    }).migrate(List.of("bull"), List.of());
            results.forEach(r -> assertTrue(r.ok(), r.toString()));
            marker.echo("step 0");
            for (long deadline = System.nanoTime() + 10_000_000_000L; current.get() != 0 && System.nanoTime() < deadline; ) {
                Thread.sleep(10); // MONITOR streams behind the server: wait until it has shown the last command
            }
            assertEquals(0, current.get(), "MONITOR showed the whole run");
        } finally {
            monitor.close();
        }
        Map<Integer, Set<String>> listed = new TreeMap<>();
        Map<Integer, Set<String>> seen = new TreeMap<>();
        for (StepDefinition step : catalog.steps()) {
            Set<String> undeclared = new TreeSet<>(passed.getOrDefault(step.version(), Set.of()));
            undeclared.removeAll(step.checkpoints());
            assertEquals(Set.of(), undeclared, "checkpoints V" + step.version() + " passed without declaring them");
            listed.put(step.version(), step.scripts().stream().map(Script::fileName).collect(Collectors.toCollection(TreeSet::new)));
            seen.put(step.version(), new TreeSet<>(called.getOrDefault(step.version(), Set.of())));
        }
        assertEquals(listed, seen, "per step version: the scripts its file lists (left) and those its class called (right)");
        assertEquals(catalog.steps().stream().filter(StepDefinition::destroys).map(StepDefinition::version).toList(),
                List.copyOf(new TreeSet<>(deleting)), "the steps that say they destroy, and those that deleted v1 keys");
    }

    @Test
    void aCrashSpecNamingACheckpointItsStepDoesNotDeclareIsRefused() {
        assertEquals(List.of("rows built", "new rows watched", "rows written", "expectations watched", "expectations recorded"),
                StepCatalog.load().byVersion(30).orElseThrow().checkpoints());
        Checkpoints.throwingAt("30:rows written#3");
        IllegalArgumentException undeclared = assertThrows(IllegalArgumentException.class,
                () -> Checkpoints.throwingAt("30:logs read"));
        assertTrue(undeclared.getMessage().contains("V30 (absorb pending) declares no checkpoint 'logs read'"), undeclared.getMessage());
        assertThrows(IllegalArgumentException.class, () -> Checkpoints.throwingAt("31:rows written"), "no step V31");
        assertThrows(IllegalArgumentException.class, () -> Checkpoints.throwingAt("30:1"), "a position is no name");
    }

    @Test
    void theChecksumCoversTheFileItsScriptsAndTheRevisionOfItsCode() {
        StepDefinition absorb = StepDefinition.load("V30__absorb_pending.json");
        StepDefinition same = StepDefinition.load("V30__absorb_pending.json");
        assertEquals(absorb.checksum(), same.checksum());
        assertNotEquals(absorb.checksum(), StepDefinition.load("V40__absorb_scheduled.json").checksum());
        assertTrue(absorb.scripts().stream().allMatch(s -> s.fileName().startsWith("migrate_")), "no runtime script in a checksum");
    }
}
