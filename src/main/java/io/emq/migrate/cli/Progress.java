package io.emq.migrate.cli;

import io.emq.migrate.wire.DaemonThreads;
import java.io.PrintStream;
import java.time.Duration;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

/**
 * Progress of long work (scan, migrate, drain). On a terminal: one bar redrawn in place with the
 * count, rate and ETA. Otherwise (a pipe, a log, CI): a plain line every few seconds while the count
 * moves or the work waits on a server ({@link #waitingFor}), and one at the end. A total of 0 means
 * unknown: the count and rate are shown, no bar or ETA. Thread-safe: {@link #advance} may be called
 * from any thread.
 */
public final class Progress implements AutoCloseable {
    private static final int BAR_WIDTH = 30;
    private static final Duration REDRAW = Duration.ofMillis(100);
    private static final Duration PLAIN_EVERY = Duration.ofSeconds(5);

    private final PrintStream out;
    private final boolean terminal;
    private volatile long total;
    private final String unit;
    private final long startNanos = System.nanoTime();
    private final AtomicLong done = new AtomicLong();
    private final ScheduledExecutorService ticker;
    private volatile String label;
    private volatile Supplier<Optional<String>> waitingFor = Optional::empty;
    private long printedAt = -1;

    private Progress(String label, long total, String unit, PrintStream out, boolean terminal, Duration every) {
        this.label = label;
        this.total = total;
        this.unit = unit;
        this.out = out;
        this.terminal = terminal;
        this.ticker = Executors.newSingleThreadScheduledExecutor(DaemonThreads.named("emq-progress"));
        ticker.scheduleAtFixedRate(this::tick, every.toMillis(), every.toMillis(), TimeUnit.MILLISECONDS);
    }

    /**
     * A bar redrawn in place when {@code out} is a terminal, plain lines every 5 s otherwise;
     * {@code unit} names what is counted ({@code jobs}, {@code keys}).
     */
    public static Progress start(String label, long total, String unit, PrintStream out, boolean terminal) {
        return start(label, total, unit, out, terminal, terminal ? REDRAW : PLAIN_EVERY);
    }

    /** As {@link #start(String, long, String, PrintStream)} with the mode and the interval chosen by the caller. */
    public static Progress start(String label, long total, String unit, PrintStream out, boolean terminal, Duration every) {
        return new Progress(label, total, unit, out, terminal, every);
    }

    public void advance(long n) {
        done.addAndGet(n);
    }

    /**
     * The work is complete: the final figures count what was done as all of it. For a total given as an upper bound
     * (a scan's: every key of the database, where only those under the prefixes are counted), which would otherwise end
     * below 100 % with an ETA.
     */
    public void complete() {
        total = done.get();
    }

    /**
     * What the work waits on, asked at each redraw or plain line: while it names something ({@code the target ..., which
     * has not answered for 15 s}), the bar says so, and off a terminal a line says so every time, the count moving or not.
     */
    public void waitingFor(Supplier<Optional<String>> what) {
        this.waitingFor = what;
    }

    /** Renames the work in progress (the step or queue now running). */
    public void label(String text) {
        this.label = text;
    }

    /** Stops the ticker and prints the final figures. */
    @Override
    public void close() {
        ticker.shutdownNow();
        synchronized (this) {
            if (terminal) {
                out.print("\r" + bar(true) + "\u001b[K\n");
            } else {
                out.println(line(true) + " (done)");
            }
            out.flush();
        }
    }

    private synchronized void tick() {
        if (ticker.isShutdown()) {
            return;
        }
        String waiting = waitingFor.get().map(what -> ", waiting for " + what).orElse("");
        if (terminal) {
            out.print("\r" + bar(false) + waiting + "\u001b[K");
        } else if (!waiting.isEmpty()) {
            out.println(line(false) + waiting);
        } else if (done.get() != printedAt) {
            printedAt = done.get();
            out.println(line(false));
        }
        out.flush();
    }

    /** {@code label [######······] 1234/5000 jobs (24%), 812 jobs/s, ETA 5s}; once {@code ended}, the time taken instead of an ETA. */
    String bar(boolean ended) {
        long n = done.get();
        long total = this.total;
        StringBuilder s = new StringBuilder(label).append(' ');
        if (total > 0) {
            int filled = (int) Math.min(BAR_WIDTH, n * BAR_WIDTH / total);
            s.append('[').append("#".repeat(filled)).append("·".repeat(BAR_WIDTH - filled)).append("] ");
        }
        return s.append(figures(n, total, ended)).toString();
    }

    /** {@code label: 1234/5000 jobs (24%), 812 jobs/s, ETA 5s}; once {@code ended}, the time taken instead of an ETA. */
    String line(boolean ended) {
        return label + ": " + figures(done.get(), total, ended);
    }

    private String figures(long n, long total, boolean ended) {
        double seconds = (System.nanoTime() - startNanos) / 1e9;
        double rate = seconds <= 0 ? 0 : n / seconds;
        StringBuilder s = new StringBuilder(String.format(Locale.ROOT, "%,d", n));
        if (total > 0) {
            s.append('/').append(String.format(Locale.ROOT, "%,d", Math.max(n, total)));
        }
        s.append(' ').append(unit);
        if (total > 0) {
            s.append(String.format(Locale.ROOT, " (%d%%)", Math.min(100, n * 100 / total)));
        }
        s.append(String.format(Locale.ROOT, ", %.0f %s/s", rate, unit));
        if (!ended && total > 0 && n < total && rate > 0) {
            s.append(", ETA ").append(eta((long) Math.ceil((total - n) / rate)));
        } else {
            s.append(String.format(Locale.ROOT, ", %.1fs", seconds));
        }
        return s.toString();
    }

    static String eta(long seconds) {
        if (seconds < 60) {
            return seconds + "s";
        }
        if (seconds < 3600) {
            return String.format(Locale.ROOT, "%dm%02ds", seconds / 60, seconds % 60);
        }
        return String.format(Locale.ROOT, "%dh%02dm", seconds / 3600, seconds % 3600 / 60);
    }
}
