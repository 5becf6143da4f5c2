package io.emq.migrate.cli;

import io.emq.migrate.runtime.Conformance;
import io.emq.migrate.wire.Clients;
import io.emq.migrate.wire.EmqWireException;
import io.emq.migrate.wire.Endpoint;
import io.emq.migrate.wire.Wire;
import java.io.PrintStream;
import java.util.List;
import java.util.Optional;
import org.apache.commons.cli.CommandLine;
import org.apache.commons.cli.Options;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisException;

/**
 * {@code emq-migrate conformance --target URI [--queue PREFIX] [--wire-version V]}: runs the v2
 * wire scenarios against a server, one {@code CONF} line each and a {@code CONFORMANCE n/m} total.
 * Exit 0 only when every scenario passed.
 */
public final class ConformanceCommand {

    private ConformanceCommand() {
    }

    public static int run(String[] args, PrintStream out, PrintStream err) {
        Options options = new Options()
                .addOption(null, "target", true, "the v2 server: redis://host:port, rediss://…, or cluster seeds h1:p1,h2:p2")
                .addOption(null, "queue", true, "prefix of the scenario sub-queues (default: conformance)")
                .addOption(WireVersionOption.option());
        Optional<CommandLine> parsed = CommandLines.parse("conformance", "--target URI", options, args, out, err);
        if (parsed.isEmpty()) {
            return CommandLines.helpOrUsage(args);
        }
        CommandLine line = parsed.get();
        if (!line.hasOption("target")) {
            err.println("emq-migrate conformance: --target URI is required");
            return ExitCodes.USAGE;
        }
        Endpoint endpoint;
        try {
            endpoint = Endpoint.parse(line.getOptionValue("target"), "TARGET");
        } catch (Endpoint.BadEndpointException e) {
            err.println("emq-migrate conformance: " + e.getMessage());
            return ExitCodes.USAGE;
        }
        String version = WireVersionOption.of(line);
        String prefix = line.getOptionValue("queue", "conformance");
        try (UnifiedJedis client = Clients.open(endpoint, 4)) {
            Wire wire = Wire.open(client, version);
            List<Conformance.Verdict> verdicts = new Conformance(wire, prefix).run(out);
            return verdicts.stream().allMatch(Conformance.Verdict::ok) ? ExitCodes.OK : ExitCodes.REFUSED;
        } catch (EmqWireException.VersionFence e) {
            err.println("emq-migrate conformance: " + e.getMessage());
            return ExitCodes.REFUSED;
        } catch (IllegalArgumentException e) {
            err.println("emq-migrate conformance: " + e.getMessage());
            return ExitCodes.USAGE;
        } catch (JedisException e) {
            err.println("emq-migrate conformance: cannot use " + endpoint.describe() + ": " + e.getMessage());
            return ExitCodes.USAGE;
        }
    }
}
