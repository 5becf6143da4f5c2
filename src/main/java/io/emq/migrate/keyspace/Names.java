package io.emq.migrate.keyspace;

import java.util.Optional;

/** The name rules of the v2 grammar: queue names, dedup ids and registration/stream names. */
public final class Names {
    public static final int QUEUE_MAX = 128;
    public static final int DEDUP_MAX = 255;
    public static final String RESERVED_QUEUE = "emq";

    private Names() {
    }

    /** Why a text is not a valid v2 queue name, or empty when it is one. */
    public static Optional<String> queueNameProblem(String name) {
        if (!isToken(name, QUEUE_MAX)) {
            return Optional.of("queue name '" + printable(name) + "' must match [A-Za-z0-9._-]{1," + QUEUE_MAX + "}");
        }
        if (name.equals(RESERVED_QUEUE)) {
            return Optional.of("queue name 'emq' is reserved for the {emq} hashtag");
        }
        return Optional.empty();
    }

    public static boolean isQueueName(String name) {
        return queueNameProblem(name).isEmpty();
    }

    /** Dedup ids, repeat registration names and stream names share the rule [A-Za-z0-9._-]{1,255}. */
    public static boolean isDedupId(String id) {
        return isToken(id, DEDUP_MAX);
    }

    static boolean isToken(String s, int max) {
        if (s == null || s.isEmpty() || s.length() > max) {
            return false;
        }
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            boolean ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
                    || c == '.' || c == '_' || c == '-';
            if (!ok) {
                return false;
            }
        }
        return true;
    }

    /**
     * Renders any text for a message: characters of any script as they are; control characters as {@code \\xNN}, and
     * those that show nothing or could pass for another (format, unassigned, private use, a lone surrogate, any space
     * but U+0020, a line or paragraph separator) as {@code \\u{N}}.
     */
    public static String printable(String s) {
        if (s == null) {
            return "";
        }
        StringBuilder out = new StringBuilder(s.length());
        s.codePoints().forEach(c -> {
            if (c < 0x20 || (c >= 0x7F && c < 0xA0)) {
                out.append(String.format("\\x%02x", c));
            } else if (c == ' ' || shownAsItIs(Character.getType(c))) {
                out.appendCodePoint(c);
            } else {
                out.append(String.format("\\u{%x}", c));
            }
        });
        return out.toString();
    }

    private static boolean shownAsItIs(int type) {
        return type != Character.UNASSIGNED && type != Character.SURROGATE && type != Character.FORMAT && type != Character.PRIVATE_USE
                && type != Character.SPACE_SEPARATOR && type != Character.LINE_SEPARATOR && type != Character.PARAGRAPH_SEPARATOR;
    }
}
