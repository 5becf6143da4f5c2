package io.emq.migrate.wire;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import redis.clients.jedis.exceptions.JedisDataException;

/**
 * Decodes script replies as RESP2 delivers them to a binary {@code EVALSHA}: a Lua integer is a
 * {@link Long}, a string is {@code byte[]}, a table is a {@link List}, {@code nil}/{@code false}
 * is {@code null}. The only place replies are decoded: each method is a decoder a {@link ScriptCall}
 * carries.
 */
public final class Replies {

    private Replies() {
    }

    public static long asLong(Object reply) {
        if (reply instanceof Long l) {
            return l;
        }
        throw unexpected("an integer", reply);
    }

    public static byte[] asBytes(Object reply) {
        if (reply instanceof byte[] b) {
            return b;
        }
        throw unexpected("a bulk string", reply);
    }

    /** A bulk string as UTF-8 text, {@code null} for a nil reply. */
    public static String asText(Object reply) {
        return reply == null ? null : new String(asBytes(reply), StandardCharsets.UTF_8);
    }

    public static List<Object> asList(Object reply) {
        if (reply instanceof List<?> list) {
            return new ArrayList<>(list);
        }
        throw unexpected("an array", reply);
    }

    /** An array of bulk strings as text. */
    public static List<String> asTextList(Object reply) {
        List<String> out = new ArrayList<>();
        for (Object o : asList(reply)) {
            out.add(asText(o));
        }
        return out;
    }

    /** For a call whose reply says nothing the caller needs (an acknowledgement). */
    public static Void ignored(Object reply) {
        return null;
    }

    /**
     * An array with one outcome per element, in order: an element that is the text of a refusal
     * ({@code EMQ...}, as a script that settles many jobs reports one it refused) becomes that refusal,
     * any other is decoded by {@code decoder}.
     */
    public static <T> Function<Object, List<ScriptReply<T>>> outcomes(Function<Object, T> decoder) {
        return reply -> {
            List<ScriptReply<T>> out = new ArrayList<>();
            for (Object element : asList(reply)) {
                if (element instanceof byte[] text && new String(text, StandardCharsets.UTF_8).startsWith("EMQ")) {
                    out.add(ScriptReply.failed(WireErrors.map(new JedisDataException(new String(text, StandardCharsets.UTF_8)))));
                } else {
                    out.add(ScriptReply.of(decoder.apply(element)));
                }
            }
            return out;
        };
    }

    private static IllegalStateException unexpected(String wanted, Object reply) {
        String got = reply == null ? "nil" : reply.getClass().getSimpleName();
        return new IllegalStateException("script reply: expected " + wanted + ", got " + got
                + " (is the client speaking RESP2?)");
    }
}
