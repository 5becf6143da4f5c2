package io.emq.migrate.cli;

import io.emq.migrate.migrate.Journal;
import io.emq.migrate.migrate.JournalHeader;
import io.emq.migrate.migrate.MigrationState;
import io.emq.migrate.wire.DedicatedConnection;
import io.emq.migrate.wire.Replies;
import io.emq.migrate.wire.Wire;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.commons.cli.Options;
import redis.clients.jedis.Connection;
import redis.clients.jedis.Protocol;

/**
 * {@code emq-migrate forget --target URI --queue Q}: deletes the journal of a retired queue, once nothing needs it
 * (drain validated the cutover): it holds the id mapping and what was expected of every job, about 390 bytes a job,
 * on the target for good otherwise. {@code lookup}, {@code verify} and {@code drain} then know the queue no more;
 * its v2 queue is untouched. Only a retired journal: before that it is what a re-run and {@code abandon} need. The
 * state is read again under {@code WATCH} and the journal unlinked in that transaction, so a journal written
 * meanwhile is kept.
 */
final class ForgetCommand implements Command {
    public void options(Options options) {
        options.addOption(Cli.valued("queue", "Q", "the v2 queue"));
    }

    public int run(Invocation in) {
        String queue = in.queue();
        Wire wire = in.writableTarget(in.require(Side.TARGET), 2);
        Journal journal = Migrated.journal(wire, queue);
        MigrationState state = journal.header().get(JournalHeader.STATE).orElseThrow();
        if (state != MigrationState.RETIRED) {
            throw CliException.refused("the migration of " + queue + " is " + state.wireName() + ", not retired: its journal is what a"
                    + " re-run and `abandon` need; forget it once `migrate` retired the queue");
        }
        in.confirm("forget " + queue, "deletes the journal " + journal.key() + ": `lookup`, `verify` and `drain` know the queue no"
                + " more (the v2 queue is untouched)");
        long fields = unlinkIfRetired(wire, journal.key()).orElseThrow(() -> CliException.refused("the journal " + journal.key()
                + " was written while it was being forgotten, or is no longer retired: it is kept; see `emq-migrate info`"));
        if (in.json()) {
            Map<String, Object> doc = new LinkedHashMap<>();
            doc.put("queue", queue);
            doc.put("forgotten", true);
            doc.put("journalFields", fields);
            Json.print(doc, in.out());
        } else {
            in.out().println("forgot the journal of " + queue + " (" + journal.key() + ", " + fields + " fields); the v2 queue is untouched");
        }
        return ExitCodes.OK;
    }

    /** Unlinks the journal in a transaction of a {@code WATCH} under which its state read retired; its field count, or empty when it did not. */
    private static Optional<Long> unlinkIfRetired(Wire wire, String journalKey) {
        byte[] key = journalKey.getBytes(StandardCharsets.UTF_8);
        try (Connection c = DedicatedConnection.to(wire.client(), key)) {
            c.sendCommand(Protocol.Command.WATCH, key);
            c.sendCommand(Protocol.Command.HGET, key, JournalHeader.STATE.name().getBytes(StandardCharsets.UTF_8));
            c.sendCommand(Protocol.Command.HLEN, key);
            List<Object> read = c.getMany(3);
            boolean retired = read.get(1) instanceof byte[] s && MigrationState.of(Replies.asText(s)).orElse(null) == MigrationState.RETIRED;
            if (!retired) {
                c.sendCommand(Protocol.Command.UNWATCH);
                c.getMany(1);
                return Optional.empty();
            }
            c.sendCommand(Protocol.Command.MULTI);
            c.sendCommand(Protocol.Command.UNLINK, key);
            c.sendCommand(Protocol.Command.EXEC);
            List<Object> done = c.getMany(3);
            return done.get(2) == null ? Optional.empty() : Optional.of((Long) read.get(2));
        }
    }
}
