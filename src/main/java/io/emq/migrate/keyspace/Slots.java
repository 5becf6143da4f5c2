package io.emq.migrate.keyspace;

import java.nio.charset.StandardCharsets;

/** Cluster slots: CRC16-XMODEM of the hashtag (or the whole key) mod 16384. */
public final class Slots {
    public static final int COUNT = 16384;

    private Slots() {
    }

    public static int slot(String key) {
        return slot(key.getBytes(StandardCharsets.UTF_8));
    }

    public static int slot(byte[] key) {
        int start = 0;
        int end = key.length;
        int open = indexOf(key, (byte) '{', 0);
        if (open >= 0) {
            int close = indexOf(key, (byte) '}', open + 1);
            if (close > open + 1) {
                start = open + 1;
                end = close;
            }
        }
        return crc16(key, start, end) % COUNT;
    }

    /**
     * Whether every key that begins with {@code prefix} is in the prefix's slot: the prefix holds its hashtag whole (a
     * {@code {}, then a {@code }} after at least one byte), so nothing after it changes what is hashed.
     */
    public static boolean pins(byte[] prefix) {
        int open = indexOf(prefix, (byte) '{', 0);
        return open >= 0 && indexOf(prefix, (byte) '}', open + 1) > open + 1;
    }

    public static int crc16(byte[] bytes, int from, int to) {
        int crc = 0;
        for (int i = from; i < to; i++) {
            crc ^= (bytes[i] & 0xFF) << 8;
            for (int bit = 0; bit < 8; bit++) {
                crc = (crc & 0x8000) != 0 ? (crc << 1) ^ 0x1021 : crc << 1;
            }
            crc &= 0xFFFF;
        }
        return crc;
    }

    private static int indexOf(byte[] bytes, byte b, int from) {
        for (int i = from; i < bytes.length; i++) {
            if (bytes[i] == b) {
                return i;
            }
        }
        return -1;
    }
}
