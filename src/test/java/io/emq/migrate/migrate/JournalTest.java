package io.emq.migrate.migrate;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.emq.migrate.keyspace.BrandedId;
import io.emq.migrate.payload.PayloadPolicy;
import io.emq.migrate.testing.CommandStats;
import io.emq.migrate.testing.RealServerExtension;
import io.emq.migrate.wire.EmqWireException;
import io.emq.migrate.wire.Replies;
import io.emq.migrate.wire.ScriptCall;
import io.emq.migrate.wire.Wire;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class JournalTest {
    @RegisterExtension
    static final RealServerExtension SERVER = RealServerExtension.standalone();

    private static Journal journal() {
        return new Journal(Wire.open(SERVER.client()), "orders");
    }

    /** A queue's journal as the fence leaves it: leased, with its id base and no id kept. */
    private static Journal fenced(String queue, long idBase) {
        Journal j = new Journal(Wire.open(SERVER.client()), queue);
        j.lease().acquire("m1", 10_000);
        j.record(JournalHeader.ID_BASE, idBase);
        j.record(JournalHeader.KEPT_IDS, false);
        return j;
    }

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /** {@code forget}'s unlink reads the state in the same script: a journal missing, or in any state but retired, is kept. */
    @Test
    void onlyAJournalThatRecordsItsMigrationRetiredIsUnlinked() {
        Journal j = fenced("forgotten", 0);
        for (MigrationState state : List.of(MigrationState.RUNNING, MigrationState.VERIFIED, MigrationState.ABANDONED)) {
            j.record(JournalHeader.STATE, state);
            Map<String, String> before = SERVER.client().hgetAll(j.key());
            assertEquals(java.util.OptionalLong.empty(), j.unlinkIfRetired(), state.wireName());
            assertEquals(before, SERVER.client().hgetAll(j.key()), state.wireName() + ": kept as it was");
        }
        j.record(JournalHeader.STATE, MigrationState.RETIRED);
        long fields = SERVER.client().hlen(j.key());
        assertEquals(java.util.OptionalLong.of(fields), j.unlinkIfRetired());
        assertFalse(SERVER.client().exists(j.key()));
        assertEquals(java.util.OptionalLong.empty(), j.unlinkIfRetired(), "a missing journal: nothing to unlink");
    }

    @Test
    void idsAreMintedInTheOrderGivenAndARerunGivesTheSameAnswer() {
        Journal j = journal();
        j.lease().acquire("m1", 10_000);
        j.record(JournalHeader.ID_BASE, 0L);
        List<BrandedId> first = j.ids().assign(List.of(b("9"), b("10"), b("a:b:\u00e9")));
        assertEquals(List.of(BrandedId.job(1), BrandedId.job(2), BrandedId.job(3)), first);
        List<BrandedId> again = j.ids().assign(List.of(b("10"), b("new"), b("9")));
        assertEquals(List.of(BrandedId.job(2), BrandedId.job(4), BrandedId.job(1)), again);
        assertEquals(4, j.ids().highWaterMark());
        assertArrayEquals(b("a:b:\u00e9"), j.ids().lookupV2(BrandedId.job(3)).orElseThrow());
        assertEquals(List.of(Optional.of(BrandedId.job(1)), Optional.empty()), j.ids().lookupV1(List.of(b("9"), b("nope"))));
    }

    @Test
    void aKeptIdAheadOfTheRanksIsSkippedARepeatedIdSharesItsAnswerAndLargeBatchesMintInOrder() {
        Journal j = new Journal(Wire.open(SERVER.client()), "ranks");
        j.lease().acquire("m1", 10_000);
        j.record(JournalHeader.ID_BASE, 0L);
        // a v1 id that is already JOB id rank 3 keeps itself, ahead of the ranks minted so far
        assertEquals(List.of(BrandedId.job(1), BrandedId.job(3)),
                j.ids().assign(List.of(b("a"), b(BrandedId.job(3).toString())), true));
        // nothing to keep here, but rank 3 is held: b, c, d get 2, 4, 5; a repeated id keeps its first answer
        List<byte[]> batch = List.of(b("b"), b("c"), b("b"), b("d"), b("a"));
        List<BrandedId> expected = List.of(BrandedId.job(2), BrandedId.job(4), BrandedId.job(2), BrandedId.job(5), BrandedId.job(1));
        assertEquals(expected, j.ids().assign(batch));
        assertEquals(5, j.ids().highWaterMark());
        assertEquals(expected, j.ids().assign(batch), "a re-run gives the same answer");
        assertEquals(5, j.ids().highWaterMark(), "and mints nothing");
        // more ids than the script reads or writes in one command
        List<byte[]> many = java.util.stream.IntStream.rangeClosed(1, 2500).mapToObj(n -> b("m" + n)).toList();
        List<BrandedId> ids = j.ids().assign(many);
        for (int n = 0; n < many.size(); n++) {
            assertEquals(BrandedId.job(6 + n), ids.get(n));
        }
        assertEquals(ids, j.ids().assign(many));
        assertEquals(2505, j.ids().highWaterMark());
        assertArrayEquals(b("m2500"), j.ids().lookupV2(BrandedId.job(2505)).orElseThrow());
    }

    /**
     * The way back of minted ids is packed by rank block; a journal an earlier release wrote (every id's
     * {@code v2:} field, no blocks) is read and extended as it is: its ids and the ones minted after them
     * are found both ways, each exactly once, and a v1 id to keep that either holds is minted instead.
     */
    @Test
    void aJournalWrittenWithAFieldAnIdBackIsReadAndExtendedWithBlocks() {
        Journal j = fenced("earlier", 0);
        for (int rank = 1; rank <= 3; rank++) { // as the earlier script left ranks 1-3, minted for a, b, c
            String v1 = String.valueOf((char) ('a' + rank - 1));
            SERVER.client().hset(j.key(), Map.of("v1:" + v1, BrandedId.job(rank).toString(), "v2:" + BrandedId.job(rank), v1));
        }
        SERVER.client().hset(j.key(), "hwm", "3");
        assertEquals(List.of(BrandedId.job(2), BrandedId.job(4), BrandedId.job(5)), j.ids().assign(List.of(b("b"), b("d"), b("e"))));
        assertArrayEquals(b("a"), j.ids().lookupV2(BrandedId.job(1)).orElseThrow());
        assertArrayEquals(b("d"), j.ids().lookupV2(BrandedId.job(4)).orElseThrow());
        assertArrayEquals(b("e"), j.ids().lookupV2(BrandedId.job(5)).orElseThrow());
        assertEquals(Optional.empty(), j.ids().lookupV2(BrandedId.job(6)));
        assertEquals(List.of(true, true, false, false), j.ids().mapsV2(List.of(BrandedId.job(3).toString(), BrandedId.job(4).toString(),
                BrandedId.job(6).toString(), "not-an-id")));
        assertEquals(List.of(BrandedId.job(6), BrandedId.job(7), BrandedId.job(9)), j.ids().assign(List.of(b(BrandedId.job(4).toString()),
                b(BrandedId.job(2).toString()), b(BrandedId.job(9).toString())), true), "ids 4 and 2 are held: minted; 9 is kept");
        Map<String, String> both = new java.util.TreeMap<>();
        j.ids().forEach((id, v1) -> assertEquals(null, both.put(id.toString(), new String(v1, StandardCharsets.UTF_8)), "once: " + id));
        Map<String, String> expected = new java.util.TreeMap<>();
        List.of("a", "b", "c", "d", "e", BrandedId.job(4).toString(), BrandedId.job(2).toString())
                .forEach(v1 -> expected.put(BrandedId.job(expected.size() + 1).toString(), v1));
        expected.put(BrandedId.job(9).toString(), BrandedId.job(9).toString());
        assertEquals(expected, both);
    }

    /** Blocks of minted ids hold skipped ranks and batches that straddle them: every id is found back, once. */
    @Test
    void mintedIdsAreFoundBackAcrossBlocksAndSkippedRanks() {
        Journal j = fenced("blocks", 5);
        BrandedId three = BrandedId.of(io.emq.migrate.v1.plan.Rebrand.jobId(5, 3));
        assertEquals(List.of(three), j.ids().assign(List.of(b(three.toString())), true));
        List<byte[]> many = java.util.stream.IntStream.rangeClosed(1, 2500).mapToObj(n -> b("m" + n)).toList();
        for (int from = 0; from < many.size(); from += 700) {
            j.ids().assign(many.subList(from, Math.min(many.size(), from + 700)));
        }
        assertEquals(2501, j.ids().highWaterMark(), "rank 3 is skipped: the kept id holds it");
        int[] seen = {0};
        j.ids().forEach((id, v1) -> {
            seen[0]++;
            assertArrayEquals(v1, j.ids().lookupV2(id).orElseThrow());
            assertEquals(id, j.ids().lookupV1(List.of(v1)).get(0).orElseThrow());
        });
        assertEquals(2501, seen[0]);
        assertArrayEquals(b("m2500"), j.ids().lookupV2(BrandedId.of(io.emq.migrate.v1.plan.Rebrand.jobId(5, 2501))).orElseThrow());
    }

    /**
     * A candidate id can be held only by a kept id, so a journal that never kept one (the fence records
     * kept = 0 with the id base) mints a batch with one HMGET of its mappings and one of hwm and kept,
     * and one HSET; once an id was kept, the candidates are read too (and a held one skipped, as above).
     */
    @Test
    void candidateIdsAreCheckedOnlyOnceAnIdWasKept() {
        Journal j = fenced("candidates", 0);
        long[] before = calls();
        assertEquals(List.of(BrandedId.job(1), BrandedId.job(2)), j.ids().assign(List.of(b("a"), b("b"))));
        long[] after = calls();
        assertEquals(2, after[0] - before[0], "HMGETs of a batch minted in a journal that never kept an id");
        assertEquals(1, after[1] - before[1], "HSETs of that batch");
        assertEquals(List.of(BrandedId.job(4)), j.ids().assign(List.of(b(BrandedId.job(4).toString())), true));
        before = calls();
        assertEquals(List.of(BrandedId.job(3), BrandedId.job(5)), j.ids().assign(List.of(b("c"), b("d"))));
        after = calls();
        assertEquals(3, after[0] - before[0], "once an id was kept, the candidates are read as well");
    }

    /**
     * A journal begun by a release before the kept field may hold a kept id without saying so: with the
     * field absent the candidates are always read, so a minted id never takes a rank a kept id holds.
     */
    @Test
    void aJournalWithoutTheKeptFieldHasItsCandidateIdsChecked() {
        Journal j = new Journal(Wire.open(SERVER.client()), "older");
        j.lease().acquire("m1", 10_000);
        j.record(JournalHeader.ID_BASE, 0L);
        assertEquals(List.of(BrandedId.job(2)), j.ids().assign(List.of(b(BrandedId.job(2).toString())), true));
        SERVER.client().hdel(j.key(), JournalHeader.KEPT_IDS.name()); // as the earlier script left it
        assertEquals(List.of(BrandedId.job(1), BrandedId.job(3)), j.ids().assign(List.of(b("a"), b("b"))),
                "rank 2 is held by the kept id: b is minted past it");
        assertArrayEquals(b(BrandedId.job(2).toString()), j.ids().lookupV2(BrandedId.job(2)).orElseThrow());
    }

    /** The calls of HMGET and HSET the server counted so far. */
    private static long[] calls() {
        return new long[] {CommandStats.calls(SERVER.client(), "hmget"), CommandStats.calls(SERVER.client(), "hset")};
    }

    @Test
    void theExpectationCountIsKeptExactByTheScriptsThatWriteAndForgetAndAnOldJournalIsCountedOnce() {
        Journal j = new Journal(Wire.open(SERVER.client()), "counted");
        j.lease().acquire("m1", 10_000);
        Expectation e = new Expectation("pending", 0, "", "", "a", -1);
        j.expectations().forget(List.of(BrandedId.job(9)));
        assertEquals(0, j.expectations().count(), "a new journal starts counted at 0; forgetting an absent row counts nothing");
        Wire.open(SERVER.client()).eval(j.expectations().call(Map.of(BrandedId.job(1), e, BrandedId.job(2), e)));
        j.set(Map.of("r:" + BrandedId.job(2), e.render(), "lane:x", ""));
        assertEquals(2, j.expectations().count(), "a row written again and a field of another family are not counted");
        Wire.open(SERVER.client()).eval(new ScriptCall<>(io.emq.migrate.wire.Script.MIGRATE_JOURNAL_SET, List.of(b(j.key())),
                List.of(b(j.token()), b("lane:y"), b(""), b("r:" + BrandedId.job(5)), b(e.render()), b("lane:y"), b("1")), Replies::ignored));
        assertEquals(3, j.expectations().count(), "a field of another family named twice in a call, new to the journal, is not counted");
        j.expectations().forget(List.of(BrandedId.job(5)));
        j.expectations().forget(List.of(BrandedId.job(1), BrandedId.job(3)));
        assertEquals(1, j.expectations().count());

        // a journal begun before the counter: counted by HSCAN once, then kept
        SERVER.client().hdel(j.key(), Expectations.COUNT);
        j.set(Map.of("r:" + BrandedId.job(4), e.render()));
        assertEquals(Optional.empty(), j.text(Expectations.COUNT), "without the counter the scripts do not start one");
        assertEquals(2, j.expectations().count());
        assertEquals(Optional.of("2"), j.text(Expectations.COUNT), "the count is recorded");
        j.expectations().forget(List.of(BrandedId.job(2)));
        assertEquals(1, j.expectations().count());
        assertEquals(1, SERVER.client().hkeys(j.key()).stream().filter(f -> f.startsWith("r:")).count());
    }

    /** The carried records (dedup:, receipt:, scheduler:) are counted by the same fenced writes: a field new to the journal once. */
    @Test
    void theCarriedRecordsAreCountedExactlyByTheScriptsThatWriteAndForget() {
        Journal j = new Journal(Wire.open(SERVER.client()), "carried");
        j.lease().acquire("m1", 10_000);
        j.set(Map.of("dedup:a", "JOB1", "scheduler:tick", "tick", "lane:x", ""));
        assertEquals(Optional.of("2"), j.text(Journal.CARRIED_COUNT));
        j.set(Map.of("dedup:a", "JOB2", "dedup:b", "JOB3", "receipt:order-1", "JOB4"));
        assertEquals(Optional.of("4"), j.text(Journal.CARRIED_COUNT), "a record written again is not counted again");
        j.forget(List.of(b("dedup:a"), b("dedup:a"), b("dedup:gone"), b("lane:x")));
        assertEquals(Optional.of("3"), j.text(Journal.CARRIED_COUNT), "a field forgotten twice, or absent, counts once or not at all");
        assertEquals(3, SERVER.client().hkeys(j.key()).stream()
                .filter(f -> f.startsWith("dedup:") || f.startsWith("receipt:") || f.startsWith("scheduler:")).count());
    }

    /** DELEQ deletes a key only while it is a string holding the value; a key of another type is left, with no error. */
    @Test
    void aGuardedDeleteTakesOnlyAStringHoldingTheValue() {
        Wire wire = Wire.open(SERVER.client());
        io.emq.migrate.keyspace.Keys keys = io.emq.migrate.keyspace.Keys.queue("guarded");
        SERVER.client().hset(keys.meta(), "migration", "8");
        SERVER.client().set(keys.dedup("same"), "JOB1");
        SERVER.client().set(keys.dedup("other"), "JOB2");
        SERVER.client().hset(keys.dedup("hash"), "f", "JOB1");
        List<byte[]> args = new java.util.ArrayList<>(List.of(b("8")));
        for (int k = 2; k <= 4; k++) {
            args.addAll(List.of(b("DELEQ"), b(Integer.toString(k)), b("1"), b("JOB1")));
        }
        assertEquals(3L, wire.eval(new ScriptCall<>(io.emq.migrate.wire.Script.MIGRATE_WRITE, List.of(b(keys.meta()),
                b(keys.dedup("same")), b(keys.dedup("other")), b(keys.dedup("hash"))), args, Replies::asLong)));
        assertFalse(SERVER.client().exists(keys.dedup("same")));
        assertEquals("JOB2", SERVER.client().get(keys.dedup("other")), "another value is kept");
        assertEquals("JOB1", SERVER.client().hget(keys.dedup("hash"), "f"), "another type is kept");
    }

    /**
     * What the journal knows of some v1 jobs comes back in one call, in the order asked: the id of each job
     * that has one (any id shape), and the expectation of each id that has one.
     */
    @Test
    void whatTheJournalKnowsOfSomeJobsIsReadInOneCall() {
        Journal j = fenced("known", 0);
        List<BrandedId> ids = j.ids().assign(List.of(b("1"), b("a:b:\u00e9"), b("3")));
        Expectation e = new Expectation("pending", 0, "", "digest-of-1", "p1", -1);
        j.set(Map.of("r:" + ids.get(0), e.render(), "r:" + ids.get(2), new Expectation("dead", 2, "", "digest-of-3", "p3", -1).render()));
        j.known(List.of(b("1"))); // the server has the script from here on
        SERVER.client().sendCommand(redis.clients.jedis.Protocol.Command.CONFIG, "RESETSTAT");
        Journal.Known known = j.known(List.of(b("3"), b("none"), b("a:b:\u00e9"), b("1")));
        assertEquals(List.of(Optional.of(ids.get(2)), Optional.empty(), Optional.of(ids.get(1)), Optional.of(ids.get(0))), known.ids());
        assertEquals(Optional.of("digest-of-3"), known.expectation(0).map(Expectation::source));
        assertEquals(Optional.empty(), known.expectation(1), "no id, no expectation");
        assertEquals(Optional.empty(), known.expectation(2), "an id without an expectation");
        assertEquals(Optional.of(e), known.expectation(3));
        List<String> calls = SERVER.client().info("commandstats").lines()
                .filter(l -> l.startsWith("cmdstat_") && !l.startsWith("cmdstat_config")) // Redis 7 says config|resetstat, 6.2 config
                .map(l -> l.substring(0, l.indexOf(",usec"))).sorted().toList();
        assertEquals(List.of("cmdstat_evalsha:calls=1", "cmdstat_hmget:calls=2"), calls,
                "one call, whose script reads the ids, then their expectations");
        assertEquals(new Journal.Known(List.of(), Map.of()), j.known(List.of()));

        // more jobs than Lua can unpack at once (about 8,000): the script reads a thousand fields an HMGET
        List<byte[]> many = java.util.stream.IntStream.range(0, 9000).mapToObj(n -> b("many-" + n)).toList();
        List<BrandedId> manyIds = j.ids().assign(many.subList(0, 8900));
        Map<String, String> expectations = new java.util.HashMap<>();
        manyIds.subList(1000, 8800).forEach(id -> expectations.put("r:" + id, e.render()));
        j.set(expectations);
        Journal.Known all = j.known(many);
        assertEquals(9000, all.ids().size());
        assertEquals(Optional.of(manyIds.get(8899)), all.ids().get(8899));
        assertEquals(Optional.empty(), all.ids().get(8900), "past the ids assigned");
        assertEquals(7800, all.expected().size());
        assertEquals(Optional.of(e), all.expectation(8799));
        assertEquals(Optional.empty(), all.expectation(8800));
    }

    @Test
    void aBatchOfRowsIsWrittenAsIfOneByOneAndARerunLeavesTheSameRows() {
        Wire wire = Wire.open(SERVER.client());
        io.emq.migrate.keyspace.Keys keys = io.emq.migrate.keyspace.Keys.queue("rows");
        SERVER.client().hset(keys.job(BrandedId.job(1)), "stale", "1");
        SERVER.client().hset(keys.meta(), "migration", "7");
        List<byte[]> callKeys = List.of(b(keys.meta()), b(keys.pending()), b(keys.schedule()), b(keys.dead()), b(keys.active()),
                b(keys.job(BrandedId.job(1))), b(keys.job(BrandedId.job(2))), b(keys.job(BrandedId.job(3))),
                b(keys.job(BrandedId.job(4))), b(keys.job(BrandedId.job(1))));
        List<byte[]> args = new java.util.ArrayList<>();
        args.add(b("7"));
        for (String a : List.of(BrandedId.job(1) + " 1 0 n1 6 state pending attempts 0 payload p1",
                BrandedId.job(2) + " 2 1234 n2 6 state scheduled attempts 2 payload p2",
                BrandedId.job(3) + " 0 0 n0 6 state awaiting_children attempts 0 payload p3",
                BrandedId.job(4) + " 3 0 n1 8 state dead attempts 1 payload p4 last_error e",
                BrandedId.job(1) + " 1 0 n1 6 state pending attempts 1 payload p5")) {
            for (String w : a.split(" ")) {
                args.add(b(w));
            }
        }
        for (long run = 0; run < 2; run++) {
            assertEquals(run == 0 ? 3L : 0L, wire.eval(new ScriptCall<>(io.emq.migrate.wire.Script.MIGRATE_WRITE_JOBS, callKeys, args, Replies::asLong)),
                    "rows new to the target");
            assertEquals(Map.of("state", "pending", "attempts", "1", "payload", "p5"), SERVER.client().hgetAll(keys.job(BrandedId.job(1))),
                    "replaced whole, the later record of a repeated row winning");
            assertEquals(Map.of("state", "awaiting_children", "attempts", "0", "payload", "p3"),
                    SERVER.client().hgetAll(keys.job(BrandedId.job(3))));
            assertEquals(List.of(BrandedId.job(1).toString()), SERVER.client().zrange(keys.pending(), 0, -1));
            assertEquals(1234.0, SERVER.client().zscore(keys.schedule(), BrandedId.job(2).toString()));
            assertEquals(List.of(BrandedId.job(4).toString()), SERVER.client().zrange(keys.dead(), 0, -1));
            assertEquals("e", SERVER.client().hget(keys.job(BrandedId.job(4)), "last_error"));
        }
        assertThrows(RuntimeException.class, () -> wire.eval(new ScriptCall<>(io.emq.migrate.wire.Script.MIGRATE_WRITE_JOBS, callKeys,
                args.subList(0, args.size() - 1), Replies::asLong)), "a malformed batch is refused before anything is written");
    }

    /** A batch of rows none of which exists (the first copy's, read nothing one by one) still replaces a row it names twice whole. */
    @Test
    void aBatchOfNewRowsNamingARowTwiceLeavesItsLaterRecordOnly() {
        Wire wire = Wire.open(SERVER.client());
        io.emq.migrate.keyspace.Keys keys = io.emq.migrate.keyspace.Keys.queue("new-rows");
        SERVER.client().hset(keys.meta(), "migration", "5");
        BrandedId twice = BrandedId.job(1);
        BrandedId once = BrandedId.job(2);
        List<byte[]> callKeys = List.of(b(keys.meta()), b(keys.pending()), b(keys.schedule()), b(keys.dead()), b(keys.active()),
                b(keys.job(twice)), b(keys.job(once)), b(keys.job(twice)));
        List<byte[]> args = new java.util.ArrayList<>();
        args.add(b("5"));
        for (String a : List.of(twice + " 1 0 n0 8 state pending attempts 0 payload p1 progress 40",
                once + " 2 900 n0 6 state scheduled attempts 0 payload p2",
                twice + " 1 0 n0 6 state pending attempts 0 payload p3")) {
            for (String w : a.split(" ")) {
                args.add(b(w));
            }
        }
        assertEquals(2L, wire.eval(new ScriptCall<>(io.emq.migrate.wire.Script.MIGRATE_WRITE_JOBS, callKeys, args, Replies::asLong)),
                "rows new to the target, a row named twice counted once");
        assertEquals(Map.of("state", "pending", "attempts", "0", "payload", "p3"), SERVER.client().hgetAll(keys.job(twice)),
                "replaced whole by its later record: no field of the earlier one left");
        assertEquals(List.of(twice.toString()), SERVER.client().zrange(keys.pending(), 0, -1));
        assertEquals(900.0, SERVER.client().zscore(keys.schedule(), once.toString()));
    }

    /** The rows a migration writes: fenced by the lease token, and never over a row the v2 runtime claimed. */
    @Test
    void rowWritesAreFencedByTheLeaseTokenAndNeverOverwriteAClaimedRow() {
        Wire wire = Wire.open(SERVER.client());
        io.emq.migrate.keyspace.Keys keys = io.emq.migrate.keyspace.Keys.queue("fenced");
        BrandedId a = BrandedId.job(1);
        BrandedId c = BrandedId.job(2);
        SERVER.client().hset(keys.meta(), "migration", "8");
        java.util.function.BiFunction<String, String, Object> write = (token, records) -> {
            List<byte[]> callKeys = new java.util.ArrayList<>(List.of(b(keys.meta()), b(keys.pending()), b(keys.schedule()),
                    b(keys.dead()), b(keys.active())));
            List<byte[]> args = new java.util.ArrayList<>(List.of(b(token)));
            for (String record : records.split(";")) {
                String[] w = record.trim().split(" ");
                callKeys.add(b(keys.job(BrandedId.of(w[0]))));
                java.util.Arrays.stream(w).map(JournalTest::b).forEach(args::add);
            }
            return wire.eval(new ScriptCall<>(io.emq.migrate.wire.Script.MIGRATE_WRITE_JOBS, callKeys, args, Replies::asLong));
        };
        assertEquals(2L, write.apply("8", a + " 2 500 n0 6 state scheduled attempts 0 payload x; "
                + c + " 1 0 n0 6 state pending attempts 0 payload y"));
        EmqWireException.Lock zombie = assertThrows(EmqWireException.Lock.class,
                () -> write.apply("7", a + " -1 0 k0 0"), "an older token writes nothing");
        assertTrue(zombie.getMessage().contains("another migrator took over"), zombie.getMessage());
        assertEquals("scheduled", SERVER.client().hget(keys.job(a), "state"));

        assertEquals(0L, write.apply("8", a + " 1 0 k0 6 state pending attempts 0 payload x"), "a move: rewritten in place");
        assertEquals(List.of(a.toString(), c.toString()), SERVER.client().zrange(keys.pending(), 0, -1));
        assertEquals(0, SERVER.client().zcard(keys.schedule()), "taken out of the set it left");

        SERVER.client().hset(keys.job(c), Map.of("state", "active", "attempts", "1"));
        SERVER.client().zrem(keys.pending(), c.toString());
        SERVER.client().zadd(keys.active(), 1, c.toString());
        EmqWireException.State claimed = assertThrows(EmqWireException.State.class,
                () -> write.apply("8", a + " -1 0 k0 0; " + c + " -1 0 k0 0"));
        assertTrue(claimed.getMessage().contains("out-of-line " + c), claimed.getMessage());
        assertTrue(SERVER.client().exists(keys.job(a)), "a refused batch writes none of its records");
        BrandedId fresh = BrandedId.job(3);
        EmqWireException.State claimedUnrecorded = assertThrows(EmqWireException.State.class,
                () -> write.apply("8", fresh + " 1 0 n0 6 state pending attempts 0 payload z; " + c + " 1 0 n0 6 state pending attempts 0 payload y"),
                "a row the journal never recorded (guard n) that the runtime claimed is out of line, beside rows that are absent");
        assertTrue(claimedUnrecorded.getMessage().contains("out-of-line " + c + " is active"), claimedUnrecorded.getMessage());
        assertTrue(!SERVER.client().exists(keys.job(fresh)), "nothing of the refused batch is written");

        assertEquals(0L, write.apply("8", a + " -1 0 k0 0"));
        assertEquals(List.of(), SERVER.client().zrange(keys.pending(), 0, -1));
        assertTrue(!SERVER.client().exists(keys.job(a)), "removed");
        assertEquals(0L, write.apply("8", a + " -1 0 k0 0"), "removing a row already gone is in line");
        SERVER.client().del(keys.job(c));
        assertThrows(EmqWireException.State.class, () -> write.apply("8", c + " 1 0 k1 6 state pending attempts 1 payload y"),
                "a row the runtime finished is never written again");
        assertTrue(!SERVER.client().exists(keys.job(c)));
    }

    /** Queue settings carried into meta are fenced writes too, and no write may touch the token itself. */
    @Test
    void metaSettingsAreWrittenUnderTheLeaseAndTheTokenFieldIsNeverWritable() {
        Wire wire = Wire.open(SERVER.client());
        io.emq.migrate.keyspace.Keys keys = io.emq.migrate.keyspace.Keys.queue("settings");
        SERVER.client().hset(keys.meta(), "migration", "8");
        java.util.function.BiFunction<String, List<String>, Object> write = (token, command) -> {
            List<byte[]> args = new java.util.ArrayList<>(List.of(b(token)));
            command.forEach(a -> args.add(b(a)));
            return wire.eval(new ScriptCall<>(io.emq.migrate.wire.Script.MIGRATE_WRITE, List.of(b(keys.meta())), args, Replies::asLong));
        };
        assertEquals(1L, write.apply("8", List.of("HSET", "1", "2", "concurrency", "5")));
        assertEquals("5", SERVER.client().hget(keys.meta(), "concurrency"));
        assertThrows(EmqWireException.Lock.class, () -> write.apply("7", List.of("HDEL", "1", "1", "concurrency")),
                "a zombie's undo changes nothing");
        assertThrows(EmqWireException.class, () -> write.apply("8", List.of("HSET", "1", "2", "migration", "99")));
        assertThrows(EmqWireException.class, () -> write.apply("8", List.of("DEL", "1", "0")));
        assertEquals("8", SERVER.client().hget(keys.meta(), "migration"), "the token is the lease's alone");
        assertEquals("5", SERVER.client().hget(keys.meta(), "concurrency"));
    }

    @Test
    void aSecondMigratorIsRefusedWhileTheLeaseLivesAndTakesOverAfter() throws InterruptedException {
        Journal first = journal();
        long t1 = first.lease().acquire("m1", 300);
        Journal second = journal();
        EmqWireException.Lock refused = assertThrows(EmqWireException.Lock.class, () -> second.lease().acquire("m2", 300));
        assertTrue(refused.getMessage().contains("m1"), refused.getMessage());
        Thread.sleep(350);
        long t2 = second.lease().acquire("m2", 10_000);
        assertTrue(t2 > t1);
        assertThrows(EmqWireException.Lock.class, () -> first.record(JournalHeader.STATE, MigrationState.RUNNING), "the zombie is fenced off");
        assertThrows(EmqWireException.Lock.class, () -> first.ids().assign(List.of(b("x"))));
        assertThrows(EmqWireException.State.class, () -> second.ids().assign(List.of(b("x"))), "no id base yet");
        second.record(JournalHeader.ID_BASE, 3L);
        assertEquals(List.of(BrandedId.job((3L << 36) + 1)), second.ids().assign(List.of(b("x"))));
        second.record(JournalHeader.STATE, MigrationState.RUNNING);
        assertEquals(Optional.of(MigrationState.RUNNING), second.header().get(JournalHeader.STATE));
    }

    @Test
    void theHeaderKeepsTheFieldNamesAndTextsThatLuaAndJournalsInFlightRead() {
        Journal j = journal();
        j.lease().acquire("m1", 10_000);
        j.record(new JournalHeader.Write().set(JournalHeader.STATE, MigrationState.RUNNING)
                .set(JournalHeader.POLICY, PayloadPolicy.DATA).set(JournalHeader.ID_BASE, 7L)
                .set(JournalHeader.V1_WAS_PAUSED, true).set(JournalHeader.V2_WAS_PAUSED, false)
                .set(JournalHeader.LANE_FROM, "name"));
        Map<String, String> raw = new java.util.HashMap<>(SERVER.client().hgetAll(j.key()));
        raw.keySet().removeIf(field -> field.startsWith("lock_"));
        assertEquals(Map.of("state", "running", "policy", "data", "id_base", "7", "v1_was_paused", "1",
                "v2_was_paused", "0", "lane_from", "name", "expected_rows", "0"), raw);
        JournalHeader header = j.header();
        assertEquals(Optional.of(MigrationState.RUNNING), header.get(JournalHeader.STATE));
        assertEquals(Optional.of(PayloadPolicy.DATA), header.get(JournalHeader.POLICY));
        assertEquals(Optional.of(7L), header.get(JournalHeader.ID_BASE));
        assertEquals(Optional.of(true), header.get(JournalHeader.V1_WAS_PAUSED));
        assertEquals(Optional.of(false), header.get(JournalHeader.V2_WAS_PAUSED));
        assertEquals(List.of(BrandedId.job((7L << 36) + 1)), j.ids().assign(List.of(b("x"))), "migrate_assign_ids reads id_base");
    }

    @Test
    void historyRowsRoundTripInRankOrder() {
        Journal j = journal();
        j.lease().acquire("m1", 10_000);
        j.history().record(new HistoryRow(2, 3, "absorb pending", 42, "me@host", "2026-01-01T00:00:00Z", 12, true,
                Map.of("pending", 5L), null));
        j.history().record(new HistoryRow(1, 1, "fence source", 7, "me@host", "2026-01-01T00:00:00Z", 3, true, Map.of(), null));
        assertEquals(List.of(1, 3), j.history().rows().stream().map(HistoryRow::version).toList());
        assertEquals(5L, j.history().rows().get(1).counts().get("pending"));
        j.history().forget(3);
        assertEquals(List.of(1), j.history().rows().stream().map(HistoryRow::version).toList());
    }
}
