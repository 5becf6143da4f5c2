package io.emq.migrate.migrate;

import io.emq.migrate.keyspace.BrandedId;
import io.emq.migrate.keyspace.JobSub;
import io.emq.migrate.keyspace.Keys;
import io.emq.migrate.v1.QueueRef;
import io.emq.migrate.wire.EmqWireException;
import io.emq.migrate.wire.Replies;
import io.emq.migrate.wire.Scan;
import io.emq.migrate.wire.Wire;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Undoes a migration that has not retired its source: deletes every row, set member, subkey,
 * dedup key and registration it wrote on the target, takes back its completed count, resumes
 * the v2 queue and the v1 queue as they were before the fence, and marks the journal
 * {@code abandoned} (the mapping and history are dropped; the high-water mark stays, so ids are
 * never reused by a later migration of the same queue). Before any write it takes the lease and, when the
 * migration got as far as pausing v1, the v1 queue ({@link SourceFence#claim}: its token on v1's meta, so a
 * migrator whose lease lapsed can no longer pause v1 or stamp the tombstone); a v1 queue that holds the
 * tombstone already (a run stopped inside retirement: v1's structures may be gone) is refused, nothing changed,
 * as a retired journal is. Only a pause v1 shows is undone (a token of this journal, a frozen add counter): a v1
 * queue without one (the run stopped before it paused v1, or {@code --source} names another server) is left as
 * it is, and told ({@code v1-not-paused-here}); so is one another journal's migration retired (into another
 * target: the tombstone with its token), whose copy here is the one to delete ({@code v1-retired-by-another}). A
 * pause it would give back is refused, nothing changed, once the v2 copy served some of the jobs ({@code drain
 * --resume}): v1 would run them again. A journal whose runs were refused before they wrote anything but it
 * ({@link UnwrittenJournal}) is deleted instead, under the lease: there is nothing to undo, and no id to keep.
 */
public final class Abandon {
    /** Rows deleted at once. */
    private static final int BATCH = 500;
    /**
     * The count of a journal left by runs refused before they wrote anything ({@link UnwrittenJournal}): deleted, with
     * the fields it held; nothing else was there to undo.
     */
    public static final String JOURNAL_DELETED = "journal-deleted";
    /** The journal's field that holds its uid, the first part of every token its leases fence v1 with ({@link SourceToken}). */
    /** The journal field that names the journal in the tokens its migrations leave on v1 ({@link SourceToken}). */
    static final String LOCK_UID = "lock_uid";

    private Abandon() {
    }

    public static Map<String, Long> run(Wire source, Wire target, String queue, Duration lease) {
        return run(source, target, queue, Set.of(), lease);
    }

    /**
     * As above, {@code alongside} naming the other queues abandoned with it in one command: a queue whose flows link it
     * with one of those is not refused for that link ({@link #refuseStrandedFlows}).
     */
    public static Map<String, Long> run(Wire source, Wire target, String queue, Set<String> alongside, Duration lease) {
        Journal journal = new Journal(target, queue);
        if (!journal.exists()) {
            throw nothingUnderWay(queue);
        }
        Optional<MigrationState> state = journal.header().get(JournalHeader.STATE);
        if (state.filter(s -> s == MigrationState.RETIRED).isPresent()) {
            throw new MigrationRefused(MigrationRefused.Kind.RETIRED, "the migration of " + queue + " retired its v1 source: it can no"
                    + " longer be abandoned (the v2 queue is now the only copy; see MIGRATION.md, rollback after retire)");
        }
        if (state.filter(s -> s == MigrationState.ABANDONED).isPresent()) {
            return Map.of("rows", 0L);
        }
        refuseStrandedFlows(target, journal, alongside);
        journal.lease().acquire(Migrator.owner(), lease.toMillis());
        if (UnwrittenJournal.wroteNothing(target, journal)) {
            return Map.of(JOURNAL_DELETED, UnwrittenJournal.delete(journal)); // the lease goes with it
        }
        if (state.isEmpty()) {
            journal.lease().release();
            throw nothingUnderWay(queue);
        }
        JournalHeader header = journal.header();
        Optional<QueueRef> paused = pausedSource(header);
        SourceFence.Claim found;
        try {
            found = paused.isPresent() ? SourceFence.claim(source, paused.get(), journal.sourceToken())
                    : retiredByAnother(source, header, journal) ? SourceFence.Claim.RETIRED_BY_ANOTHER : SourceFence.Claim.NOT_PAUSED_HERE;
        } catch (EmqWireException.State retired) {
            journal.lease().release();
            throw new MigrationRefused(MigrationRefused.Kind.RETIRED, "the v1 queue " + paused.get().display() + " holds the tombstone:"
                    + " a run of the migration of " + queue + " began retiring it and stopped before it finished, so v1's"
                    + " structures may be gone and the v2 queue is the only whole copy; abandon would delete it. Nothing"
                    + " was changed: run migrate again to finish the retirement");
        }
        Keys keys = Keys.queue(queue);
        Served served = served(target, keys, journal);
        if (found == SourceFence.Claim.PAUSED_HERE && served.any()) {
            journal.lease().release();
            throw new MigrationRefused(MigrationRefused.Kind.OUT_OF_LINE, "the v2 queue " + queue + " served jobs of this migration"
                    + " already (" + served.gone() + " of its rows gone, " + served.active() + " jobs active): abandon would give the"
                    + " v1 queue back and v1 would run them again. Nothing was changed: v1 still holds every job, paused; decide by"
                    + " hand which side keeps them (MIGRATION.md, rollback: a copy served before its migration finished)");
        }
        TargetFence.claim(target, keys, journal);
        Map<String, Long> counts = new LinkedHashMap<>();
        if (served.any() && found == SourceFence.Claim.NOT_PAUSED_HERE) {
            counts.put("served-on-v2", served.gone() + served.active()); // v1 serves them too: told, not undone
        }
        long[] rows = {0};
        java.util.SortedSet<BrandedId> lanes = journal.lanes();
        journal.ids().inBatches(BATCH, (id, v1) -> id, batch -> {
            rows[0] += batch.size();
            deleteRows(target, keys, journal, lanes, batch);
        });
        counts.put("rows", rows[0]);
        counts.put("dedup-keys", deleteDedupKeysPointingAt(target, keys, journal));
        TargetWrites w = new TargetWrites(target, keys, journal);
        Set<String> registered = new LinkedHashSet<>(); // a journal resumed from an earlier release may record one twice
        journal.entriesStartingWith(Journal.SCHEDULER_PREFIX,
                page -> page.forEach(record -> registered.add(SchedulerRecord.read(record.getKey(), record.getValue()).name())));
        for (String name : registered) {
            w.del(keys.repeat(name)).zrem(keys.base() + "repeat", name);
        }
        counts.put("schedulers", (long) registered.size());
        for (byte[] field : journal.fieldsStartingWith(CarrySettings.JOURNAL_PREFIX)) {
            w.hdel(keys.meta(), Replies.asText(field).substring(CarrySettings.JOURNAL_PREFIX.length()));
        }
        FinishedCounts.takeBack(target, keys, w);
        w.flush();
        if (!header.get(JournalHeader.V2_WAS_PAUSED).orElse(false)) {
            TargetFence.resume(target, keys, journal);
        }
        TargetFence.release(target, keys, journal);
        counts.put("v1-resumed", found == SourceFence.Claim.PAUSED_HERE ? resumeSource(source, paused.get(), journal, header) : 0L);
        if (found == SourceFence.Claim.RETIRED_BY_ANOTHER) {
            counts.put("v1-retired-by-another", 1L);
        } else if (paused.isPresent() && found == SourceFence.Claim.NOT_PAUSED_HERE) {
            counts.put("v1-not-paused-here", 1L);
        }
        for (String prefix : List.of(IdentityMap.V1, IdentityMap.V2, IdentityMap.V2_BLOCK, Expectations.PREFIX, StepHistory.PREFIX,
                Journal.SCHEDULER_PREFIX, Journal.DEDUP_PREFIX, Journal.LINKED_PREFIX,
                Journal.RECEIPT_PREFIX, CarrySettings.JOURNAL_PREFIX, DrainedJobs.PREFIX, JournalHeader.V1_WAS_PAUSED.name(),
                JournalHeader.V2_WAS_PAUSED.name(), JournalHeader.V1_PAUSED_AT.name(),
                JournalHeader.WINDOW_MS.name())) {
            journal.fieldsStartingWith(prefix, journal::forget);
        }
        journal.record(JournalHeader.STATE, MigrationState.ABANDONED);
        journal.lease().release();
        return counts;
    }

    private static MigrationRefused nothingUnderWay(String queue) {
        return new MigrationRefused(MigrationRefused.Kind.NO_JOURNAL, "queue " + queue + " has no migration under way on the target"
                + " (no journal, or its first step stopped before it paused either queue): nothing to abandon");
    }

    /**
     * Refuses, nothing changed, to abandon a queue whose flows link it with another queue's migration that stands (one
     * journal records the link to the other: {@link Journal#LINKED_PREFIX}): not abandoned, and not abandoned in the same
     * command ({@code alongside}) unless retired (its journal gone: {@code forget} deleted it after its retirement).
     * Abandoning one alone would leave the other's v2 jobs naming jobs v2 no longer holds: a parent waiting for children
     * that are gone (their v1 copies cannot release it: its v1 side retired, or paused for its own migration), or
     * children whose parent is.
     */
    private static void refuseStrandedFlows(Wire target, Journal journal, Set<String> alongside) {
        List<String> standing = FlowPartners.of(target, journal).entrySet().stream().filter(p -> p.getValue()
                        .map(s -> s != MigrationState.ABANDONED && (s == MigrationState.RETIRED || !alongside.contains(p.getKey())))
                        .orElse(true))
                .map(FlowPartners::described).toList();
        if (!standing.isEmpty()) {
            String queue = journal.queue();
            throw new MigrationRefused(MigrationRefused.Kind.FLOW_PARTNER, "the flows of " + queue + " link its jobs with those"
                    + " of " + String.join(", ", standing) + ", whose migration stands: abandoning " + queue + " would leave"
                    + " their v2 jobs naming jobs v2 no longer holds (a parent waiting for children that are gone, or children"
                    + " whose parent is). Nothing was changed: finish the migration of " + queue + " (`emq-migrate migrate`"
                    + " again), or, while none of them is retired, abandon them together in one command (a --queue for each)");
        }
    }

    /** The jobs of a migration the v2 queue served already: rows the journal expects that are gone (completed on v2), jobs active on v2. */
    private record Served(long gone, long active) {
        boolean any() {
            return gone > 0 || active > 0;
        }
    }

    /**
     * What the v2 queue served of the migration's jobs ({@link Served}): a {@code drain --resume} on the target, or its
     * consumers. Inside the pause window, abandon refuses then, nothing changed (v1, given back, would run them again);
     * with v1 not paused here (it serves every job anyway: a {@code --no-retire} copy) it goes on and counts them. Reads
     * every journaled row's existence.
     */
    private static Served served(Wire target, Keys keys, Journal journal) {
        long[] gone = {0};
        journal.ids().inBatches(BATCH, (id, v1) -> id, batch -> {
            List<byte[]> expected = journal.expectations().of(batch).keySet().stream().map(id -> Utf8.bytes(keys.job(id))).toList();
            gone[0] += expected.isEmpty() ? 0 : expected.size() - target.existing(List.of(expected)).get(0);
        });
        return new Served(gone[0], target.zcards(List.of(Utf8.bytes(keys.active()))).get(0));
    }

    /**
     * Whether another journal's migration retired the v1 queue of {@code journal}'s ({@code header}: its header, read
     * already), told by the journal's uid ({@code lock_uid}; no lease taken, reads only): that migration's target holds
     * its jobs, and the copy of this one is the one {@code abandon} deletes. A migration that never paused v1 claims nothing.
     */
    public static boolean retiredByAnother(Wire source, JournalHeader header, Journal journal) {
        Optional<String> uid = journal.text(LOCK_UID).filter(u -> !u.isEmpty());
        return uid.isPresent() && v1Queue(header).map(q -> SourceFence.holder(source, q).retiredByAnother(uid.get() + ":0")).orElse(false);
    }

    private static Optional<QueueRef> v1Queue(JournalHeader header) {
        return header.get(JournalHeader.V1_PREFIX).flatMap(prefix -> header.get(JournalHeader.V1_NAME).map(name -> QueueRef.of(prefix, name)));
    }

    /**
     * The v1 queue, when the journal says the migration got as far as pausing it (v1 is live until then, and a
     * migrator whose lease lapsed before cannot reach its pause: the journal's writes on the way are fenced).
     */
    private static Optional<QueueRef> pausedSource(JournalHeader header) {
        return header.get(JournalHeader.V1_PAUSED_AT).flatMap(at -> v1Queue(header));
    }

    /**
     * Undoes the migration's pause of a v1 queue that shows it ({@link SourceFence#claim}): the add counter gets
     * its value back, and v1 is resumed unless it was paused before the migration or when its pause window opened
     * (jobs waiting in paused go back to wait in order). The number of queues resumed: 1, or 0.
     */
    private static long resumeSource(Wire source, QueueRef q, Journal journal, JournalHeader header) {
        return SourceFence.giveBack(source, q, journal.sourceToken(), header.get(JournalHeader.V1_WAS_PAUSED).orElse(true)) ? 1 : 0;
    }

    private static void deleteRows(Wire target, Keys keys, Journal journal, java.util.Set<BrandedId> lanes,
                                   List<BrandedId> batch) {
        TargetWrites w = new TargetWrites(target, keys, journal);
        for (BrandedId id : batch) {
            w.del(keys.job(id));
            for (JobSub sub : JobSub.values()) {
                w.del(keys.job(id, sub));
            }
            List<String> sets = new java.util.ArrayList<>(List.of(keys.pending(), keys.schedule(), keys.dead(), keys.active()));
            lanes.forEach(lane -> sets.add(keys.lanePending(lane)));
            for (String set : sets) {
                w.zrem(set, id.toString());
            }
        }
        w.flush();
    }

    /** Dedup keys (and receipts) whose value is a branded id this migration mapped, a SCAN page at a time. */
    private static long deleteDedupKeysPointingAt(Wire target, Keys keys, Journal journal) {
        long[] deleted = {0};
        target.scan(Scan.startingWith(keys.base() + "de:"), found -> {
            List<String> values = target.mget(found);
            List<String> pointing = new ArrayList<>();
            List<String> ids = new ArrayList<>();
            for (int i = 0; i < found.size(); i++) {
                if (values.get(i) != null) {
                    pointing.add(found.get(i));
                    ids.add(values.get(i));
                }
            }
            List<Boolean> ours = journal.ids().mapsV2(ids);
            TargetWrites w = new TargetWrites(target, keys, journal);
            for (int i = 0; i < pointing.size(); i++) {
                if (ours.get(i)) {
                    w.del(pointing.get(i));
                    deleted[0]++;
                }
            }
            w.flush();
        });
        return deleted[0];
    }
}
