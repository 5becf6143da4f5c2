package io.emq.migrate.cli;

import io.emq.migrate.migrate.Journals;
import io.emq.migrate.migrate.MigrationOptions;
import io.emq.migrate.wire.Endpoint;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.commons.cli.Options;

/** {@code emq-migrate repair --target URI --queue Q}: clear failed steps and realign checksums, after the cause is fixed. */
final class RepairCommand implements Command {
    public void options(Options options) {
        options.addOption(Cli.valued("queue", "Q", "the v2 queue to repair"));
    }

    public int run(Invocation in) {
        String queue = in.queue();
        Endpoint target = in.require(Side.TARGET);
        Migrated.withHistory(in.readableTarget(target), queue);
        List<String> changed = Journals.repair(in.writableTarget(target, 8), queue, MigrationOptions.DEFAULT_LEASE);
        if (in.json()) {
            Map<String, Object> doc = new LinkedHashMap<>();
            doc.put("queue", queue);
            doc.put("repaired", changed);
            Json.print(doc, in.out());
        } else {
            changed.forEach(in.out()::println);
            in.out().println(changed.isEmpty() ? "nothing to repair in " + queue
                    : "repaired " + changed.size() + (changed.size() == 1 ? " step" : " steps") + " of " + queue + "; run migrate again");
        }
        return ExitCodes.OK;
    }
}
