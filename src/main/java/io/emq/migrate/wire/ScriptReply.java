package io.emq.migrate.wire;

/** The outcome of one pipelined script call: a decoded reply, or the mapped refusal. */
public record ScriptReply(Object value, RuntimeException error) {

    static ScriptReply of(Object value) {
        return new ScriptReply(value, null);
    }

    static ScriptReply failed(RuntimeException error) {
        return new ScriptReply(null, error);
    }

    public boolean ok() {
        return error == null;
    }

    /** The reply, or the refusal thrown. */
    public Object get() {
        if (error != null) {
            throw error;
        }
        return value;
    }
}
