package io.emq.migrate.cli;

import io.emq.migrate.keyspace.Keys;
import io.emq.migrate.server.LocalServer;
import io.emq.migrate.v1.fixture.Fixture;
import io.emq.migrate.v1.fixture.FixtureLoader;
import io.emq.migrate.wire.Endpoint;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.commons.cli.CommandLine;
import org.apache.commons.cli.Options;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.params.ScanParams;
import redis.clients.jedis.resps.ScanResult;

/**
 * {@code emq-migrate demo [--migrate] [--fixture NAME]}: the tour on a machine with no server.
 * Starts a scratch server on a free loopback port, loads a recorded v1 keyspace, prints the dry
 * run ({@code plan}), and with {@code --migrate} runs the real commands on it (migrate, verify, drain with the
 * validate handler), printing each command line and its output; then stops the server.
 */
public final class DemoCommand {
    static final String DEFAULT_FIXTURE = "node-5.65.1";
    private static final List<String> PREFIXES = List.of("bull");

    private DemoCommand() {
    }

    public static int run(String[] args, PrintStream out, PrintStream err) {
        Options options = new Options()
                .addOption(null, "migrate", false, "after the dry run, migrate, verify and drain every queue")
                .addOption(null, "fixture", true, "the recorded v1 keyspace to load (default " + DEFAULT_FIXTURE
                        + "; also elixir-v1, legacy-and-foreign, node-large-payload)");
        Optional<CommandLine> parsed = CommandLines.parse("demo", "[--migrate] [--fixture NAME]", options, args, out, err);
        if (parsed.isEmpty()) {
            return CommandLines.helpOrUsage(args);
        }
        String name = parsed.get().getOptionValue("fixture", DEFAULT_FIXTURE);
        Fixture fixture;
        try {
            fixture = FixtureLoader.resource(name);
        } catch (IllegalArgumentException e) {
            err.println("emq-migrate demo: " + e.getMessage());
            return ExitCodes.USAGE;
        }
        try (LocalServer server = LocalServer.start(); UnifiedJedis client = Endpoint.parse(server.uri()).open()) {
            out.println("== a scratch " + server.binary().source() + " server (" + server.binary().path() + ") on "
                    + server.uri() + ", no persistence, stopped at the end");
            new FixtureLoader(client).load(fixture);
            out.println("== loaded the recorded v1 keyspace '" + name + "': " + fixture.keys().size() + " keys");
            out.println("   " + fixture.description());
            command(out, err, "plan", "--source", server.uri(), "--all");
            if (!parsed.get().hasOption("migrate")) {
                out.println();
                out.println("Nothing was written. Run `emq-migrate demo --migrate` to migrate, verify and drain it.");
                return ExitCodes.OK;
            }
            return migrateVerifyDrain(client, server.uri(), out, err);
        } catch (IllegalStateException e) {
            err.println("emq-migrate demo: " + e.getMessage());
            return ExitCodes.USAGE;
        }
    }

    private static int migrateVerifyDrain(UnifiedJedis client, String uri, PrintStream out, PrintStream err) {
        out.println();
        List<String> lapsed = expireLiveLocks(client);
        if (!lapsed.isEmpty()) {
            out.println("== the demo deletes the live v1 lock" + (lapsed.size() == 1 ? " " : "s ") + String.join(", ", lapsed)
                    + " to simulate its worker's lease lapsing (on a real server, stop the v1 workers and pass"
                    + " --wait-for-locks 1m)");
        }
        int worst = command(out, err, "migrate", "--source", uri, "--all", "--drop-cron-schedulers");
        List<String> queues = migratedQueues(client);
        for (String q : queues) {
            worst = Math.max(worst, command(out, err, "verify", "--target", uri, "--queue", q));
        }
        for (String q : queues) {
            boolean paused = client.hexists(Keys.queue(q).meta(), "paused");
            worst = Math.max(worst, paused ? command(out, err, "drain", "--target", uri, "--queue", q, "--resume")
                    : command(out, err, "drain", "--target", uri, "--queue", q));
        }
        out.println();
        out.println(worst == ExitCodes.OK ? "demo: every stage passed; the scratch server stops now."
                : "demo: a stage did not pass (see above); the scratch server stops now.");
        return worst;
    }

    /** Runs one CLI command as an operator would type it, echoing the line and its exit code. */
    private static int command(PrintStream out, PrintStream err, String... args) {
        out.println();
        out.println("$ emq-migrate " + String.join(" ", args));
        int code = Main.run(args, out, err);
        out.println("(exit " + code + ")");
        return code;
    }

    /** Deletes the v1 {@code :lock} keys that still have a TTL, as if their workers had died. */
    static List<String> expireLiveLocks(UnifiedJedis client) {
        List<String> deleted = new ArrayList<>();
        for (String prefix : PREFIXES) {
            for (String key : scan(client, prefix + ":*:lock")) {
                if (client.pttl(key) > 0) {
                    client.del(key);
                    deleted.add(key);
                }
            }
        }
        return deleted;
    }

    /** The v2 queues that have a migration journal, in name order. */
    static List<String> migratedQueues(UnifiedJedis client) {
        String one = Keys.migrationJournal("q");
        String prefix = one.substring(0, one.length() - 1);
        return scan(client, prefix + "*").stream().map(k -> k.substring(prefix.length())).sorted().toList();
    }

    private static List<String> scan(UnifiedJedis client, String pattern) {
        List<String> keys = new ArrayList<>();
        ScanParams params = new ScanParams().match(pattern).count(1000);
        String cursor = ScanParams.SCAN_POINTER_START;
        do {
            ScanResult<String> page = client.scan(cursor, params);
            keys.addAll(page.getResult());
            cursor = page.getCursor();
        } while (!cursor.equals(ScanParams.SCAN_POINTER_START));
        return keys;
    }
}
