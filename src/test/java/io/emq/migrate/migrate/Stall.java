package io.emq.migrate.migrate;

import io.emq.migrate.server.LocalServer;

/** Checkpoints that stall a server ({@link LocalServer#stall}) when a migration reaches a named point of a step. */
final class Stall {
    private Stall() {
    }

    /** Stalls {@code server} at checkpoint {@code where} of step {@code version} (again at each hit: a stalled process stays stalled). */
    static Checkpoints at(LocalServer server, int version, String where) {
        return Checkpoints.observed((v, w) -> {
            if (v == version && w.equals(where)) {
                server.stall();
            }
        });
    }
}
