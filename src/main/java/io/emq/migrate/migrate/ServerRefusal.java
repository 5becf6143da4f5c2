package io.emq.migrate.migrate;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import redis.clients.jedis.exceptions.JedisDataException;

/**
 * Why a server refuses a step's commands for a while, a state of the server rather than of the migration: once
 * its operator fixed it (or it passed), a re-run resumes the step (nothing to repair). Each is told by the word
 * that begins the server's reply, wherever it comes in the error (a command's reply, a script's error, which
 * Redis 6.2 wraps in its own, an {@code EXECABORT}'s reason), as a word of its own (not the end of a longer one).
 */
public enum ServerRefusal {
    OUT_OF_MEMORY("OOM command not allowed", MigrationRefused.Kind.OUT_OF_MEMORY, "a server refused a write for lack of memory",
            "free memory on that server or raise its maxmemory"),
    READ_ONLY("READONLY You can't write", MigrationRefused.Kind.READ_ONLY, "a server refused a write as a read-only replica",
            "point --source or --target at the master (after a failover, the new one)"),
    DISK_ERROR("MISCONF ", MigrationRefused.Kind.DISK_ERROR, "a server refused a write as it cannot save to disk (its last RDB"
            + " save failed, and stop-writes-on-bgsave-error is on)", "fix that server's disk or its save settings (its log says why the save failed)"),
    LOADING("LOADING ", MigrationRefused.Kind.LOADING, "a server was loading its data set, just restarted", "let it finish loading"
            + " (INFO persistence shows loading:0); if it restarted during the migration, check it kept its data (`emq-migrate info`)"),
    /**
     * A cluster node refused a command as the cluster is down: a master serving a slot failed and no replica was
     * promoted yet (the cluster's node timeout, then its election), or a slot has no master at all.
     */
    CLUSTER_DOWN("CLUSTERDOWN ", MigrationRefused.Kind.CLUSTER_DOWN, "the cluster refused the command as it is down (a master"
            + " failed and no replica was promoted in its place yet, or a slot has no master)", "let the cluster promote a"
            + " replica of the failed master, or bring the master back (CLUSTER INFO on any node shows cluster_state:ok)"),
    /**
     * A cluster master sent a command on the queue's keys to another node, or asked for it again later: their slot is
     * migrating between masters (a reshard), or moved (the reshard ended, or a replica took over). The step's reads and
     * writes go to one node in pipelines and transactions, which do not follow the slot; once it settled, a re-run reads
     * it where it is.
     */
    SLOT_ASKED("ASK ", MigrationRefused.Kind.SLOT_MOVING, "the cluster's master sent a command on the queue's keys elsewhere,"
            + " as their slot is being resharded", slotRemedy()),
    SLOT_BUSY("TRYAGAIN ", MigrationRefused.Kind.SLOT_MOVING, "the cluster's master could not take a command on several of the"
            + " queue's keys at once, as their slot is being resharded", slotRemedy()),
    SLOT_MOVED("MOVED ", MigrationRefused.Kind.SLOT_MOVING, "the node the step read or wrote no longer serves the queue's keys:"
            + " their slot moved to another master (a reshard ended, or a failover)", "nothing to wait for: its new master serves it");

    private final String words;
    final MigrationRefused.Kind kind;
    /** What the server did, as the sentence "… stopped: " goes on. */
    final String what;
    /** What the operator does before running migrate again. */
    final String remedy;

    ServerRefusal(String words, MigrationRefused.Kind kind, String what, String remedy) {
        this.words = words;
        this.kind = kind;
        this.what = what;
        this.remedy = remedy;
    }

    /** What {@link #OUT_OF_MEMORY}'s remedy adds but for the source alone: where the room goes. */
    private static final String V2_COPY = " (until retirement the target holds the v2 copy beside the v1 queue, on one server"
            + " twice the queue)";

    /**
     * The server that refused, as a message names it ({@code the source redis://10.0.0.5:6379}), and whether it is the
     * source alone (a server apart from the target: the migration writes only its pause and tombstone there).
     */
    record Refuser(String name, boolean sourceAlone) {
    }

    /** What the server did, naming it when {@code by} is known. */
    String what(Optional<Refuser> by) {
        return by.map(r -> what.replaceFirst("^a server", r.name())).orElse(what);
    }

    /** What the operator does, about the server named when {@code by} is known: for lack of memory, where the room goes but on the source alone. */
    String remedy(Optional<Refuser> by) {
        String named = by.map(r -> remedy.replace("that server", r.name())).orElse(remedy);
        return this == OUT_OF_MEMORY && !by.map(Refuser::sourceAlone).orElse(false) ? named + V2_COPY : named;
    }

    private static String slotRemedy() {
        return "let the reshard of that slot end (or end it, CLUSTER SETSLOT <slot> STABLE on both masters): don't reshard a"
                + " queue's slot during its migration";
    }

    /**
     * What a command stopped by {@code failure} outside any step says (a write before the first step: the v2 fence, a
     * journal's lease), when it is a refusal of the server's: what the server did, in its words, and what to do. The
     * command wrote nothing the refused write was part of.
     */
    public static Optional<String> explained(Throwable failure) {
        return in(failure).map(found -> found.why.what + " (" + found.said + "); " + found.why.remedy(Optional.empty()) + ", then run the same"
                + " command again");
    }

    /** A refusal found in an error: why, and the server's words from their start. */
    record Found(ServerRefusal why, String said) {
    }

    /** The refusal {@code failure} (or a cause of it) is, if it is one. */
    static Optional<Found> in(Throwable failure) {
        for (String said : repliesIn(failure)) {
            for (ServerRefusal why : values()) {
                int at = said.indexOf(why.words);
                while (at > 0 && Character.isLetterOrDigit(said.charAt(at - 1))) {
                    at = said.indexOf(why.words, at + 1);
                }
                if (at >= 0) {
                    return Optional.of(new Found(why, said.substring(at)));
                }
            }
        }
        return Optional.empty();
    }

    /** What the server's error replies carried by {@code failure} (it, or a cause of it) said, outermost first. */
    static List<String> repliesIn(Throwable failure) {
        List<String> said = new ArrayList<>();
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof JedisDataException && t.getMessage() != null) {
                said.add(t.getMessage());
            }
        }
        return said;
    }
}
