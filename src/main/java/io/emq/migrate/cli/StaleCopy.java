package io.emq.migrate.cli;

import io.emq.migrate.migrate.Abandon;
import io.emq.migrate.migrate.Journal;
import io.emq.migrate.migrate.JournalHeader;
import io.emq.migrate.migrate.MigrationState;
import io.emq.migrate.migrate.SourceAddress;
import io.emq.migrate.wire.Endpoint;
import io.emq.migrate.wire.Wire;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import redis.clients.jedis.exceptions.JedisException;

/**
 * Whether the v1 queue of a migration that stopped before retiring it (planned, running, or verified after
 * {@code --no-retire}) was retired since by another migration, into another target or begun again after an abandon:
 * that migration's target holds the jobs, and this target's copy is stale: served, it would run every job a second
 * time. Asks the v1 server the journal recorded ({@link JournalHeader#SOURCE}): as named for the source
 * ({@code --source}, {@code EMQ_SOURCE} or the config file) when that is the same server, else as recorded, with the
 * source's credentials from the environment; reading only ({@link Abandon#retiredByAnother}); each server is opened
 * once a run.
 */
final class StaleCopy {
    /**
     * What the check found: the sentence a command refuses a stale copy with (empty when the copy is not stale), and why
     * the check could not be made (empty when it was).
     */
    record Check(Optional<String> refusal, Optional<String> unchecked) {
        static final Check CURRENT = new Check(Optional.empty(), Optional.empty());

        static Check unchecked(String why) {
            return new Check(Optional.empty(), Optional.of(why));
        }

        boolean stale() {
            return refusal.isPresent();
        }
    }

    private final Invocation in;
    private final Map<String, Wire> sources = new HashMap<>();
    /** Why each server that could not be asked could not: asked once a run. */
    private final Map<String, String> unreachable = new HashMap<>();

    StaleCopy(Invocation in) {
        this.in = in;
    }

    Check of(Journal journal) {
        JournalHeader header = journal.header();
        boolean beforeRetirement = header.get(JournalHeader.STATE)
                .map(s -> s == MigrationState.PLANNED || s == MigrationState.RUNNING || s == MigrationState.VERIFIED).orElse(false);
        if (!beforeRetirement || header.get(JournalHeader.V1_PREFIX).isEmpty()) {
            return Check.CURRENT; // retired or abandoned here, or never fenced: no v1 queue claimed
        }
        Optional<String> recorded = header.get(JournalHeader.SOURCE);
        // the server named for the source only when it is the one the journal recorded (it may carry the credentials):
        // another server's v1 queue of the same name tells nothing of this migration's
        Optional<Endpoint> given = in.endpoint(Side.SOURCE).filter(g -> recorded.isEmpty()
                || SourceAddress.of(g.describe()).sameServer(SourceAddress.of(recorded.get())));
        if (given.isEmpty() && recorded.isEmpty()) {
            return Check.unchecked("the journal names no v1 server; give --source");
        }
        String name = given.map(Endpoint::describe).orElse(recorded.get());
        if (unreachable.containsKey(name)) {
            return Check.unchecked(unreachable.get(name));
        }
        try {
            if (!sources.containsKey(name)) {
                sources.put(name, Wire.unfenced(in.open(given.orElseGet(() -> in.endpoint(Endpoint.uriOf(name), Side.SOURCE)),
                        Side.SOURCE, 1)));
            }
            return new Check(Abandon.retiredByAnother(sources.get(name), header, journal) ? Optional.of(refusal(header, journal.queue()))
                    : Optional.empty(), Optional.empty());
        } catch (Invocation.ServerProblem | JedisException | Endpoint.BadEndpointException | CliException e) {
            unreachable.put(name, "the v1 server " + name + " could not be asked (" + reason(e) + ")"
                    + (given.isPresent() ? "" : "; give --source (with its credentials)"));
            return Check.unchecked(unreachable.get(name));
        }
    }

    private static String refusal(JournalHeader header, String queue) {
        return "the v1 queue " + header.get(JournalHeader.V1_QUEUE).orElse("?") + " was retired by another migration (into"
                + " another target, or begun again after an abandon) since this one stopped: that migration's target holds its jobs,"
                + " and this copy in '" + queue + "' must not be served; `emq-migrate abandon --queue " + queue + "` deletes it (v1 is"
                + " left as it is)";
    }

    private static String reason(RuntimeException e) {
        Throwable cause = e instanceof Invocation.ServerProblem && e.getCause() != null ? e.getCause() : e;
        return cause.getMessage() == null ? cause.getClass().getSimpleName() : cause.getMessage();
    }
}
