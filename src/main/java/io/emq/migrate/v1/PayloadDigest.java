package io.emq.migrate.v1;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/** Size, SHA-256, JSON-ness and UTF-8-ness of a job's raw {@code data} bytes. */
public record PayloadDigest(boolean present, long bytes, String sha256, boolean json, boolean utf8) {
    public static final PayloadDigest ABSENT = new PayloadDigest(false, -1, "", false, false);
    private static final JsonFactory JSON = new JsonFactory();

    public static PayloadDigest of(byte[] data) {
        if (data == null) {
            return ABSENT;
        }
        return new PayloadDigest(true, data.length, sha256(data), isJson(data), Bytes.of(data).isUtf8());
    }

    public static String sha256(byte[] data) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(data));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is part of every Java runtime", e);
        }
    }

    /** Exactly one JSON value (of any kind), nothing after it. */
    public static boolean isJson(byte[] data) {
        if (!Bytes.of(data).isUtf8()) {
            return false;
        }
        try (JsonParser p = JSON.createParser(data)) {
            JsonToken first = p.nextToken();
            if (first == null) {
                return false;
            }
            p.skipChildren();
            return p.nextToken() == null;
        } catch (IOException e) {
            return false;
        }
    }
}
