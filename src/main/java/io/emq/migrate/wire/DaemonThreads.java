package io.emq.migrate.wire;

import java.util.concurrent.ThreadFactory;

/** Threads that never keep the JVM alive on their own: every pool this code starts (workers, heartbeats, readers, tickers). */
public final class DaemonThreads {
    private DaemonThreads() {
    }

    /** Makes daemon threads that all bear {@code name}. */
    public static ThreadFactory named(String name) {
        return r -> {
            Thread t = new Thread(r, name);
            t.setDaemon(true);
            return t;
        };
    }
}
