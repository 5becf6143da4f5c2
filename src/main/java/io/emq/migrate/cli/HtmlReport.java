package io.emq.migrate.cli;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Consumer;

/**
 * A self-contained HTML report (inline CSS and SVG, no scripts, no external assets): headings,
 * paragraphs, tables, and a bar chart of jobs per state before and after. Shared by {@code drain}
 * and {@code plan}:
 *
 * <pre>{@code
 * new HtmlReport("emq-migrate plan")
 *     .section("orders")
 *     .chart(List.of("pending", "scheduled", "dead"), "v1", before, "v2", after)
 *     .table(List.of("STATE", "JOBS"), rows)
 *     .write(Path.of("plan.html"));
 * }</pre>
 * Table cells reading {@code yes} or {@code NO} are coloured as verdicts.
 */
public final class HtmlReport {
    private static final String CSS = """
            body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:2rem auto;max-width:60rem;\
            padding:0 1rem;color:#1f2328;background:#fff}
            h1{font-size:1.5rem;margin-bottom:.2rem}h2{font-size:1.15rem;margin-top:2rem;border-bottom:1px solid #d0d7de;\
            padding-bottom:.3rem}
            .meta{color:#59636e;margin-top:0}
            table{border-collapse:collapse;margin:.8rem 0;min-width:24rem}
            th,td{border:1px solid #d0d7de;padding:.3rem .7rem;text-align:left;vertical-align:top}
            th{background:#f6f8fa}td.num{text-align:right;font-variant-numeric:tabular-nums}
            td.yes{color:#1a7f37;font-weight:600}td.no{color:#cf222e;font-weight:700;background:#ffebe9}
            .pass{color:#1a7f37}.fail{color:#cf222e}
            pre{background:#f6f8fa;padding:.6rem;overflow-x:auto;font-size:12px}
            svg text{font:12px system-ui,sans-serif;fill:#1f2328}
            """;

    private final String title;
    private final StringBuilder body = new StringBuilder();
    private final int top;

    public HtmlReport(String title) {
        this.title = title;
        body.append("<h1>").append(escape(title)).append("</h1>\n<p class=\"meta\">generated ")
                .append(escape(Instant.now().toString())).append("</p>\n");
        top = body.length();
    }

    public HtmlReport section(String heading) {
        body.append("<h2>").append(escape(heading)).append("</h2>\n");
        return this;
    }

    public HtmlReport paragraph(String text) {
        body.append("<p>").append(escape(text)).append("</p>\n");
        return this;
    }

    /** A verdict line in green (passed) or red. */
    public HtmlReport verdict(String text, boolean passed) {
        body.append("<p class=\"").append(passed ? "pass" : "fail").append("\"><strong>").append(escape(text))
                .append("</strong></p>\n");
        return this;
    }

    /** Lines of text kept as they are (problem lists, commands). */
    public HtmlReport preformatted(List<String> lines) {
        body.append("<pre>").append(escape(String.join("\n", lines))).append("</pre>\n");
        return this;
    }

    public HtmlReport table(List<String> header, List<List<String>> rows) {
        body.append(tableHtml(header, rows));
        return this;
    }

    /** Places what {@code content} adds at the top of the page, under the title: a summary known only at the end. */
    public HtmlReport atTop(Consumer<HtmlReport> content) {
        int start = body.length();
        content.accept(this);
        String added = body.substring(start);
        body.setLength(start);
        body.insert(top, added);
        return this;
    }

    private static String tableHtml(List<String> header, List<List<String>> rows) {
        StringBuilder html = new StringBuilder("<table>\n<tr>");
        header.forEach(h -> html.append("<th>").append(escape(h)).append("</th>"));
        html.append("</tr>\n");
        for (List<String> row : rows) {
            html.append("<tr>");
            for (String cell : row) {
                String text = cell == null ? "-" : cell;
                String cls = text.equals("yes") ? "yes" : text.equals("NO") || text.equals("BLOCKED") ? "no"
                        : text.matches("-?[\\d,]+") ? "num" : "";
                html.append(cls.isEmpty() ? "<td>" : "<td class=\"" + cls + "\">").append(escape(text)).append("</td>");
            }
            html.append("</tr>\n");
        }
        return html.append("</table>\n").toString();
    }

    /** Grouped bars: for each state, jobs before (grey-blue) and after (green), with the numbers on top. */
    public HtmlReport chart(List<String> states, String beforeLabel, Map<String, Long> before, String afterLabel,
                            Map<String, Long> after) {
        int group = 96;
        int bar = 34;
        int left = 40;
        int top = 36;
        int plot = 180;
        int width = left + states.size() * group + 20;
        long max = 1;
        for (String s : states) {
            max = Math.max(max, Math.max(before.getOrDefault(s, 0L), after.getOrDefault(s, 0L)));
        }
        StringBuilder svg = new StringBuilder();
        svg.append(String.format(Locale.ROOT, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\""
                + " viewBox=\"0 0 %d %d\" role=\"img\" aria-label=\"jobs per state, %s and %s\">%n",
                width, top + plot + 50, width, top + plot + 50, escape(beforeLabel), escape(afterLabel)));
        legend(svg, left, 14, "#8c9fb5", beforeLabel);
        legend(svg, left + 40 + 7 * beforeLabel.length(), 14, "#2da44e", afterLabel);
        svg.append(String.format(Locale.ROOT, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#d0d7de\"/>%n",
                left - 6, top + plot, width - 10, top + plot));
        for (int i = 0; i < states.size(); i++) {
            String state = states.get(i);
            int x = left + i * group;
            barOf(svg, x, top, plot, bar, before.getOrDefault(state, 0L), max, "#8c9fb5");
            barOf(svg, x + bar + 4, top, plot, bar, after.getOrDefault(state, 0L), max, "#2da44e");
            svg.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">%s</text>%n",
                    x + bar + 2, top + plot + 18, escape(state.replace('_', ' '))));
        }
        svg.append("</svg>\n");
        body.append(svg);
        return this;
    }

    private static void legend(StringBuilder svg, int x, int y, String colour, String label) {
        svg.append(String.format(Locale.ROOT, "<rect x=\"%d\" y=\"%d\" width=\"12\" height=\"12\" fill=\"%s\"/>"
                + "<text x=\"%d\" y=\"%d\">%s</text>%n", x, y - 10, colour, x + 18, y, escape(label)));
    }

    private static void barOf(StringBuilder svg, int x, int top, int plot, int width, long value, long max, String colour) {
        int h = (int) Math.round((double) value * plot / max);
        if (value > 0) {
            h = Math.max(h, 2);
        }
        int y = top + plot - h;
        svg.append(String.format(Locale.ROOT, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"%s\"/>"
                + "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">%d</text>%n",
                x, y, width, h, colour, x + width / 2, y - 4, value));
    }

    public String render() {
        return "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>" + escape(title)
                + "</title>\n<style>\n" + CSS + "</style>\n</head>\n<body>\n" + body + "</body>\n</html>\n";
    }

    public void write(Path file) {
        try {
            Files.writeString(file, render(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + file, e);
        }
    }

    static String escape(String text) {
        StringBuilder s = new StringBuilder(text.length());
        for (char c : text.toCharArray()) {
            switch (c) {
                case '<' -> s.append("&lt;");
                case '>' -> s.append("&gt;");
                case '&' -> s.append("&amp;");
                case '"' -> s.append("&quot;");
                case '\'' -> s.append("&#39;");
                default -> s.append(c);
            }
        }
        return s.toString();
    }
}
