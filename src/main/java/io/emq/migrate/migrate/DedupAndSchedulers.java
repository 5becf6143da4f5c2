package io.emq.migrate.migrate;

import io.emq.migrate.payload.Envelope;
import io.emq.migrate.payload.PayloadPolicy;
import io.emq.migrate.keyspace.BrandedId;
import io.emq.migrate.keyspace.Names;
import io.emq.migrate.v1.Bytes;
import io.emq.migrate.v1.DedupEntry;
import io.emq.migrate.v1.JobFacts;
import io.emq.migrate.v1.QueueSnapshot;
import io.emq.migrate.v1.Scheduler;
import io.emq.migrate.v1.plan.Planner;
import io.emq.migrate.wire.Replies;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Dedup keys {@code de:<did>} point at the branded id with their PTTL re-applied; custom v1 ids
 * that satisfy the dedup-id rule become receipts {@code de:<v1 id>} (never over a real dedup key);
 * {@code every} schedulers become v2 registrations whose next run is the occurrence after the
 * iteration v1 already created (that iteration migrated as an ordinary job); each dedup key, receipt and
 * registration recorded in the journal before it is written ({@code dedup:}, {@code receipt:},
 * {@code scheduler:}), so {@code abandon} finds every registration a crash left behind, and a later call
 * drops from v2 those v1 dropped since (a dedup key deleted when its job finished, the receipt of a job
 * finished or removed, a scheduler removed): when the journal counts more of them ({@code carried_records})
 * than v1 holds now. The v1 queue settings the v2 gates
 * read (concurrency, rate limit) go into the v2 {@code meta} ({@link CarrySettings}). Composed by the
 * V70 step and by the re-sync, from the source as last read.
 */
final class DedupAndSchedulers {
    private static final List<byte[]> TEMPLATE_FIELDS = List.of(Utf8.bytes("name"), Utf8.bytes("data"), Utf8.bytes("opts"));

    static final List<String> CHECKPOINTS = List.of("dedup keys written", "receipts written", "scheduler recorded",
            "scheduler written", "schedulers written", "dropped records deleted");
    /** Receipts written at once; dedup keys too. */
    private static final int RECEIPTS = 1000;

    private DedupAndSchedulers() {
    }

    /** The dedup keys, receipts and schedulers of the source as last read (a re-sync calls it again). */
    static Map<String, Long> absorb(QueueMigration m) {
        QueueSnapshot snap = m.snapshot();
        Map<String, Long> counts = new LinkedHashMap<>();
        Set<String> carried = new HashSet<>();
        counts.put("dedup-keys", dedupKeys(m, snap.dedupKeys(), counts, carried));
        m.checkpoints.hit("dedup keys written");
        counts.put("receipts", receipts(m, Migratable.select(List.of(snap.jobsInRankOrder()),
                j -> Migratable.getsIdentity(j, m.options) && Planner.isCustomId(j.id())), carried));
        m.checkpoints.hit("receipts written");
        Set<String> names = new HashSet<>();
        counts.put("schedulers", schedulers(m, snap, carried, names));
        m.checkpoints.hit("schedulers written");
        long dropped = dropDropped(m, carried, names);
        if (dropped > 0) {
            counts.put("dropped-records", dropped);
        }
        counts.put("settings", CarrySettings.write(m));
        return counts;
    }

    /** Writes the dedup keys whose job gets a row, each journaled first; adds their journal fields to {@code carried}. */
    private static long dedupKeys(QueueMigration m, List<DedupEntry> entries, Map<String, Long> counts, Set<String> carried) {
        List<DedupEntry> valid = new ArrayList<>();
        for (DedupEntry e : entries) {
            if (e.dedupId().isUtf8() && Names.isDedupId(e.dedupId().utf8())) {
                valid.add(e);
            } else {
                counts.merge("dedup-invalid-id", 1L, Long::sum);
            }
        }
        long[] written = {0};
        Migratable.inBatches(valid, RECEIPTS, batch -> {
            List<Optional<BrandedId>> ids = m.journal.ids().lookupV1(batch.stream().map(e -> e.jobId().raw()).toList());
            Map<String, String> records = new LinkedHashMap<>();
            TargetWrites w = new TargetWrites(m);
            for (int i = 0; i < batch.size(); i++) {
                if (ids.get(i).isEmpty()) {
                    counts.merge("dedup-finished-job", 1L, Long::sum);
                    continue;
                }
                DedupEntry e = batch.get(i);
                String branded = ids.get(i).get().toString();
                records.put(Journal.DEDUP_PREFIX + e.dedupId().utf8(), branded);
                w.set(m.keys.dedup(e.dedupId().utf8()), Utf8.bytes(branded), e.pttlMs(), false);
            }
            recordThenWrite(m, records, w, carried);
            written[0] += records.size();
        });
        return written[0];
    }

    /** Journals these records, then sends the v2 writes they stand for, then counts them as what v1 holds now ({@code carried}). */
    private static void recordThenWrite(QueueMigration m, Map<String, String> records, TargetWrites w, Set<String> carried) {
        if (!records.isEmpty()) {
            m.journal.set(records);
        }
        w.flush();
        carried.addAll(records.keySet());
    }

    /**
     * Drops from v2 what the journal records as carried ({@code dedup:}, {@code receipt:}, {@code scheduler:}) but is
     * not in {@code carried} (what v1 holds now): each dedup key or receipt only while it holds the branded id it was
     * written with (a receipt never written, a real dedup key holding its name, is kept so);
     * each registration unless a scheduler v1 holds now has its name ({@code names}); then forgets the record.
     * Looked for only when the journal counts more records than {@code carried}. Returns how many were dropped.
     */
    private static long dropDropped(QueueMigration m, Set<String> carried, Set<String> names) {
        long journaled = m.journal.text(Journal.CARRIED_COUNT).map(Long::parseLong).orElse(0L);
        if (journaled <= carried.size()) {
            return 0;
        }
        long[] dropped = {0};
        for (String prefix : List.of(Journal.DEDUP_PREFIX, Journal.RECEIPT_PREFIX, Journal.SCHEDULER_PREFIX)) {
            m.journal.entriesStartingWith(prefix, page -> {
                List<byte[]> gone = new ArrayList<>();
                TargetWrites w = new TargetWrites(m);
                for (Map.Entry<byte[], byte[]> record : page) {
                    String field = Replies.asText(record.getKey());
                    if (carried.contains(field)) {
                        continue;
                    }
                    String value = Replies.asText(record.getValue());
                    if (!prefix.equals(Journal.SCHEDULER_PREFIX)) {
                        w.delEq(m.keys.dedup(field.substring(prefix.length())), record.getValue());
                    } else if (!names.contains(value)) {
                        w.del(m.keys.repeat(value)).zrem(m.keys.base() + "repeat", value);
                    }
                    gone.add(record.getKey());
                }
                w.flush();
                m.checkpoints.hit("dropped records deleted");
                if (!gone.isEmpty()) {
                    m.journal.forget(gone);
                    dropped[0] += gone.size();
                }
            });
        }
        return dropped[0];
    }

    /** Receipts for the jobs with a custom id that satisfies the dedup-id rule, each journaled first; adds their records to {@code carried}. */
    private static long receipts(QueueMigration m, Iterable<JobFacts> custom, Set<String> carried) {
        return Migratable.inBatches(custom, RECEIPTS, batch -> {
            List<Optional<BrandedId>> ids = m.journal.ids().lookupV1(batch.stream().map(j -> j.id().raw()).toList());
            Map<String, String> records = new LinkedHashMap<>();
            TargetWrites w = new TargetWrites(m);
            for (int i = 0; i < batch.size(); i++) {
                if (ids.get(i).isPresent()) { // none yet: added after the ids were minted (v1 live), left to the re-sync
                    String name = batch.get(i).id().utf8();
                    records.put(Journal.RECEIPT_PREFIX + name, ids.get(i).get().toString());
                    w.set(m.keys.dedup(name), Utf8.bytes(ids.get(i).get().toString()), 0, true);
                }
            }
            recordThenWrite(m, records, w, carried);
        });
    }

    /**
     * The {@code every} schedulers as v2 registrations, each next run after the last iteration v1 created
     * (the jobs are walked for those iterations only when there is such a scheduler).
     */
    private static long schedulers(QueueMigration m, QueueSnapshot snap, Set<String> carried, Set<String> names) {
        List<Scheduler> every = snap.schedulers().stream().filter(s -> s.kind() == Scheduler.Kind.EVERY).toList();
        Map<Bytes, Long> lastIteration = new HashMap<>();
        for (JobFacts j : every.isEmpty() ? List.<JobFacts>of() : snap.jobsInRankOrder()) {
            if (j.repeatJobKey() != null) {
                iterationMs(j).ifPresent(ms -> lastIteration.merge(j.repeatJobKey(), ms, Math::max));
            }
        }
        long written = 0;
        for (Scheduler s : every) {
            String name = v2Name(s.id());
            byte[] template = template(m, s, m.sourceWire.hmget(m.source.key("repeat:").concat(s.id()).raw(), TEMPLATE_FIELDS));
            long next = lastIteration.containsKey(s.id()) ? lastIteration.get(s.id()) + s.everyMs()
                    : s.nextRunMs() >= 0 ? s.nextRunMs() : System.currentTimeMillis();
            String key = m.keys.repeat(name);
            String record = Journal.SCHEDULER_PREFIX + s.id().display();
            m.journal.set(Map.of(record, name));
            carried.add(record);
            names.add(name);
            m.checkpoints.hit("scheduler recorded");
            new TargetWrites(m).del(key)
                    .hset(key, Map.of(Utf8.bytes("every_ms"), Utf8.bytes(Long.toString(s.everyMs())), Utf8.bytes("template"), template))
                    .zadd(m.keys.base() + "repeat", next, name)
                    .flush();
            m.checkpoints.hit("scheduler written");
            written++;
        }
        return written;
    }

    /** The v2 registration name: the scheduler id with every character outside [A-Za-z0-9._-] replaced by '_'. */
    static String v2Name(Bytes sid) {
        String text = sid.display().replaceAll("[^A-Za-z0-9._-]", "_");
        return text.isEmpty() ? "_" : text.substring(0, Math.min(255, text.length()));
    }

    /** {@code repeat:<sid>:<ms>}: the ms of an iteration job, when its id has that shape. */
    static Optional<Long> iterationMs(JobFacts j) {
        String id = j.id().display();
        int colon = id.lastIndexOf(':');
        if (!id.startsWith("repeat:") || colon < 0) {
            return Optional.empty();
        }
        try {
            return Optional.of(Long.parseLong(id.substring(colon + 1)));
        } catch (NumberFormatException e) {
            return Optional.empty();
        }
    }

    /** The v2 template of a scheduler from its v1 record's {@link #TEMPLATE_FIELDS} (name, data, opts; null where absent). */
    private static byte[] template(QueueMigration m, Scheduler s, List<byte[]> record) {
        byte[] data = record.get(1) == null ? Utf8.bytes("{}") : record.get(1);
        if (m.options.payload() == PayloadPolicy.DATA) {
            return data;
        }
        return Envelope.wrap(data, new Envelope.Provenance(m.source.display(), Bytes.utf8("repeat:").concat(s.id()).raw(),
                record.get(0), null, record.get(2)));
    }
}
