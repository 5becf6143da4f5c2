package io.emq.migrate.wire;

/** The outcome of one pipelined script call: its decoded reply, or the mapped refusal. */
public record ScriptReply<T>(T value, RuntimeException error) {

    static <T> ScriptReply<T> of(T value) {
        return new ScriptReply<>(value, null);
    }

    static <T> ScriptReply<T> failed(RuntimeException error) {
        return new ScriptReply<>(null, error);
    }

    public boolean ok() {
        return error == null;
    }

    /** The reply, or the refusal thrown. */
    public T get() {
        if (error != null) {
            throw error;
        }
        return value;
    }
}
