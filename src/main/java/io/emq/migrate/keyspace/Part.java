package io.emq.migrate.keyspace;

import java.util.Optional;

/** What follows {@code emq:{q}:} in a per-queue key. Constructors accept only what the grammar parses. */
public sealed interface Part {
    /** The suffix text of this part, as it appears after {@code emq:{q}:}. */
    String suffix();

    /** A short name of the part's kind, as reported by the CLI. */
    String type();

    record Structure(StructureType structure) implements Part {
        public String suffix() {
            return structure.suffix();
        }

        public String type() {
            return structure.suffix();
        }
    }

    record Job(BrandedId id, Optional<JobSub> sub) implements Part {
        public Job {
            if (sub == null) {
                throw new IllegalArgumentException("sub must be present or empty");
            }
        }

        public Job(BrandedId id) {
            this(id, Optional.empty());
        }

        public String suffix() {
            return "job:" + id + sub.map(s -> ":" + s.suffix()).orElse("");
        }

        public String type() {
            return sub.map(s -> "job:" + s.suffix()).orElse("job");
        }
    }

    record Dedup(String dedupId) implements Part {
        public Dedup {
            if (!Names.isDedupId(dedupId)) {
                throw new IllegalArgumentException("dedup id must match [A-Za-z0-9._-]{1,255}: " + Names.printable(dedupId));
            }
        }

        public String suffix() {
            return "de:" + dedupId;
        }

        public String type() {
            return "de";
        }
    }

    record Metrics(boolean failed, boolean data) implements Part {
        public String suffix() {
            return "metrics:" + (failed ? "failed" : "completed") + (data ? ":data" : "");
        }

        public String type() {
            return suffix();
        }
    }

    record GroupPending(BrandedId group) implements Part {
        public String suffix() {
            return "g:" + group + ":pending";
        }

        public String type() {
            return "g:pending";
        }
    }

    record Repeat(String name) implements Part {
        public Repeat {
            if (!Names.isDedupId(name)) {
                throw new IllegalArgumentException("repeat name must match [A-Za-z0-9._-]{1,255}: " + Names.printable(name));
            }
        }

        public String suffix() {
            return "repeat:" + name;
        }

        public String type() {
            return "repeat:name";
        }
    }

    record Stream(String name, boolean archived) implements Part {
        public Stream {
            if (!Names.isDedupId(name)) {
                throw new IllegalArgumentException("stream name must match [A-Za-z0-9._-]{1,255}: " + Names.printable(name));
            }
        }

        public String suffix() {
            return "stream:" + name + (archived ? ":archived" : "");
        }

        public String type() {
            return archived ? "stream:archived" : "stream";
        }
    }
}
