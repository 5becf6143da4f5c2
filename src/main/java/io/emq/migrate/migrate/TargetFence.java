package io.emq.migrate.migrate;

import io.emq.migrate.keyspace.Keys;
import io.emq.migrate.wire.Replies;
import io.emq.migrate.wire.Script;
import io.emq.migrate.wire.ScriptBatch;
import io.emq.migrate.wire.ScriptCall;
import io.emq.migrate.wire.Wire;
import java.util.List;

/**
 * The v2 side of the migrator's lease: {@code emq:{q}:meta} field {@code migration} holds the fencing
 * token of the migrator that owns the queue, and every v2 write of a migration checks it in the same
 * script ({@code migrate_write_jobs}, {@code migrate_write}, {@code migrate_count_completed}), so a
 * migrator whose lease lapsed is refused {@code EMQLOCK} and changes nothing. The token lives in the
 * queue's own slot because the journal ({@code {emq}}) is in another one.
 */
final class TargetFence {
    private TargetFence() {
    }

    /** Makes the journal's token the queue's (right after the lease is taken, before any other v2 write). */
    static void claim(Wire target, Keys keys, Journal journal) {
        call(target, keys, journal, "claim");
    }

    /** Pauses the v2 queue; whether it was paused already. */
    static boolean pause(Wire target, Keys keys, Journal journal) {
        return call(target, keys, journal, "pause") == 1;
    }

    static void resume(Wire target, Keys keys, Journal journal) {
        call(target, keys, journal, "resume");
    }

    /** Resumes the v2 queue and writes these journal header fields, in one pipeline (each fenced; the first refusal is thrown). */
    static void resumeAndRecord(Wire target, Keys keys, Journal journal, JournalHeader.Write write) {
        withRecord(target, keys, journal, "resume", write);
    }

    /** Whether a migration's fence holds the v2 queue (its meta's {@code migration} field, read without a lease). */
    static boolean held(Wire target, Keys keys) {
        return target.hget(Utf8.bytes(keys.meta()), Utf8.bytes("migration")) != null;
    }

    /** Ends the fence: the migration of the queue is over (retired or abandoned). */
    static void release(Wire target, Keys keys, Journal journal) {
        call(target, keys, journal, "release");
    }

    /** Ends the fence and writes these journal header fields, in one pipeline (each fenced; the first refusal is thrown). */
    static void releaseAndRecord(Wire target, Keys keys, Journal journal, JournalHeader.Write write) {
        withRecord(target, keys, journal, "release", write);
    }

    /** The claim as a call to send: a fenced write of the queue's meta that changes nothing while this journal holds it. */
    static ScriptCall<Long> claimCall(Keys keys, Journal journal) {
        return call(keys, journal, "claim");
    }

    private static long call(Wire target, Keys keys, Journal journal, String op) {
        return target.eval(call(keys, journal, op));
    }

    /** The fence op and the header write go out together: the queue's slot and the journal's are two (two nodes of a cluster). */
    private static void withRecord(Wire target, Keys keys, Journal journal, String op, JournalHeader.Write write) {
        ScriptBatch batch = target.batch();
        ScriptBatch.Pending<Long> fence = batch.add(call(keys, journal, op));
        ScriptBatch.Pending<Void> recorded = batch.add(journal.recordCall(write));
        batch.send();
        fence.reply().get();
        recorded.reply().get();
    }

    private static ScriptCall<Long> call(Keys keys, Journal journal, String op) {
        return new ScriptCall<>(Script.MIGRATE_V2_FENCE, List.of(Utf8.bytes(keys.meta())),
                List.of(Utf8.bytes(op), Utf8.bytes(journal.token())), Replies::asLong);
    }
}
