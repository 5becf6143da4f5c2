package io.emq.migrate.cli;

import io.emq.migrate.keyspace.Names;
import io.emq.migrate.wire.Clients;
import io.emq.migrate.wire.Endpoint;
import io.emq.migrate.wire.TlsFiles;
import io.emq.migrate.wire.VersionFence;
import io.emq.migrate.wire.Wire;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.commons.cli.CommandLine;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.exceptions.JedisException;

/**
 * One run of a command: its parsed options, where to print, the servers it named, and the shared
 * conduct (progress, notes, confirmations). Clients it opens are closed when the run ends.
 */
final class Invocation implements AutoCloseable {
    private final CommandLine line;
    private final PrintStream out;
    private final PrintStream err;
    private final Environment environment;
    private final Settings settings;
    private final List<AutoCloseable> opened = new ArrayList<>();

    Invocation(CommandLine line, PrintStream out, PrintStream err, Environment environment,
               Settings settings) {
        this.line = line;
        this.out = out;
        this.err = err;
        this.environment = environment;
        this.settings = settings;
    }

    PrintStream out() {
        return out;
    }

    PrintStream err() {
        return err;
    }

    Environment environment() {
        return environment;
    }

    boolean has(String option) {
        return line.hasOption(option);
    }

    Optional<String> value(String option) {
        return Optional.ofNullable(line.getOptionValue(option));
    }

    String value(String option, String otherwise) {
        return line.getOptionValue(option, otherwise);
    }

    List<String> values(String option) {
        String[] v = line.getOptionValues(option);
        return v == null ? List.of() : List.of(v);
    }

    List<String> arguments() {
        return line.getArgList();
    }

    boolean json() {
        return line.hasOption("json");
    }

    /** A required option's value, else a usage error naming it. */
    String required(String option, String what) {
        return value(option).orElseThrow(() -> CliException.usage("--" + option + " " + what + " is required"));
    }

    /** {@code --queue Q} as a v2 queue name, else a usage error saying what a name may hold. */
    String queue() {
        return queues().get(0);
    }

    /** Each {@code --queue Q} (one at least; once each) as a v2 queue name, else a usage error saying what a name may hold. */
    List<String> queues() {
        required("queue", "Q");
        List<String> queues = values("queue").stream().distinct().toList();
        queues.forEach(queue -> Names.queueNameProblem(queue).ifPresent(problem -> {
            throw CliException.usage("--queue: " + problem);
        }));
        return queues;
    }

    /** A whole-number option within bounds, else a usage error. */
    int number(String option, int otherwise, int min, int max) {
        Optional<String> text = value(option);
        if (text.isEmpty()) {
            return otherwise;
        }
        try {
            int n = Integer.parseInt(text.get().trim());
            if (n >= min && n <= max) {
                return n;
            }
        } catch (NumberFormatException notANumber) {
            // reported below
        }
        throw CliException.usage("--" + option + " takes a whole number from " + min + " to " + max + ", not '"
                + text.get() + "'");
    }

    /** A duration option ({@code 500ms}, {@code 30s}, {@code 2m}, ISO-8601), else a usage error. */
    Duration duration(String option, Duration otherwise) {
        Optional<String> text = value(option);
        if (text.isEmpty()) {
            return otherwise;
        }
        return Durations.parse(text.get()).orElseThrow(() -> CliException.usage("--" + option
                + " takes a duration like 500ms, 30s or 2m, not '" + text.get() + "'"));
    }

    /**
     * A file the command writes, refused now, before anything is read or written, when it could not be written at the
     * end: no folder, a folder of that name, no permission (an absent file is created and deleted again to find out).
     */
    Path outputFile(String option) {
        Path file = environment.directory().resolve(required(option, "FILE"));
        Path folder = file.toAbsolutePath().getParent();
        if (folder != null && !folder.toFile().isDirectory()) {
            throw CliException.usage("--" + option + ": no folder " + folder + " to write " + file.getFileName() + " into");
        }
        if (Files.isDirectory(file)) {
            throw CliException.usage("--" + option + ": " + file + " is a folder; name a file in it");
        }
        String cannot = "--" + option + ": cannot write " + file;
        if (Files.exists(file)) {
            if (!Files.isWritable(file)) {
                throw CliException.usage(cannot + " (not writable); name a file you may write");
            }
            return file;
        }
        try {
            Files.delete(Files.createFile(file));
        } catch (IOException e) {
            throw CliException.usage(cannot + " (" + e + "); name a file you may write");
        }
        return file;
    }

    /** The server named for a side (flag, EMQ_ variable, config file), if any. */
    Optional<Endpoint> endpoint(Side side) {
        Optional<Settings.Value> uri = settings.get(side, "");
        if (uri.isEmpty()) {
            return Optional.empty();
        }
        try {
            return Optional.of(endpoint(uri.get().text(), side));
        } catch (Endpoint.BadEndpointException e) {
            throw CliException.usage(uri.get().origin() + ": " + e.getMessage());
        }
    }

    /** A server URI read with a side's credentials (its EMQ_ variables) and TLS files, as the side's own URI is. */
    Endpoint endpoint(String uri, Side side) {
        TlsFiles files = new TlsFiles(file(side, "cacert"), file(side, "cert"), file(side, "key"));
        return Endpoint.parse(uri, side.name(), environment::variable).withTls(files);
    }

    private Optional<Path> file(Side side, String part) {
        return settings.get(side, part).map(v -> environment.directory().resolve(v.text()));
    }

    /** The server named for a side; a usage error saying the three ways to name it when absent. */
    Endpoint require(Side side) {
        return endpoint(side).orElseThrow(() -> CliException.usage("--" + side.word() + " URI is required ("
                + side.description() + "; or " + Settings.variable(side, "") + ", or " + side.word() + "= in "
                + Settings.DEFAULT_FILE + ")"));
    }

    /** The target, which defaults to the source when not named. */
    Endpoint targetOrSource() {
        return endpoint(Side.TARGET).orElseGet(() -> require(Side.SOURCE));
    }

    /** A connected client, closed when the run ends; failures to connect say what to check. */
    UnifiedJedis open(Endpoint endpoint, Side side, int concurrency) {
        try {
            UnifiedJedis client = Clients.open(endpoint, concurrency);
            opened.add(client);
            if (!endpoint.cluster()) { // a cluster client has read the slots already; DBSIZE needs only +@read
                client.dbSize();
                refuseAClusterNode(client, endpoint, side);
            }
            return client;
        } catch (JedisException e) {
            throw new ServerProblem(endpoint, side, e);
        }
    }

    /**
     * Refuses a single server's URI that names a node of a cluster ({@code INFO cluster}: {@code cluster_enabled:1}):
     * read as one server, it would show that node's share of the keys alone, and writes to the others' slots fail with
     * {@code MOVED}. A user that may not run {@code INFO} is not asked.
     */
    private static void refuseAClusterNode(UnifiedJedis client, Endpoint endpoint, Side side) {
        String info;
        try {
            info = client.info("cluster");
        } catch (JedisDataException refused) {
            return;
        }
        if (info.contains("cluster_enabled:1")) {
            throw CliException.usage(endpoint.describe() + " (" + side.description() + ") is a node of a cluster: give --" + side.word()
                    + " as a cluster, redis+cluster://host:port or several seeds host1:port1,host2:port2, so that every node's keys are"
                    + " read and written");
        }
    }

    /** The option naming the {@code {emq}:version} a command expects on its v2 target. */
    static final String WIRE_VERSION = "wire-version";

    /** The {@code {emq}:version} to expect on the target: {@code --wire-version}, else the configured one. */
    String wireVersion() {
        String v = value(WIRE_VERSION, "");
        return v.isBlank() ? VersionFence.configured() : v.trim();
    }

    /**
     * Notes which {@code {emq}:version} this run's first write will claim on a target that holds none
     * ({@link VersionFence#claimNote}), unless the operator named the version ({@code --wire-version}, or
     * {@value VersionFence#VERSION_ENV}): then it is the operator's choice, not news. Each command calls it once, after
     * its refusals of the servers.
     */
    void noteClaim(UnifiedJedis target, String command) {
        String named = System.getenv(VersionFence.VERSION_ENV);
        if (!line.hasOption(WIRE_VERSION) && (named == null || named.isBlank())) {
            VersionFence.claimNote(target, wireVersion()).ifPresent(note -> note("emq-migrate " + command + ": " + note));
        }
    }

    /** The v2 target, fenced for writing: an absent {@code {emq}:version} is claimed. */
    Wire writableTarget(Endpoint endpoint, int concurrency) {
        return Wire.open(open(endpoint, Side.TARGET, concurrency), wireVersion());
    }

    /**
     * The v2 target for reading only: a foreign {@code {emq}:version} is refused, an absent one is
     * left absent (nothing is written).
     */
    Wire readableTarget(Endpoint endpoint) {
        UnifiedJedis client = open(endpoint, Side.TARGET, 8);
        VersionFence.verify(client, wireVersion());
        return Wire.unfenced(client);
    }

    /** Progress on standard error: a bar on a terminal, plain lines otherwise, none with --quiet or --no-progress. */
    Progress progress(String label, long total, String unit) {
        if (line.hasOption("quiet") || line.hasOption("no-progress")) {
            return Progress.start(label, total, unit, new PrintStream(OutputStream.nullOutputStream()), false,
                    Duration.ofHours(1));
        }
        return Progress.start(label, total, unit, err, environment.stderrTerminal());
    }

    /** Whether progress is shown at all. */
    boolean progressShown() {
        return !line.hasOption("quiet") && !line.hasOption("no-progress");
    }

    /** A side remark on standard error (what was written, what was resumed); none with --quiet. */
    void note(String text) {
        if (!line.hasOption("quiet")) {
            err.println(Printable.line(text));
        }
    }

    /**
     * Goes on with a destructive action only when confirmed: {@code --yes}, or a "yes" typed on a
     * terminal. Off a terminal without {@code --yes} it is refused, saying why.
     */
    void confirm(String action, String why) {
        if (line.hasOption("yes")) {
            return;
        }
        if (!environment.interactive()) {
            throw CliException.refused(action + " " + why + "; nothing was done. Not on a terminal, so add --yes to"
                    + " confirm it");
        }
        err.print(Printable.line(action + " " + why + ". Type yes to go on: "));
        err.flush();
        String answer;
        try {
            answer = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)).readLine();
        } catch (IOException e) {
            answer = null;
        }
        if (answer == null || !answer.trim().equalsIgnoreCase("yes")) {
            throw CliException.refused("not confirmed (the answer was not yes); nothing was done");
        }
    }

    @Override
    public void close() {
        for (AutoCloseable c : opened) {
            try {
                c.close();
            } catch (Exception ignored) {
                // closing a client that failed to connect has nothing left to release
            }
        }
    }

    /** A server that could not be used, with the endpoint and side it was opened for. */
    static final class ServerProblem extends RuntimeException {
        final Endpoint endpoint;
        final Side side;

        ServerProblem(Endpoint endpoint, Side side, JedisException cause) {
            super(cause);
            this.endpoint = endpoint;
            this.side = side;
        }
    }
}
