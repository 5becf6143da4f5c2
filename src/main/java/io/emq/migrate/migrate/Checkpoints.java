package io.emq.migrate.migrate;

import java.io.IOException;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Named points inside each step where a migrator may die, stall, or let the world move. Crash tests
 * set {@code EMQ_CRASH_AT} (or the system property {@code emq.crashAt}) to {@code <step version>:<n>}:
 * the n-th checkpoint of that step halts the JVM at once ({@code halt}), or, in-process, throws
 * {@link InjectedCrash} ({@code emq.crashMode=throw}), or stops the whole process with SIGSTOP
 * ({@code EMQ_CRASH_MODE=stop}: a migrator frozen mid-step, lease and all, until it gets SIGCONT).
 * Concurrency tests {@link #observed observe} every checkpoint by its step and name, to run a v1
 * producer or worker at exactly that point. Without either a checkpoint costs one comparison.
 */
public final class Checkpoints {
    /** Told at every checkpoint; may block, or act on the servers, before the migrator goes on. */
    public interface Observer {
        void at(int version, String where);
    }

    private enum Mode { HALT, THROW, STOP }

    private final int crashVersion;
    private final long crashAt;
    private final Mode mode;
    private final Observer observer;
    private final AtomicLong seen = new AtomicLong();
    private volatile int currentVersion = -1;

    /** Thrown at an injected crash point in-process; nothing after it runs, as after kill -9. */
    public static final class InjectedCrash extends RuntimeException {
        public InjectedCrash(String where) {
            super("injected crash at " + where);
        }
    }

    private Checkpoints(String spec, Mode mode, Observer observer) {
        int v = -1;
        long n = -1;
        if (spec != null && spec.matches("\\d+:\\d+")) {
            String[] p = spec.split(":");
            v = Integer.parseInt(p[0]);
            n = Long.parseLong(p[1]);
        }
        this.crashVersion = v;
        this.crashAt = n;
        this.mode = mode;
        this.observer = observer;
    }

    public static Checkpoints fromEnvironment() {
        String spec = System.getProperty("emq.crashAt", System.getenv("EMQ_CRASH_AT"));
        String mode = System.getProperty("emq.crashMode", System.getenv("EMQ_CRASH_MODE"));
        return new Checkpoints(spec, "throw".equals(mode) ? Mode.THROW : "stop".equals(mode) ? Mode.STOP : Mode.HALT, null);
    }

    public static Checkpoints none() {
        return new Checkpoints(null, Mode.HALT, null);
    }

    public static Checkpoints throwingAt(int version, long n) {
        return new Checkpoints(version + ":" + n, Mode.THROW, null);
    }

    /** Every checkpoint is told to {@code observer} (which may throw {@link InjectedCrash} itself). */
    public static Checkpoints observed(Observer observer) {
        return new Checkpoints(null, Mode.HALT, observer);
    }

    /** Counting restarts when a new step version begins (a step runs for every queue in turn). */
    void enterStep(int version) {
        if (version != currentVersion) {
            currentVersion = version;
            seen.set(0);
        }
    }

    /** Passes a checkpoint of the current step. */
    public void hit(String where) {
        if (observer != null) {
            observer.at(currentVersion, where);
        }
        if (currentVersion != crashVersion) {
            return;
        }
        if (seen.incrementAndGet() == crashAt) {
            String at = "V" + crashVersion + " #" + crashAt + " (" + where + ")";
            switch (mode) {
                case THROW -> throw new InjectedCrash(at);
                case STOP -> stop(at);
                case HALT -> {
                    System.err.println("emq-migrate: injected crash at " + at);
                    System.err.flush();
                    Runtime.getRuntime().halt(137);
                }
            }
        }
    }

    /** Freezes this whole process (every thread, the lease's heartbeat too) until someone sends SIGCONT. */
    private static void stop(String at) {
        System.err.println("emq-migrate: stopped at " + at);
        System.err.flush();
        try {
            new ProcessBuilder("kill", "-STOP", Long.toString(ProcessHandle.current().pid())).inheritIO().start().waitFor();
        } catch (IOException e) {
            throw new IllegalStateException("cannot stop at " + at, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
