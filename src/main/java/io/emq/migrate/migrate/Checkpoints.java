package io.emq.migrate.migrate;

import java.util.concurrent.atomic.AtomicLong;

/**
 * Named points inside each step where a migrator may die. Crash tests set {@code EMQ_CRASH_AT} (or
 * the system property {@code emq.crashAt}) to {@code <step version>:<n>}: the n-th checkpoint of
 * that step halts the JVM at once ({@code halt}) or, in-process, throws {@link InjectedCrash}
 * ({@code emq.crashMode=throw}). Without the setting a checkpoint costs one comparison.
 */
public final class Checkpoints {
    private final int crashVersion;
    private final long crashAt;
    private final boolean throwInstead;
    private final AtomicLong seen = new AtomicLong();
    private volatile int currentVersion = -1;

    /** Thrown at an injected crash point in-process; nothing after it runs, as after kill -9. */
    public static final class InjectedCrash extends RuntimeException {
        public InjectedCrash(String where) {
            super("injected crash at " + where);
        }
    }

    Checkpoints(String spec, boolean throwInstead) {
        int v = -1;
        long n = -1;
        if (spec != null && spec.matches("\\d+:\\d+")) {
            String[] p = spec.split(":");
            v = Integer.parseInt(p[0]);
            n = Long.parseLong(p[1]);
        }
        this.crashVersion = v;
        this.crashAt = n;
        this.throwInstead = throwInstead;
    }

    public static Checkpoints fromEnvironment() {
        String spec = System.getProperty("emq.crashAt", System.getenv("EMQ_CRASH_AT"));
        return new Checkpoints(spec, "throw".equals(System.getProperty("emq.crashMode")));
    }

    public static Checkpoints none() {
        return new Checkpoints(null, false);
    }

    public static Checkpoints throwingAt(int version, long n) {
        return new Checkpoints(version + ":" + n, true);
    }

    /** Counting restarts when a new step version begins (a step runs for every queue in turn). */
    void enterStep(int version) {
        if (version != currentVersion) {
            currentVersion = version;
            seen.set(0);
        }
    }

    /** Passes a crash point of the current step. */
    public void hit(String where) {
        if (currentVersion != crashVersion) {
            return;
        }
        if (seen.incrementAndGet() == crashAt) {
            String at = "V" + crashVersion + " #" + crashAt + " (" + where + ")";
            if (throwInstead) {
                throw new InjectedCrash(at);
            }
            System.err.println("emq-migrate: injected crash at " + at);
            System.err.flush();
            Runtime.getRuntime().halt(137);
        }
    }
}
