package io.emq.migrate.wire;

import java.util.List;

/** One script invocation: the script, its KEYS and its ARGV, all binary. */
public record ScriptCall(Script script, List<byte[]> keys, List<byte[]> args) {
    public ScriptCall {
        if (keys.isEmpty()) {
            throw new IllegalArgumentException("every v2 script declares at least one key");
        }
    }
}
