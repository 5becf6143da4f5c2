package io.emq.migrate.migrate;

import io.emq.migrate.payload.Envelope;
import io.emq.migrate.payload.PayloadPolicy;
import io.emq.migrate.keyspace.BrandedId;
import io.emq.migrate.v1.Bytes;
import io.emq.migrate.v1.DedupEntry;
import io.emq.migrate.v1.IdSet;
import io.emq.migrate.v1.KeyClass;
import io.emq.migrate.v1.JobFacts;
import io.emq.migrate.v1.QueueSnapshot;
import io.emq.migrate.v1.QueueSnapshotReader;
import io.emq.migrate.v1.RefusalKind;
import io.emq.migrate.v1.Scheduler;
import io.emq.migrate.v1.plan.PlanOptions;
import io.emq.migrate.v1.plan.Planner;
import io.emq.migrate.v1.plan.SchedulerNames;
import io.emq.migrate.wire.Replies;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * Dedup keys {@code de:<did>} point at the branded id with their PTTL re-applied; custom v1 ids
 * that satisfy the dedup-id rule become receipts {@code de:<v1 id>} (never over a real dedup key);
 * {@code every} schedulers become v2 registrations whose next run is the occurrence after the
 * iteration v1 already created (that iteration migrated as an ordinary job); each dedup key, receipt and
 * registration recorded in the journal before it is written ({@code dedup:}, {@code receipt:},
 * {@code scheduler:}), so {@code abandon} finds every registration a crash left behind, and a later call
 * drops from v2 those v1 dropped since (a dedup key deleted when its job finished, the receipt of a job
 * finished or removed, a scheduler removed): when the journal counts more of them ({@code carried_records})
 * than v1 holds now, or, in a pass that follows the change feed, those the feed tells may have changed. A receipt
 * a dedup key of its name kept out is written once that key is dropped. The v1 queue settings the v2 gates
 * read (concurrency, rate limit) go into the v2 {@code meta} ({@link CarrySettings}). Composed by the
 * V70 step and by the re-sync, from the source as last read.
 */
final class DedupAndSchedulers {
    private static final List<byte[]> TEMPLATE_FIELDS = List.of(Utf8.bytes("name"), Utf8.bytes("data"), Utf8.bytes("opts"));
    /** What the retirement follows of a scheduler record: the {@link #TEMPLATE_FIELDS} first, then what decides its kind and period. */
    private static final List<byte[]> FOLLOWED_FIELDS = Stream.concat(TEMPLATE_FIELDS.stream(),
            Stream.of("every", "pattern", "limit", "endDate").map(Utf8::bytes)).toList();
    private static final byte[] TEMPLATE = Utf8.bytes("template");
    private static final byte[] EVERY_MS = Utf8.bytes("every_ms");

    static final List<String> CHECKPOINTS = List.of("dedup keys written", "receipts written", "scheduler recorded",
            "scheduler written", "schedulers written", "dropped records deleted");
    /** Receipts written at once; dedup keys too. */
    private static final int RECEIPTS = 1000;

    private DedupAndSchedulers() {
    }

    /** The dedup keys, receipts and schedulers of the source as last read, all of them (V70). */
    static Map<String, Long> absorb(QueueMigration m) {
        return absorb(m, Optional.empty(), List.of());
    }

    /**
     * The dedup keys, receipts and schedulers of the source as last read, for a re-sync pass: {@code since}, the keys
     * the feed tells written since the source read before (the pass's changes), {@code rows}, the jobs the pass gave a
     * row. When the absorb before in this run carried every record ({@link QueueMigration#recordsCarried}) and the feed
     * tells every key written, only the records that may have changed are written and dropped ({@link Changed}): a
     * million dedup keys or custom ids cost a pass nothing while v1 leaves them be.
     */
    static Map<String, Long> absorb(QueueMigration m, Optional<SourceFeed.Changes> since, List<JobFacts> rows) {
        Optional<Changed> changed = since.filter(c -> m.recordsCarried && c.complete()).map(c -> new Changed(m.source.base(), c, rows));
        m.recordsCarried = false;
        QueueSnapshot snap = m.snapshot();
        Map<String, Long> counts = new LinkedHashMap<>();
        Carried carried = new Carried();
        List<DedupEntry> entries = changed.map(c -> c.dedupKeys(snap)).orElse(snap.dedupKeys());
        counts.put("dedup-keys", dedupKeys(m, entries, counts, carried));
        m.checkpoints.hit("dedup keys written");
        List<List<JobFacts>> custom = changed.map(c -> List.of(snap.jobsWithIds(c.customIds()))).orElse(List.of(snap.jobsInRankOrder()));
        counts.put("receipts", receipts(m, Migratable.select(custom,
                j -> m.rule().getsIdentity(j) && Planner.isCustomId(j.id())), carried));
        m.checkpoints.hit("receipts written");
        Set<String> names = new HashSet<>();
        counts.put("schedulers", schedulers(m, snap, carried, names));
        m.checkpoints.hit("schedulers written");
        long dropped = changed.isPresent() ? dropChanged(m, changed.get(), entries, carried, names) : dropDropped(m, carried, names);
        if (dropped > 0) {
            counts.put("dropped-records", dropped);
        }
        counts.put("settings", CarrySettings.write(m, snap.meta()));
        m.recordsCarried = true;
        return counts;
    }

    /**
     * What may have changed since the absorb before: a dedup key the feed tells written, and the records of a job
     * whose keys it tells written (a job added, moved, finished or removed) or that the pass gave a row (a job given
     * its id now, one whose lock ran out without a write). Every other record is as that absorb left it in v2.
     */
    private static final class Changed {
        private final Bytes base;
        /** {@code base + "de:"}, which every dedup key of the queue begins with. */
        private final Bytes dedupBase;
        private final SourceFeed.Changes since;
        /** The ids of the jobs whose records may have changed: those whose keys the feed tells written, and the pass's rows. */
        private final Set<Bytes> jobsTouched;

        Changed(Bytes base, SourceFeed.Changes since, List<JobFacts> rows) {
            this.base = base;
            this.dedupBase = base.concat(KeyClass.DedupKey.PREFIX);
            this.since = since;
            this.jobsTouched = new HashSet<>(since.touchedUnder(base));
            rows.forEach(j -> jobsTouched.add(j.id()));
        }

        /** The dedup keys that may have changed: one the feed tells written (or a key under it), or one of a job that may have. */
        List<DedupEntry> dedupKeys(QueueSnapshot snap) {
            return snap.dedupKeysNaming(since.touchedUnder(dedupBase), jobsTouched);
        }

        /** The custom ids (receipts) among the jobs that may have changed; every other receipt is as v2 holds it. */
        Set<Bytes> customIds() {
            return jobsTouched.stream().filter(Planner::isCustomId).collect(Collectors.toSet());
        }

        /** The dedup ids under {@code de:} the feed tells written. */
        Set<Bytes> dedupIdsWritten() {
            return dedupIds(dedupBase, since);
        }

        /** Whether the feed tells the v1 schedulers written ({@code repeat}, {@code repeat:<sid>}). */
        boolean schedulersWritten() {
            Bytes repeat = base.concat(Bytes.utf8("repeat"));
            return since.written().stream().anyMatch(k -> k.startsWith(repeat));
        }
    }

    /** The ids of the dedup keys ({@code dedupBase} + id) among the keys {@code since} tells written. */
    private static Set<Bytes> dedupIds(Bytes dedupBase, SourceFeed.Changes since) {
        Set<Bytes> ids = new HashSet<>();
        since.written().stream().filter(k -> k.startsWith(dedupBase) && k.length() > dedupBase.length())
                .forEach(k -> ids.add(k.dropPrefix(dedupBase)));
        return ids;
    }

    /**
     * Once the tombstone is stamped: drops from v2 the dedup keys v1 deleted on their own since the last pass read the
     * source ({@code before}): BullMQ's removeDeduplicationKey moves no structure, so the guard held through it. The
     * candidates are the dedup keys the feed tells written since that pass drained ({@code told}), or without the feed
     * every dedup key {@code before} holds; of them, those journaled whose v1 key is gone now are dropped as a pass
     * drops them ({@link #drop}: only while v2's key holds the id written; a receipt of that name, kept out by the key,
     * written then), {@link #RECEIPTS} at a time. Returns how many.
     */
    static long dropDeletedAlone(QueueMigration m, QueueSnapshot before, Optional<SourceFeed.Changes> told) {
        Bytes dedupBase = dedupBase(m);
        Iterable<Bytes> candidates = told.<Iterable<Bytes>>map(t -> dedupIds(dedupBase, t))
                .orElseGet(() -> () -> before.dedupKeys().stream().map(DedupEntry::dedupId).iterator());
        long[] dropped = {0};
        Migratable.inBatches(candidates, RECEIPTS, batch -> dropped[0] += dropGone(m, batch));
        return dropped[0];
    }

    /**
     * As above, in a run resumed past the tombstone, which holds no read of the source: the candidates are every dedup
     * key the journal records (v1 deletes none of its own keys before {@link RetireSource} journals that it followed
     * v1, so each journaled key gone from v1 was deleted by a v1 client), a page of the journal at a time.
     */
    static long dropDeletedAlone(QueueMigration m) {
        long[] dropped = {0};
        m.journal.fieldsStartingWith(Journal.DEDUP_PREFIX, page -> dropped[0] += dropGone(m, page.stream()
                .map(field -> Bytes.of(Arrays.copyOfRange(field, Journal.DEDUP_PREFIX.length(), field.length))).toList()));
        return dropped[0];
    }

    /** Drops the journaled dedup keys among these ids (UTF-8 ones: the journal's fields) whose v1 key is gone; how many. */
    private static long dropGone(QueueMigration m, List<Bytes> candidates) {
        Bytes dedupBase = dedupBase(m);
        List<Bytes> ids = candidates.stream().filter(Bytes::isUtf8).toList();
        List<Long> inV1 = m.sourceWire.existing(ids.stream().map(id -> List.of(dedupBase.concat(id).raw())).toList());
        List<String> gone = new ArrayList<>();
        for (int i = 0; i < ids.size(); i++) {
            if (inV1.get(i) == 0) {
                gone.add(Journal.DEDUP_PREFIX + ids.get(i).utf8());
            }
        }
        List<Map.Entry<byte[], byte[]>> journaled = gone.isEmpty() ? List.of() : journaled(m, gone);
        if (journaled.isEmpty()) {
            return 0;
        }
        Set<String> dropping = new HashSet<>(gone);
        return drop(m, journaled, field -> !dropping.contains(field), Set.of());
    }

    private static Bytes dedupBase(QueueMigration m) {
        return m.source.base().concat(KeyClass.DedupKey.PREFIX);
    }

    /** The records the journal holds of these fields, as field and value, in order. */
    private static List<Map.Entry<byte[], byte[]>> journaled(QueueMigration m, List<String> fields) {
        List<byte[]> names = fields.stream().map(Utf8::bytes).toList();
        List<byte[]> values = m.journal.read(names);
        List<Map.Entry<byte[], byte[]>> journaled = new ArrayList<>();
        for (int i = 0; i < names.size(); i++) {
            if (values.get(i) != null) {
                journaled.add(Map.entry(names.get(i), values.get(i)));
            }
        }
        return journaled;
    }

    /**
     * Once the tombstone is stamped: rewrites the v2 registration of each {@code every} scheduler of {@code before} (the
     * source as the last pass read it, which registered each of them) whose v1 record now makes another template or
     * period than v2 holds. An upsert that keeps a scheduler's next run writes its record alone ({@code repeat}'s score
     * unchanged: no watched key moves), so the guard held through it; one that moves or removes a scheduler moved
     * {@code repeat}, and a pass followed. A record such an upsert gave a cron pattern or a bound (a {@code limit}, an
     * {@code endDate}), which v2's registration cannot hold, is refused as the plan refuses it (v1's jobs not deleted yet;
     * a re-run follows again) unless the run drops such schedulers: then its registration is deleted. Two reads a
     * scheduler (a queue has few). Returns how many it rewrote or deleted.
     */
    static long rewriteEditedTemplates(QueueMigration m, QueueSnapshot before) {
        return before.schedulers().stream().filter(s -> s.kind() == Scheduler.Kind.EVERY)
                .filter(s -> rewroteIfEdited(m, SchedulerRecord.of(s.id()))).count();
    }

    /** As above, in a run resumed past the tombstone: of every scheduler the journal records. */
    static long rewriteEditedTemplates(QueueMigration m) {
        long[] rewritten = {0};
        m.journal.entriesStartingWith(Journal.SCHEDULER_PREFIX, page -> page.forEach(record -> {
            if (rewroteIfEdited(m, SchedulerRecord.read(record.getKey(), record.getValue()))) {
                rewritten[0]++;
            }
        }));
        return rewritten[0];
    }

    /**
     * Rewrites the template of the v2 registration of this record's v1 scheduler when the v1 record now makes another;
     * not when v2 holds no registration of that name (nothing to rewrite: a template alone would be no registration).
     */
    private static boolean rewroteIfEdited(QueueMigration m, SchedulerRecord scheduler) {
        List<byte[]> record = schedulerFields(m, scheduler.v1Id(), FOLLOWED_FIELDS);
        if (record.stream().allMatch(v -> v == null)) {
            return false; // its record gone (a removal moved repeat: the pass before carried it)
        }
        String key = m.keys.repeat(scheduler.name());
        List<byte[]> registered = m.targetWire.hmget(Utf8.bytes(key), List.of(EVERY_MS, TEMPLATE));
        if (registered.get(0) == null) {
            return false;
        }
        Scheduler.Kind kind = Scheduler.Kind.of(record.get(4) != null, record.get(3) != null, record.get(5) != null || record.get(6) != null);
        if (kind != Scheduler.Kind.EVERY) {
            refuseUnlessDropped(m, scheduler.v1Id(), kind);
            new TargetWrites(m).del(key).zrem(m.keys.base() + "repeat", scheduler.name()).flush();
            return true;
        }
        byte[] template = template(m, scheduler.v1Id(), record);
        byte[] every = Utf8.bytes(Long.toString(QueueSnapshotReader.parseLong(Replies.asText(record.get(3)), -1))); // as V70 reads it
        if (Arrays.equals(template, registered.get(1)) && Arrays.equals(every, registered.get(0))) {
            return false;
        }
        new TargetWrites(m).hset(key, Map.of(TEMPLATE, template, EVERY_MS, every)).flush();
        return true;
    }

    /**
     * Refuses, as the plan would have, a scheduler v1 made cron, legacy or bounded after the tombstone, unless the run
     * drops schedulers of that kind.
     */
    private static void refuseUnlessDropped(QueueMigration m, Bytes sid, Scheduler.Kind kind) {
        PlanOptions options = m.options.planOptions();
        RefusalKind refusal = switch (kind) {
            case PATTERN -> options.dropCronSchedulers() ? null : RefusalKind.CRON_SCHEDULER;
            case LEGACY -> options.dropLegacyRepeatables() ? null : RefusalKind.LEGACY_REPEATABLE;
            default -> options.dropBoundedSchedulers() ? null : RefusalKind.BOUNDED_SCHEDULER;
        };
        if (refusal != null) {
            throw new MigrationRefused(MigrationRefused.Kind.of(refusal), "v1 scheduler " + m.source.key("repeat:").concat(sid).display()
                    + " became " + kind.wireName() + " after the tombstone (an upsert keeping its next run), which v2's registration"
                    + " cannot hold; v2 serves it as the every scheduler it was. v1's jobs are not deleted yet: run migrate"
                    + " again with " + refusal.option() + " to drop it from v2, or give it back its every form in v1 first");
        }
    }

    /** The journal fields of the records written by one call: held compactly ({@link IdSet}), a million dedup keys among them. */
    private static final class Carried {
        private final IdSet fields = new IdSet();

        void add(String field) {
            fields.add(Bytes.utf8(field));
        }

        boolean contains(String field) {
            return fields.contains(Bytes.utf8(field));
        }

        int size() {
            return fields.size();
        }
    }

    /** Writes the dedup keys whose job gets a row, each journaled first; adds their journal fields to {@code carried}. */
    private static long dedupKeys(QueueMigration m, List<DedupEntry> entries, Map<String, Long> counts, Carried carried) {
        Iterable<DedupEntry> valid = () -> entries.stream().filter(e -> {
            boolean ok = Planner.isV2DedupId(e.dedupId());
            if (!ok) {
                counts.merge("dedup-invalid-id", 1L, Long::sum);
            }
            return ok;
        }).iterator(); // one batch at a time: a snapshot holds its dedup keys compactly, not as entries
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
    private static void recordThenWrite(QueueMigration m, Map<String, String> records, TargetWrites w, Carried carried) {
        if (!records.isEmpty()) {
            m.journal.set(records);
        }
        w.flush();
        records.keySet().forEach(carried::add);
    }

    /**
     * Drops from v2 what the journal records as carried ({@code dedup:}, {@code receipt:}, {@code scheduler:}) but is
     * not in {@code carried} (what v1 holds now). Looked for only when the journal counts more records than
     * {@code carried}. Returns how many were dropped.
     */
    private static long dropDropped(QueueMigration m, Carried carried, Set<String> names) {
        long journaled = m.journal.text(Journal.CARRIED_COUNT).map(Long::parseLong).orElse(0L);
        if (journaled <= carried.size()) {
            return 0;
        }
        long[] dropped = {0};
        for (String prefix : List.of(Journal.DEDUP_PREFIX, Journal.RECEIPT_PREFIX, Journal.SCHEDULER_PREFIX)) {
            m.journal.entriesStartingWith(prefix, page -> dropped[0] += drop(m, page, carried::contains, names));
        }
        return dropped[0];
    }

    /**
     * As {@link #dropDropped}, of the records that may have changed only ({@code changed}): those of the dedup keys the
     * feed tells written or of {@code entries} (the dedup keys this call wrote, or found without a job), the receipts of
     * the jobs whose keys it tells written or that the pass gave a row, and the schedulers when it tells them written;
     * of them, those journaled and not in {@code carried} (each that may have changed and is still in v1 was written).
     */
    private static long dropChanged(QueueMigration m, Changed changed, List<DedupEntry> entries, Carried carried, Set<String> names) {
        Set<String> fields = new LinkedHashSet<>();
        Stream.concat(changed.dedupIdsWritten().stream(), entries.stream().map(DedupEntry::dedupId)).filter(Bytes::isUtf8)
                .forEach(did -> fields.add(Journal.DEDUP_PREFIX + did.utf8()));
        changed.customIds().forEach(id -> fields.add(Journal.RECEIPT_PREFIX + id.utf8()));
        fields.removeIf(carried::contains);
        Predicate<String> current = field -> carried.contains(field) || !fields.contains(field);
        long[] dropped = {0};
        Migratable.inBatches(new ArrayList<>(fields), RECEIPTS, batch -> dropped[0] += drop(m, journaled(m, batch), current, names));
        if (changed.schedulersWritten()) {
            m.journal.entriesStartingWith(Journal.SCHEDULER_PREFIX, page -> dropped[0] += drop(m, page, carried::contains, names));
        }
        return dropped[0];
    }

    /**
     * Drops these journaled records but those {@code current}: each dedup key or receipt from v2 only while it holds the
     * branded id it was written with (a receipt never written, a real dedup key holding its name, is kept so), then the
     * receipt of a job v1 holds whose name a dropped dedup key held, written now (it was refused while the key held it);
     * each registration unless a scheduler v1 holds now has its name ({@code names}); then forgets them. Returns how many.
     */
    private static long drop(QueueMigration m, List<Map.Entry<byte[], byte[]>> records, Predicate<String> current, Set<String> names) {
        List<byte[]> gone = new ArrayList<>();
        List<String> freed = new ArrayList<>();
        TargetWrites w = new TargetWrites(m);
        for (Map.Entry<byte[], byte[]> record : records) {
            String field = Replies.asText(record.getKey());
            if (current.test(field)) {
                continue;
            }
            if (field.startsWith(Journal.SCHEDULER_PREFIX)) {
                String name = SchedulerRecord.read(record.getKey(), record.getValue()).name();
                if (!names.contains(name)) {
                    w.del(m.keys.repeat(name)).zrem(m.keys.base() + "repeat", name);
                }
            } else {
                String name = field.substring(field.indexOf(':') + 1);
                w.delEq(m.keys.dedup(name), record.getValue());
                if (field.startsWith(Journal.DEDUP_PREFIX)) {
                    freed.add(name);
                }
            }
            gone.add(record.getKey());
        }
        w.flush();
        writeFreedReceipts(m, freed, current);
        m.checkpoints.hit("dropped records deleted");
        if (!gone.isEmpty()) {
            m.journal.forget(gone);
        }
        return gone.size();
    }

    /**
     * The receipts journaled under these names (of dedup keys just dropped) that are not being dropped themselves,
     * written again ({@code NX}, as every receipt): the dedup key that held the name kept the first write out.
     */
    private static void writeFreedReceipts(QueueMigration m, List<String> names, Predicate<String> current) {
        if (names.isEmpty()) {
            return;
        }
        List<byte[]> receipts = m.journal.read(names.stream().map(n -> Utf8.bytes(Journal.RECEIPT_PREFIX + n)).toList());
        TargetWrites w = new TargetWrites(m);
        for (int i = 0; i < names.size(); i++) {
            if (receipts.get(i) != null && current.test(Journal.RECEIPT_PREFIX + names.get(i))) {
                w.set(m.keys.dedup(names.get(i)), receipts.get(i), 0, true);
            }
        }
        w.flush();
    }

    /** Receipts for the jobs with a custom id that satisfies the dedup-id rule, each journaled first; adds their records to {@code carried}. */
    private static long receipts(QueueMigration m, Iterable<JobFacts> custom, Carried carried) {
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
    private static long schedulers(QueueMigration m, QueueSnapshot snap, Carried carried, Set<String> names) {
        List<Scheduler> every = snap.schedulers().stream().filter(s -> s.kind() == Scheduler.Kind.EVERY).toList();
        SchedulerNames.clash(every).ifPresent(reason -> { // before any is written: the fence refused it as the plan does, unless v1 added one since
            throw new MigrationRefused(MigrationRefused.Kind.SCHEDULER_NAME_CLASH, reason);
        });
        Map<Bytes, Long> lastIteration = new HashMap<>();
        for (JobFacts j : every.isEmpty() ? List.<JobFacts>of() : snap.jobsInRankOrder()) {
            if (j.repeatJobKey() != null) {
                iterationMs(j).ifPresent(ms -> lastIteration.merge(j.repeatJobKey(), ms, Math::max));
            }
        }
        long written = 0;
        for (Scheduler s : every) {
            SchedulerRecord record = SchedulerRecord.of(s.id());
            String name = record.name();
            byte[] template = template(m, s.id(), templateFields(m, s.id()));
            long next = lastIteration.containsKey(s.id()) ? lastIteration.get(s.id()) + s.everyMs()
                    : s.nextRunMs() >= 0 ? s.nextRunMs() : System.currentTimeMillis();
            String key = m.keys.repeat(name);
            m.journal.set(record.field(), s.id().raw());
            carried.add(record.field());
            names.add(name);
            m.checkpoints.hit("scheduler recorded");
            new TargetWrites(m).del(key)
                    .hset(key, Map.of(EVERY_MS, Utf8.bytes(Long.toString(s.everyMs())), TEMPLATE, template))
                    .zadd(m.keys.base() + "repeat", next, name)
                    .flush();
            m.checkpoints.hit("scheduler written");
            written++;
        }
        return written;
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

    /** The {@link #TEMPLATE_FIELDS} of scheduler {@code sid}'s v1 record, in order, null where absent (all, when it has none). */
    private static List<byte[]> templateFields(QueueMigration m, Bytes sid) {
        return schedulerFields(m, sid, TEMPLATE_FIELDS);
    }

    /** These fields of scheduler {@code sid}'s v1 record, in order, null where absent. */
    private static List<byte[]> schedulerFields(QueueMigration m, Bytes sid, List<byte[]> fields) {
        return m.sourceWire.hmget(m.source.key("repeat:").concat(sid).raw(), fields);
    }

    /** The v2 template of scheduler {@code sid} from its v1 record's {@link #TEMPLATE_FIELDS} (name, data, opts; null where absent). */
    private static byte[] template(QueueMigration m, Bytes sid, List<byte[]> record) {
        byte[] data = record.get(1) == null ? Utf8.bytes("{}") : record.get(1);
        if (m.options.payload() == PayloadPolicy.DATA) {
            return data;
        }
        return Envelope.wrap(data, new Envelope.Provenance(m.source.display(), Bytes.utf8("repeat:").concat(sid).raw(),
                record.get(0), null, record.get(2)));
    }
}
