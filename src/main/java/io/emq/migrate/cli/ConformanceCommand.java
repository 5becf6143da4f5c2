package io.emq.migrate.cli;

import io.emq.migrate.runtime.Conformance;
import io.emq.migrate.wire.Endpoint;
import io.emq.migrate.wire.ServerState;
import io.emq.migrate.wire.Wire;
import java.io.OutputStream;
import java.io.PrintStream;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.commons.cli.Options;
import redis.clients.jedis.UnifiedJedis;

/**
 * {@code emq-migrate conformance --target URI [--queue PREFIX] [--wire-version V]}: runs the v2
 * wire scenarios against a server, one {@code CONF} line each and a {@code CONFORMANCE n/m} total.
 * Exit 0 only when every scenario passed.
 */
final class ConformanceCommand implements Command {
    public void options(Options options) {
        options.addOption(Cli.valued("queue", "PREFIX", "prefix of the scenario sub-queues (default: conformance)"));
    }

    public int run(Invocation in) {
        String version = in.wireVersion();
        String prefix = in.value("queue", "conformance");
        Conformance.prefixProblem(prefix).ifPresent(problem -> {
            throw CliException.usage("--queue: " + problem);
        });
        Endpoint target = in.require(Side.TARGET);
        UnifiedJedis client = in.open(target, Side.TARGET, 4);
        ServerState.of(client, target.clientConfig()).replicaOf().ifPresent(master -> {
            throw CliException.refused(target.describe() + " is a read-only replica of " + master + ": the scenarios write; point"
                    + " --target at the master");
        });
        Wire wire = Wire.open(client, version);
        PrintStream lines = in.json() ? new PrintStream(OutputStream.nullOutputStream()) : in.out();
        List<Conformance.Verdict> verdicts = new Conformance(wire, prefix).run(lines);
        boolean passed = verdicts.stream().allMatch(Conformance.Verdict::ok);
        if (in.json()) {
            Map<String, Object> doc = new LinkedHashMap<>();
            doc.put("wireVersion", version);
            doc.put("passed", passed);
            doc.put("scenarios", verdicts.stream().map(v -> {
                Map<String, Object> m = new LinkedHashMap<>();
                m.put("name", v.name());
                m.put("ok", v.ok());
                m.put("why", v.why());
                return m;
            }).toList());
            Json.print(doc, in.out());
        }
        return passed ? ExitCodes.OK : ExitCodes.REFUSED;
    }
}
