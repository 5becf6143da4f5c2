package io.emq.migrate.migrate;

import java.util.Arrays;
import java.util.Locale;
import java.util.Optional;

/** A queue's migration as its journal header records it ({@link JournalHeader#STATE}). */
public enum MigrationState {
    PLANNED, RUNNING, VERIFIED, RETIRED, ABANDONED;

    public String wireName() {
        return name().toLowerCase(Locale.ROOT);
    }

    public static Optional<MigrationState> of(String text) {
        return Arrays.stream(values()).filter(s -> s.wireName().equals(text)).findFirst();
    }
}
