package io.emq.migrate.keyspace;

import java.util.Optional;

/** The closed set of job subkeys: {@code job:<id>:<sub>}. */
public enum JobSub {
    LOCK("lock"),
    LOGS("logs"),
    DEPENDENCIES("dependencies"),
    PROCESSED("processed"),
    FAILED("failed"),
    UNSUCCESSFUL("unsuccessful");

    private final String suffix;

    JobSub(String suffix) {
        this.suffix = suffix;
    }

    public String suffix() {
        return suffix;
    }

    public static Optional<JobSub> ofSuffix(String suffix) {
        for (JobSub s : values()) {
            if (s.suffix.equals(suffix)) {
                return Optional.of(s);
            }
        }
        return Optional.empty();
    }
}
