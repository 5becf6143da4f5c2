package io.emq.migrate.migrate;

import java.util.Optional;
import redis.clients.jedis.exceptions.JedisDataException;

/**
 * Why a server refuses writes for a while, a state of the server rather than of the migration: once its
 * operator fixed it, a re-run resumes the step (nothing to repair). Each is told by the words that begin the
 * server's reply, wherever they come in the error (a command's reply, a script's error, which Redis 6.2 wraps
 * in its own, an {@code EXECABORT}'s reason).
 */
enum WritesRefused {
    OUT_OF_MEMORY("OOM command not allowed", MigrationRefused.Kind.OUT_OF_MEMORY, "for lack of memory",
            "free memory on that server or raise its maxmemory (until retirement the target holds the v2 copy beside the v1"
                    + " queue, on one server twice the queue)"),
    READ_ONLY("READONLY You can't write", MigrationRefused.Kind.READ_ONLY, "as a read-only replica",
            "point --source or --target at the master (after a failover, the new one)"),
    DISK_ERROR("MISCONF ", MigrationRefused.Kind.DISK_ERROR, "as it cannot save to disk (its last RDB save failed, and"
            + " stop-writes-on-bgsave-error is on)", "fix that server's disk or its save settings (its log says why the save failed)");

    private final String words;
    final MigrationRefused.Kind kind;
    /** Why, as the sentence "a server refused a write ..." goes on. */
    final String because;
    /** What the operator does before running migrate again. */
    final String remedy;

    WritesRefused(String words, MigrationRefused.Kind kind, String because, String remedy) {
        this.words = words;
        this.kind = kind;
        this.because = because;
        this.remedy = remedy;
    }

    /** A refusal found in an error: why, and the server's words from their start. */
    record Found(WritesRefused why, String said) {
    }

    /** The refusal {@code failure} (or a cause of it) is, if it is one. */
    static Optional<Found> in(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            String said = t.getMessage();
            if (t instanceof JedisDataException && said != null) {
                for (WritesRefused why : values()) {
                    int at = said.indexOf(why.words);
                    if (at >= 0) {
                        return Optional.of(new Found(why, said.substring(at)));
                    }
                }
            }
        }
        return Optional.empty();
    }
}
