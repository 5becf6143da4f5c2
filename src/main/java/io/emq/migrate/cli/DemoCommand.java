package io.emq.migrate.cli;

import io.emq.migrate.keyspace.Keys;
import io.emq.migrate.migrate.Journals;
import io.emq.migrate.server.LocalServer;
import io.emq.migrate.v1.fixture.Fixture;
import io.emq.migrate.v1.fixture.FixtureLoader;
import io.emq.migrate.wire.Endpoint;
import io.emq.migrate.wire.Scan;
import io.emq.migrate.wire.Wire;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.commons.cli.Options;
import redis.clients.jedis.UnifiedJedis;

/**
 * {@code emq-migrate demo [--migrate] [--fixture NAME] [--keep]}: the tour on a machine with no server.
 * Starts a scratch server on a free loopback port, loads a recorded v1 keyspace, prints the dry
 * run ({@code plan}), and with {@code --migrate} runs the real commands on it (migrate, verify, drain with the
 * validate handler), printing each command line and its output; then stops the server.
 */
final class DemoCommand implements Command {
    static final String DEFAULT_FIXTURE = "node-5.65.1";
    private static final List<String> PREFIXES = List.of("bull");

    public void options(Options options) {
        options.addOption(null, "migrate", false, "after the dry run, migrate, verify and drain every queue")
                .addOption(Cli.valued("fixture", "NAME", "the recorded v1 keyspace to load (default " + DEFAULT_FIXTURE
                        + "; also elixir-v1, legacy-and-foreign, node-large-payload)"))
                .addOption(null, "keep", false, "leave the scratch server running at the end and print its URI");
    }

    public int run(Invocation in) {
        String name = in.value("fixture", DEFAULT_FIXTURE);
        Fixture fixture = FixtureCommand.fixture(name);
        Tour tour = new Tour(in);
        LocalServer server;
        try {
            server = LocalServer.start();
        } catch (IllegalStateException | java.io.UncheckedIOException e) {
            throw CliException.usage("cannot start a scratch server: " + e.getMessage());
        }
        try {
            UnifiedJedis client = in.open(Endpoint.parse(server.uri()), Side.TARGET, 8);
            tour.say("== a scratch " + server.binary().source() + " server (" + server.binary().path() + ") on "
                    + server.uri() + ", no persistence, " + (in.has("keep") ? "left running at the end" : "stopped at the end"));
            new FixtureLoader(client).load(fixture);
            tour.say("== loaded the recorded v1 keyspace '" + name + "': " + fixture.keys().size() + " keys");
            tour.say("   " + fixture.description());
            int plan = tour.command("plan", "--source", server.uri(), "--all");
            if (plan == ExitCodes.REFUSED) {
                tour.say("(plan says BLOCKED above: each refusal names the option that lifts it; the --migrate tour"
                        + " passes --drop-cron-schedulers and lets the live lock lapse)");
            }
            int worst = plan == ExitCodes.REFUSED ? ExitCodes.OK : plan;
            if (in.has("migrate")) {
                worst = Math.max(worst, migrateVerifyDrain(client, server.uri(), tour));
            } else {
                tour.say("");
                tour.say("Nothing was written. Run `emq-migrate demo --migrate` to migrate, verify and drain it.");
            }
            if (in.has("keep")) {
                tour.say("");
                tour.say("The server keeps running at " + server.uri() + " (try: emq-migrate discover --source "
                        + server.uri() + "); stop it with: redis-cli -u " + server.uri() + " shutdown nosave");
            }
            tour.finish(worst, server.uri(), in.has("keep"));
            return worst;
        } finally {
            if (!in.has("keep")) {
                server.close();
            }
        }
    }

    private static int migrateVerifyDrain(UnifiedJedis client, String uri, Tour tour) {
        tour.say("");
        List<String> lapsed = expireLiveLocks(client);
        if (!lapsed.isEmpty()) {
            tour.say("== the demo deletes the live v1 lock" + (lapsed.size() == 1 ? " " : "s ") + String.join(", ", lapsed)
                    + " to simulate its worker's lease lapsing (on a real server, stop the v1 workers and pass"
                    + " --wait-for-locks 1m)");
        }
        int worst = tour.command("migrate", "--source", uri, "--all", "--drop-cron-schedulers", "--yes");
        List<String> queues = Journals.queues(Wire.unfenced(client));
        for (String q : queues) {
            worst = Math.max(worst, tour.command("verify", "--target", uri, "--queue", q));
        }
        for (String q : queues) {
            boolean paused = client.hexists(Keys.queue(q).meta(), "paused");
            worst = Math.max(worst, paused ? tour.command("drain", "--target", uri, "--queue", q, "--resume")
                    : tour.command("drain", "--target", uri, "--queue", q));
        }
        return worst;
    }

    /**
     * The tour's output: as text, each command line and what it printed; with --json, one document
     * holding each command's own JSON document and exit code.
     */
    private static final class Tour {
        private final Invocation in;
        private final List<String> notes = new ArrayList<>();
        private final List<Map<String, Object>> stages = new ArrayList<>();

        Tour(Invocation in) {
            this.in = in;
        }

        void say(String line) {
            if (in.json()) {
                if (!line.isBlank()) {
                    notes.add(line.strip());
                }
            } else {
                in.out().println(line);
            }
        }

        int command(String... args) {
            List<String> line = new ArrayList<>(List.of(args));
            if (in.has("quiet") || in.has("no-progress")) {
                line.add("--no-progress");
            }
            // the scratch server is the tour's: the version its commands claim there is named, not noted as news
            line.addAll(List.of("--" + Invocation.WIRE_VERSION, in.wireVersion()));
            if (!in.json()) {
                in.out().println();
                in.out().println("$ emq-migrate " + String.join(" ", args));
                return Cli.run(line.toArray(new String[0]), in.out(), in.err(), in.environment());
            }
            line.add("--json");
            ByteArrayOutputStream captured = new ByteArrayOutputStream();
            int code = Cli.run(line.toArray(new String[0]), new PrintStream(captured, true, StandardCharsets.UTF_8),
                    in.err(), in.environment());
            Map<String, Object> stage = new LinkedHashMap<>();
            stage.put("command", "emq-migrate " + String.join(" ", args));
            stage.put("exitCode", code);
            try {
                stage.put("output", Json.MAPPER.readTree(captured.toString(StandardCharsets.UTF_8)));
            } catch (IOException notJson) {
                stage.put("output", captured.toString(StandardCharsets.UTF_8));
            }
            stages.add(stage);
            return code;
        }

        void finish(int worst, String uri, boolean keep) {
            if (in.json()) {
                Map<String, Object> doc = new LinkedHashMap<>();
                doc.put("passed", worst == ExitCodes.OK);
                doc.put("server", keep ? uri : null);
                doc.put("notes", notes);
                doc.put("stages", stages);
                Json.print(doc, in.out());
                return;
            }
            in.out().println();
            in.out().println(worst == ExitCodes.OK ? "demo: every stage passed" + (keep ? "." : "; the scratch server stops now.")
                    : "demo: a stage did not pass (see above)" + (keep ? "." : "; the scratch server stops now."));
        }
    }

    /** Deletes the v1 {@code :lock} keys that still have a TTL, as if their workers had died. */
    static List<String> expireLiveLocks(UnifiedJedis client) {
        List<String> deleted = new ArrayList<>();
        for (String prefix : PREFIXES) {
            for (String key : Scan.keys(client, prefix + ":*:lock")) {
                if (client.pttl(key) > 0) {
                    client.del(key);
                    deleted.add(key);
                }
            }
        }
        return deleted;
    }
}
