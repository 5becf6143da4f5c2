package io.emq.migrate.cli;

import java.io.ByteArrayOutputStream;
import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;

/**
 * Text from a server (queue names, job ids, error texts) may carry terminal escape bytes. Everything
 * the CLI prints passes through here: C0 controls other than newline (a tab too: one in a queue name or an id
 * would push a table's columns out of line), DEL and the C1 controls (U+0080..U+009F) are shown as {@code \u001b}-style
 * escapes, which are also valid inside JSON strings.
 */
final class Printable {
    private Printable() {
    }

    /** One line for a message: every control character escaped, newlines too. */
    static String line(String text) {
        StringBuilder s = new StringBuilder(text.length());
        text.codePoints().forEach(c -> {
            if (isControl(c)) {
                s.append(String.format("\\u%04x", c));
            } else {
                s.appendCodePoint(c);
            }
        });
        return s.toString();
    }

    private static boolean isControl(int c) {
        return c < 0x20 || (c >= 0x7f && c <= 0x9f);
    }

    /** Wraps a UTF-8 stream: escapes control bytes except newline, as {@link #line} would. */
    static OutputStream escaping(OutputStream out) {
        return new FilterOutputStream(out) {
            private boolean afterC2;

            @Override
            public void write(int b) throws IOException {
                write(new byte[] {(byte) b}, 0, 1);
            }

            @Override
            public void write(byte[] b, int off, int len) throws IOException {
                ByteArrayOutputStream escaped = new ByteArrayOutputStream(len + 16);
                for (int i = off; i < off + len; i++) {
                    int u = b[i] & 0xff;
                    if (afterC2) {
                        afterC2 = false;
                        if (u >= 0x80 && u <= 0x9f) {
                            escaped.writeBytes(escape(u));
                            continue;
                        }
                        escaped.write(0xc2);
                    }
                    if (u == 0xc2) {
                        afterC2 = true;
                    } else if ((u < 0x20 && u != '\n') || u == 0x7f) {
                        escaped.writeBytes(escape(u));
                    } else {
                        escaped.write(u);
                    }
                }
                out.write(escaped.toByteArray());
            }

            @Override
            public void flush() throws IOException {
                if (afterC2) {
                    afterC2 = false;
                    out.write(0xc2);
                }
                out.flush();
            }
        };
    }

    private static byte[] escape(int c) {
        return String.format("\\u%04x", c).getBytes(StandardCharsets.US_ASCII);
    }
}
