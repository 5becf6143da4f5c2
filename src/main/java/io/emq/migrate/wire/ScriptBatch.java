package io.emq.migrate.wire;

import java.util.ArrayList;
import java.util.List;

/**
 * Script calls sent together in one pipeline ({@link Wire#batch()}): each {@link #add} returns the
 * handle its reply is read from once {@link #send()} returned; calls of different reply types mix.
 */
public final class ScriptBatch {

    /** Where one call's reply lands. */
    public static final class Pending<T> {
        private final ScriptCall<T> call;
        private ScriptReply<T> reply;

        private Pending(ScriptCall<T> call) {
            this.call = call;
        }

        ScriptCall<T> call() {
            return call;
        }

        void settle(ScriptReply<T> settled) {
            this.reply = settled;
        }

        /** The call's outcome; only after {@link ScriptBatch#send()}. */
        public ScriptReply<T> reply() {
            if (reply == null) {
                throw new IllegalStateException("the batch was not sent");
            }
            return reply;
        }
    }

    private final Wire wire;
    private final List<Pending<?>> calls = new ArrayList<>();

    ScriptBatch(Wire wire) {
        this.wire = wire;
    }

    public <T> Pending<T> add(ScriptCall<T> call) {
        Pending<T> p = new Pending<>(call);
        calls.add(p);
        return p;
    }

    /** Sends every call added in one pipeline (grouped per node in a cluster) and settles each handle. */
    public void send() {
        wire.send(calls);
    }
}
