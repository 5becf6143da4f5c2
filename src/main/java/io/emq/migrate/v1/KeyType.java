package io.emq.migrate.v1;

import java.util.Locale;

/** The reply of {@code TYPE}. */
public enum KeyType {
    STRING, LIST, SET, ZSET, HASH, STREAM, NONE, OTHER;

    public static KeyType parse(String reply) {
        return switch (reply == null ? "none" : reply.toLowerCase(Locale.ROOT)) {
            case "string" -> STRING;
            case "list" -> LIST;
            case "set" -> SET;
            case "zset" -> ZSET;
            case "hash" -> HASH;
            case "stream" -> STREAM;
            case "none" -> NONE;
            default -> OTHER;
        };
    }

    public String wireName() {
        return name().toLowerCase(Locale.ROOT);
    }
}
