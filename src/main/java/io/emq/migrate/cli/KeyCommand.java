package io.emq.migrate.cli;

import io.emq.migrate.keyspace.KeyGrammar;
import io.emq.migrate.keyspace.Names;
import io.emq.migrate.keyspace.ParsedKey;
import io.emq.migrate.keyspace.Part;
import io.emq.migrate.keyspace.Slots;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.commons.cli.Options;

/** {@code emq-migrate key [--json] KEY...}: what each key parses as under the v2 grammar. */
final class KeyCommand implements Command {
    public void options(Options options) {
    }

    public int run(Invocation in) {
        List<String> keys = in.arguments();
        if (keys.isEmpty()) {
            throw CliException.usage("give at least one key");
        }
        List<Map<String, Object>> rows = new ArrayList<>();
        for (String key : keys) {
            rows.add(describe(key));
        }
        if (in.json()) {
            Json.print(rows, in.out());
        } else {
            Table table = new Table("KEY", "KIND", "QUEUE", "TYPE", "SLOT", "DETAIL");
            for (Map<String, Object> r : rows) {
                Object detail = r.get("reason") != null ? r.get("reason")
                        : r.get("id") != null ? "id " + r.get("id") + " minted " + r.get("minted") : null;
                table.row(Names.printable(key(r)), r.get("kind"), r.get("queue"), r.get("type"), r.get("slot"), detail);
            }
            table.print(in.out());
        }
        boolean anyRejected = rows.stream().anyMatch(r -> "rejected".equals(r.get("kind")));
        return anyRejected ? ExitCodes.REJECTED : ExitCodes.OK;
    }

    private static String key(Map<String, Object> row) {
        return (String) row.get("key");
    }

    static Map<String, Object> describe(String key) {
        Map<String, Object> row = new LinkedHashMap<>();
        row.put("key", key);
        ParsedKey parsed = KeyGrammar.parse(key);
        String kind;
        String queue = null;
        String type = null;
        String reason = null;
        if (parsed instanceof ParsedKey.QueueKey q) {
            kind = "queue";
            queue = q.queue();
            type = q.part().type();
            if (q.part() instanceof Part.Job job) {
                row.put("id", job.id().toString());
                row.put("minted", job.id().mintTime().toString());
            }
        } else if (parsed instanceof ParsedKey.ReserveKey r) {
            kind = "reserve";
            queue = r.queue().orElse(null);
            type = r.member().word();
        } else {
            ParsedKey.Rejected rejected = (ParsedKey.Rejected) parsed;
            kind = "rejected";
            row.put("rejection", rejected.rejection().name().toLowerCase().replace('_', '-'));
            reason = rejected.reason();
        }
        row.put("kind", kind);
        row.put("queue", queue);
        row.put("type", type);
        row.put("slot", Slots.slot(key));
        row.put("reason", reason);
        return row;
    }
}
