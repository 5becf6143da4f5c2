package io.emq.migrate.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** The BullMQ 5.65.1 peer of the benchmarks: a script of {@code bench/peer} run by {@code node} (its bench/run-* installs it). */
final class Peer {
    private Peer() {
    }

    /** Starts {@code node bench/peer/<script> <args>}, its standard error inherited; its standard output is the caller's to read. */
    static Process start(String script, String... args) throws IOException {
        Path path = Path.of("bench", "peer", script);
        if (!Files.exists(path.resolveSibling("node_modules"))) {
            throw new IllegalStateException("run `npm install` in bench/peer first (the bench/run-* script that needs it does)");
        }
        List<String> command = new ArrayList<>(List.of("node", path.toString()));
        command.addAll(List.of(args));
        return new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
    }
}
