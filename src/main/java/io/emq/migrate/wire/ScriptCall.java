package io.emq.migrate.wire;

import java.util.List;
import java.util.function.Function;

/**
 * One script invocation: the script, its KEYS and its ARGV (all binary), and the decoder that turns
 * its RESP2 reply into {@code T} (built from {@link Replies}), so no caller inspects a reply's Java type.
 */
public record ScriptCall<T>(Script script, List<byte[]> keys, List<byte[]> args, Function<Object, T> decoder) {
    public ScriptCall {
        if (keys.isEmpty()) {
            throw new IllegalArgumentException("every v2 script declares at least one key");
        }
    }

    /** The same call, its reply decoded further by {@code then}. */
    public <U> ScriptCall<U> map(Function<T, U> then) {
        return new ScriptCall<>(script, keys, args, decoder.andThen(then));
    }

    T decode(Object reply) {
        return decoder.apply(reply);
    }
}
