package io.emq.migrate.keyspace;

import java.util.Optional;

/** The total parse of a key: a per-queue key, a reserve key, or a typed rejection. */
public sealed interface ParsedKey permits ParsedKey.QueueKey, ParsedKey.ReserveKey, ParsedKey.Rejected {

    /** {@code emq:{queue}:<part>}. */
    record QueueKey(String queue, Part part) implements ParsedKey {
        public QueueKey {
            Names.queueNameProblem(queue).ifPresent(p -> {
                throw new IllegalArgumentException(p);
            });
        }

        public String render() {
            return "emq:{" + queue + "}:" + part.suffix();
        }
    }

    /** {@code {emq}:version|locks|bundle|migration:<q>}. */
    record ReserveKey(Reserve member, Optional<String> queue) implements ParsedKey {
        public ReserveKey {
            if ((member == Reserve.MIGRATION) != queue.isPresent()) {
                throw new IllegalArgumentException("only the migration member names a queue");
            }
            queue.flatMap(Names::queueNameProblem).ifPresent(p -> {
                throw new IllegalArgumentException(p);
            });
        }

        public String render() {
            return "{emq}:" + member.word() + queue.map(q -> ":" + q).orElse("");
        }
    }

    record Rejected(Rejection rejection, String reason) implements ParsedKey {
    }

    enum Reserve {
        VERSION("version"), LOCKS("locks"), BUNDLE("bundle"), MIGRATION("migration");

        private final String word;

        Reserve(String word) {
            this.word = word;
        }

        public String word() {
            return word;
        }
    }

    /** Why a key is not in the v2 grammar. */
    enum Rejection {
        EMPTY, BULL_KEY, UNBRACED_EMQ, FOREIGN, UNTERMINATED_HASHTAG, BAD_QUEUE_NAME, RESERVED_QUEUE_NAME,
        MISSING_SEPARATOR, UNKNOWN_TYPE, BAD_JOB_ID, UNKNOWN_JOB_SUBKEY, BAD_DEDUP_ID, BAD_GROUP_ID, BAD_NAME,
        UNKNOWN_RESERVE
    }
}
