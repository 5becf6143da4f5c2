package io.emq.migrate.v1;

import java.util.List;

/** A refusal: its kind, the reason in words, and the v1 ids (or scheduler ids) it holds back. */
public record Refusal(RefusalKind kind, String reason, List<Bytes> jobs) {
    public Refusal {
        jobs = List.copyOf(jobs);
    }
}
