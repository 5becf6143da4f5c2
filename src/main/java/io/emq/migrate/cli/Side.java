package io.emq.migrate.cli;

import java.util.Locale;

/** The two servers a command may talk to: the v1 source and the v2 target. */
enum Side {
    SOURCE("the v1 server"),
    TARGET("the v2 server or cluster");

    private final String description;

    Side(String description) {
        this.description = description;
    }

    /** {@code source}: the option word ({@code --source}) and the config file key. */
    String word() {
        return name().toLowerCase(Locale.ROOT);
    }

    String description() {
        return description;
    }
}
