package io.emq.migrate.drain;

import io.emq.migrate.migrate.Expectation;
import io.emq.migrate.runtime.ConsumerListener;
import io.emq.migrate.runtime.Delivery;
import io.emq.migrate.runtime.OutboxSweep;
import io.emq.migrate.wire.EmqWireException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * Records what a drain did to each migrated job: its first claim (worker, claim sequence, attempts,
 * whether the payload carried the journaled digest), how often it was claimed, completed and had a
 * settlement refused. Jobs the journal does not know are fresh v2 work, only counted. Called from
 * the consumer's worker threads; forwards every event to an observer (progress on a terminal).
 */
final class DrainLedger implements ConsumerListener {

    /** The first delivery of a migrated job. */
    record FirstClaim(int worker, String lane, long seq, long attempts, Optional<String> digestProblem) {
    }

    /** Everything recorded about one migrated job. */
    static final class Entry {
        FirstClaim first;
        int claims;
        int completions;
        int refused;
    }

    private final MigratedJobs migrated;
    private final ConsumerListener observer;
    private final Map<String, Entry> entries = new ConcurrentHashMap<>();
    final LongAdder freshClaimed = new LongAdder();
    final LongAdder freshCompleted = new LongAdder();

    DrainLedger(MigratedJobs migrated, ConsumerListener observer) {
        this.migrated = migrated;
        this.observer = observer;
    }

    /** Called by the drain's handler before the work runs. */
    void claimed(Delivery job) {
        Optional<Expectation> expected = migrated.expected(job.id());
        if (expected.isEmpty()) {
            freshClaimed.increment();
            return;
        }
        Entry e = entries.computeIfAbsent(job.id(), id -> new Entry());
        synchronized (e) {
            e.claims++;
            if (e.first == null) {
                e.first = new FirstClaim(job.worker(), job.lane(), job.claimSeq(), job.attempts(),
                        migrated.digestProblem(expected.get(), job.payload()));
            }
        }
    }

    Map<String, Entry> entries() {
        return entries;
    }

    /** The migrated jobs completed once, their first claim as the journal expects it (v1 data, attempts one above v1's). */
    List<String> servedAsExpected() {
        List<String> out = new ArrayList<>();
        entries.forEach((id, e) -> {
            synchronized (e) {
                if (e.completions == 1 && e.first.digestProblem().isEmpty()
                        && e.first.attempts() == migrated.expected(id).orElseThrow().attempts() + 1) {
                    out.add(id);
                }
            }
        });
        return out;
    }

    @Override
    public void completed(Delivery job) {
        Entry e = entries.get(job.id());
        if (e == null) {
            freshCompleted.increment();
        } else {
            synchronized (e) {
                e.completions++;
            }
        }
        observer.completed(job);
    }

    @Override
    public void staleRefused(Delivery job, EmqWireException.Stale refusal) {
        refused(job);
        observer.staleRefused(job, refusal);
    }

    @Override
    public void gone(Delivery job) {
        refused(job);
        observer.gone(job);
    }

    private void refused(Delivery job) {
        Entry e = entries.get(job.id());
        if (e != null) {
            synchronized (e) {
                e.refused++;
            }
        }
    }

    @Override
    public void retried(Delivery job, Throwable cause) {
        observer.retried(job, cause);
    }

    @Override
    public void dead(Delivery job, Throwable cause) {
        observer.dead(job, cause);
    }

    @Override
    public void leaseLost(String id, long token) {
        observer.leaseLost(id, token);
    }

    @Override
    public void outboxDelivered(OutboxSweep sweep) {
        observer.outboxDelivered(sweep);
    }

    @Override
    public void error(Throwable error) {
        observer.error(error);
    }
}
