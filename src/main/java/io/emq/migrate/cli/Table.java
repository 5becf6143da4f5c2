package io.emq.migrate.cli;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/** A plain text table: a header row, aligned columns, two spaces between them. */
public final class Table {
    private final List<String[]> rows = new ArrayList<>();

    public Table(String... header) {
        rows.add(header);
    }

    /**
     * A row of cells, {@code null} shown as {@code -}; a line break in a cell (a v1 id may hold one) shown as {@code \x0a},
     * another control character escaped here as the output would ({@link Printable#line}), so the columns align on what
     * is printed.
     */
    public Table row(Object... cells) {
        String[] r = new String[cells.length];
        for (int i = 0; i < cells.length; i++) {
            r[i] = cells[i] == null ? "-" : Printable.line(cells[i].toString().replace("\n", "\\x0a"));
        }
        rows.add(r);
        return this;
    }

    /** Counts as an operator reads them, in name order: {@code pending 4, scheduled 1} (or {@code -} when none). */
    static String counts(Map<String, ? extends Number> counts) {
        if (counts.isEmpty()) {
            return "-";
        }
        StringBuilder s = new StringBuilder();
        new TreeMap<>(counts).forEach((k, v) -> s.append(s.length() == 0 ? "" : ", ").append(k).append(' ')
                .append(String.format(Locale.ROOT, "%,d", v.longValue())));
        return s.toString();
    }

    public boolean isEmpty() {
        return rows.size() == 1;
    }

    public void print(PrintStream out) {
        int columns = rows.get(0).length;
        int[] width = new int[columns];
        for (String[] r : rows) {
            for (int i = 0; i < columns && i < r.length; i++) {
                width[i] = Math.max(width[i], r[i].length());
            }
        }
        for (String[] r : rows) {
            StringBuilder line = new StringBuilder();
            for (int i = 0; i < r.length; i++) {
                line.append(i == 0 ? "" : "  ");
                line.append(i == r.length - 1 ? r[i] : pad(r[i], width[i]));
            }
            out.println(line.toString().stripTrailing());
        }
    }

    private static String pad(String s, int width) {
        return s.length() >= width ? s : s + " ".repeat(width - s.length());
    }
}
