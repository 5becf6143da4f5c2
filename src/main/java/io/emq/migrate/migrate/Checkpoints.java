package io.emq.migrate.migrate;

import java.io.IOException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Named points inside each step where a migrator may die, stall, or let the world move; each step
 * declares the names it passes ({@link Step#checkpoints()}). Crash tests set {@code EMQ_CRASH_AT}
 * (or the system property {@code emq.crashAt}) to {@code <step version>:<checkpoint>}, e.g.
 * {@code 30:rows written}, or {@code 30:rows written#3} for the third time that step passes it (a
 * checkpoint inside a loop): there the JVM halts at once ({@code halt}), or, in-process, throws
 * {@link InjectedCrash} ({@code emq.crashMode=throw}), or stops the whole process with SIGSTOP
 * ({@code EMQ_CRASH_MODE=stop}: a migrator frozen mid-step, lease and all, until it gets SIGCONT).
 * A spec that names a checkpoint its step does not declare is refused. Concurrency tests
 * {@link #observed observe} every checkpoint by its step and name, to run a v1 producer or worker
 * at exactly that point. Without either a checkpoint costs two comparisons.
 */
public final class Checkpoints {
    /** Told at every checkpoint; may block, or act on the servers, before the migrator goes on. */
    public interface Observer {
        void at(int version, String where);
    }

    private enum Mode { HALT, THROW, STOP }

    /** The {@code occurrence}-th time step {@code version} passes checkpoint {@code name}. */
    record CrashPoint(int version, String name, long occurrence) {
        private static final Pattern SPEC = Pattern.compile("(\\d+):([^#]+)(?:#([1-9]\\d*))?");

        /** Parses {@code <version>:<checkpoint>[#<k>]}, refused unless that step declares that checkpoint. */
        static CrashPoint parse(String spec) {
            Matcher m = SPEC.matcher(spec);
            if (!m.matches()) {
                throw new IllegalArgumentException("crash spec '" + spec + "' is not <step version>:<checkpoint>[#<k>]");
            }
            int version = Integer.parseInt(m.group(1));
            StepDefinition step = StepCatalog.load().byVersion(version).orElseThrow(() ->
                    new IllegalArgumentException("crash spec '" + spec + "': there is no step V" + version));
            if (!step.checkpoints().contains(m.group(2))) {
                throw new IllegalArgumentException("crash spec '" + spec + "': step V" + version + " (" + step.description()
                        + ") declares no checkpoint '" + m.group(2) + "'; it declares " + step.checkpoints());
            }
            return new CrashPoint(version, m.group(2), m.group(3) == null ? 1 : Long.parseLong(m.group(3)));
        }

        @Override
        public String toString() {
            return "V" + version + " " + name + (occurrence > 1 ? " #" + occurrence : "");
        }
    }

    private final CrashPoint crashAt;
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

    private Checkpoints(CrashPoint crashAt, Mode mode, Observer observer) {
        this.crashAt = crashAt;
        this.mode = mode;
        this.observer = observer;
    }

    public static Checkpoints fromEnvironment() {
        String spec = System.getProperty("emq.crashAt", System.getenv("EMQ_CRASH_AT"));
        String mode = System.getProperty("emq.crashMode", System.getenv("EMQ_CRASH_MODE"));
        return new Checkpoints(spec == null || spec.isEmpty() ? null : CrashPoint.parse(spec),
                "throw".equals(mode) ? Mode.THROW : "stop".equals(mode) ? Mode.STOP : Mode.HALT, null);
    }

    public static Checkpoints none() {
        return new Checkpoints(null, Mode.HALT, null);
    }

    /** Throws {@link InjectedCrash} at {@code spec} ({@code <version>:<checkpoint>[#<k>]}). */
    public static Checkpoints throwingAt(String spec) {
        return new Checkpoints(CrashPoint.parse(spec), Mode.THROW, null);
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
        if (crashAt == null || currentVersion != crashAt.version() || !where.equals(crashAt.name())) {
            return;
        }
        if (seen.incrementAndGet() == crashAt.occurrence()) {
            String at = crashAt.toString();
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
