package io.emq.migrate.drain;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

/** The first few problems in full and a count of all of them; thread-safe. */
final class Problems {
    static final int KEEP = 20;

    private final List<String> first = new ArrayList<>();
    private long count;

    /** Counts a problem; its text is built only while fewer than {@link #KEEP} are kept. */
    synchronized void add(Supplier<String> problem) {
        count++;
        if (first.size() < KEEP) {
            first.add(problem.get());
        }
    }

    synchronized List<String> first() {
        return List.copyOf(first);
    }

    synchronized long count() {
        return count;
    }
}
