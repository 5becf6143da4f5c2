package io.emq.migrate.v1;

/**
 * Reads JSON text without building anything: whether bytes are one JSON value, and where the members
 * of a root object are. It accepts exactly what Jackson's parser accepts with its default features
 * (the grammar of RFC 8259: no comments, no single quotes, no leading zeros or plus signs, no trailing
 * commas, no control bytes in strings, only space, tab, CR and LF between tokens), for well-formed
 * UTF-8. It leaves undecided what lies near that parser's edges, for the caller to ask Jackson: a NUL
 * in the first four bytes or a leading {@code 0xEF} (Jackson reads those as UTF-16/32 or a byte-order
 * mark), bytes that are not well-formed UTF-8, nesting deeper than {@value #MAX_DEPTH}, a number of more
 * than {@value #MAX_DIGITS} digits, a name of more than {@value #MAX_NAME} bytes or a string of more
 * than {@value #MAX_TEXT} bytes (the limits of Jackson as the payload asks it are
 * {@value PayloadDigest#SPLICED_DEPTH} levels, 1000 digits, 50,000 name bytes and 20,000,000 string chars).
 */
final class JsonScan {
    /** What the scan found. */
    enum Verdict { JSON, NOT_JSON, UNDECIDED }

    /** A member of the root object: its name's bytes (without quotes) and its value's bytes. */
    interface Members {
        void member(int nameFrom, int nameTo, int valueFrom, int valueTo);
    }

    static final int MAX_DEPTH = 256;
    static final int MAX_DIGITS = 900;
    static final int MAX_TEXT = 1 << 20;
    static final int MAX_NAME = 10_000;
    private static final int NOT_JSON = -1;
    private static final int UNDECIDED = -2;

    private final byte[] in;
    private final Members members;
    private boolean escapedName;

    private JsonScan(byte[] in, Members members) {
        this.in = in;
        this.members = members;
    }

    /** Whether the bytes are exactly one JSON value, with only whitespace around it. */
    static Verdict oneValue(byte[] utf8) {
        if (unsureEncoding(utf8)) {
            return Verdict.UNDECIDED;
        }
        JsonScan scan = new JsonScan(utf8, null);
        int at = scan.value(scan.space(0), 0);
        return at < 0 ? verdict(at) : scan.space(at) == utf8.length ? Verdict.JSON : Verdict.NOT_JSON;
    }

    /**
     * Reads the first JSON value of the bytes as Jackson's {@code readTree} does (what follows it is not
     * read): {@link Verdict#JSON} when it is an object, having told {@code members} each member of it in
     * order; {@link Verdict#NOT_JSON} when it is another value or no JSON (what {@code members} was told
     * then counts for nothing); undecided also when a member's name holds an escape.
     */
    static Verdict rootObject(byte[] utf8, Members members) {
        if (unsureEncoding(utf8)) {
            return Verdict.UNDECIDED;
        }
        JsonScan scan = new JsonScan(utf8, members);
        int start = scan.space(0);
        int at = scan.value(start, 0);
        if (at < 0) {
            return verdict(at);
        }
        if (scan.escapedName) {
            return Verdict.UNDECIDED;
        }
        return utf8[start] == '{' ? Verdict.JSON : Verdict.NOT_JSON;
    }

    private static Verdict verdict(int failed) {
        return failed == UNDECIDED ? Verdict.UNDECIDED : Verdict.NOT_JSON;
    }

    private static boolean unsureEncoding(byte[] in) {
        if ((in.length > 0 && in[0] == (byte) 0xEF) || !Bytes.isUtf8(in)) {
            return true;
        }
        for (int i = 0; i < Math.min(4, in.length); i++) {
            if (in[i] == 0) {
                return true;
            }
        }
        return false;
    }

    /** The first position at or after {@code at} that is not JSON whitespace. */
    private int space(int at) {
        while (at < in.length && (in[at] == ' ' || in[at] == '\n' || in[at] == '\r' || in[at] == '\t')) {
            at++;
        }
        return at;
    }

    /** The value starting at {@code at}: the position after it, or a negative verdict. */
    private int value(int at, int depth) {
        if (at >= in.length) {
            return NOT_JSON;
        }
        return switch (in[at]) {
            case '{' -> depth == MAX_DEPTH ? UNDECIDED : object(at + 1, depth + 1);
            case '[' -> depth == MAX_DEPTH ? UNDECIDED : array(at + 1, depth + 1);
            case '"' -> string(at + 1);
            case 't' -> literal(at, "true", depth);
            case 'f' -> literal(at, "false", depth);
            case 'n' -> literal(at, "null", depth);
            default -> number(at, depth);
        };
    }

    private int object(int at, int depth) {
        at = space(at);
        if (at < in.length && in[at] == '}') {
            return at + 1;
        }
        while (true) {
            if (at >= in.length || in[at] != '"') {
                return NOT_JSON;
            }
            int nameFrom = at + 1;
            int nameTo = string(nameFrom);
            if (nameTo < 0) {
                return nameTo;
            }
            if (nameTo - 1 - nameFrom > MAX_NAME) {
                return UNDECIDED;
            }
            at = space(nameTo);
            if (at >= in.length || in[at] != ':') {
                return NOT_JSON;
            }
            int valueFrom = space(at + 1);
            int valueTo = value(valueFrom, depth);
            if (valueTo < 0) {
                return valueTo;
            }
            if (members != null && depth == 1) {
                escapedName |= indexOf('\\', nameFrom, nameTo - 1) >= 0;
                members.member(nameFrom, nameTo - 1, valueFrom, valueTo);
            }
            at = space(valueTo);
            if (at < in.length && in[at] == '}') {
                return at + 1;
            }
            if (at >= in.length || in[at] != ',') {
                return NOT_JSON;
            }
            at = space(at + 1);
        }
    }

    private int array(int at, int depth) {
        at = space(at);
        if (at < in.length && in[at] == ']') {
            return at + 1;
        }
        while (true) {
            at = value(at, depth);
            if (at < 0) {
                return at;
            }
            at = space(at);
            if (at < in.length && in[at] == ']') {
                return at + 1;
            }
            if (at >= in.length || in[at] != ',') {
                return NOT_JSON;
            }
            at = space(at + 1);
        }
    }

    /**
     * A string whose opening quote is just before {@code at}: the position after its closing quote. Eight bytes
     * that hold no quote, backslash or control byte are passed over at once.
     */
    private int string(int at) {
        int from = at;
        while (at < in.length) {
            if (at + Long.BYTES <= in.length && plain(Bytes.word(in, at))) {
                at += Long.BYTES;
                continue;
            }
            int b = in[at] & 0xFF;
            if (b == '"') {
                return at - from > MAX_TEXT ? UNDECIDED : at + 1;
            }
            if (b < 0x20) {
                return NOT_JSON;
            }
            if (b == '\\') {
                at = escape(at + 1);
                if (at < 0) {
                    return at;
                }
            } else {
                at++;
            }
        }
        return NOT_JSON;
    }

    /**
     * Whether none of a word's eight bytes is a quote, a backslash or below 0x20: a byte is zero in
     * {@code word ^ c} where it is {@code c}, and a byte below {@code n} (at most 0x80) borrows in
     * {@code word - n} in every place while its high bit was clear (a place can only be marked wrongly
     * above a place that is truly marked, so the answer is exact).
     */
    private static boolean plain(long word) {
        long quote = word ^ (Bytes.ONES * '"');
        long backslash = word ^ (Bytes.ONES * '\\');
        return ((below(quote, 1) | below(backslash, 1) | below(word, 0x20))) == 0;
    }

    /** Marks (the high bit of) the places of {@code word} that may hold a byte below {@code n}: none when none does. */
    private static long below(long word, int n) {
        return (word - Bytes.ONES * n) & ~word & Bytes.HIGHS;
    }

    /** The escape whose backslash is just before {@code at}: the position after it. */
    private int escape(int at) {
        if (at >= in.length) {
            return NOT_JSON;
        }
        switch (in[at]) {
            case 'b', 't', 'n', 'f', 'r', '"', '/', '\\':
                return at + 1;
            case 'u':
                for (int i = at + 1; i <= at + 4; i++) {
                    if (i >= in.length || Character.digit(in[i], 16) < 0) {
                        return NOT_JSON;
                    }
                }
                return at + 5;
            default:
                return NOT_JSON;
        }
    }

    /** {@code true}, {@code false} or {@code null}, then a byte that cannot continue a token. */
    private int literal(int at, String word, int depth) {
        for (int i = 0; i < word.length(); i++) {
            if (at + i >= in.length || in[at + i] != word.charAt(i)) {
                return NOT_JSON;
            }
        }
        return ended(at + word.length(), depth);
    }

    /** {@code -? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?} */
    private int number(int at, int depth) {
        int i = at;
        if (i < in.length && in[i] == '-') {
            i++;
        }
        int intFrom = i;
        i = digits(i);
        int digits = i - intFrom;
        if (digits == 0 || (in[intFrom] == '0' && digits > 1)) {
            return NOT_JSON;
        }
        if (i < in.length && in[i] == '.') {
            int from = ++i;
            i = digits(i);
            if (i == from) {
                return NOT_JSON;
            }
            digits += i - from;
        }
        if (i < in.length && (in[i] == 'e' || in[i] == 'E')) {
            i++;
            if (i < in.length && (in[i] == '+' || in[i] == '-')) {
                i++;
            }
            int from = i;
            i = digits(i);
            if (i == from) {
                return NOT_JSON;
            }
            digits += i - from;
        }
        return digits > MAX_DIGITS ? UNDECIDED : ended(i, depth);
    }

    private int digits(int at) {
        while (at < in.length && in[at] >= '0' && in[at] <= '9') {
            at++;
        }
        return at;
    }

    /**
     * A scalar ending at {@code at}: at the root only whitespace or the end may follow; inside a container
     * whitespace, a comma or a closing bracket (anything else is no JSON there either way).
     */
    private int ended(int at, int depth) {
        if (at == in.length) {
            return at;
        }
        byte b = in[at];
        boolean space = b == ' ' || b == '\n' || b == '\r' || b == '\t';
        return space || (depth > 0 && (b == ',' || b == ']' || b == '}')) ? at : NOT_JSON;
    }

    private int indexOf(char c, int from, int to) {
        for (int i = from; i < to; i++) {
            if (in[i] == c) {
                return i;
            }
        }
        return -1;
    }
}
