package io.emq.migrate.v1;

/** Which writer's shape a job hash has (spec v1-keyspace §2, §2.1, §8.2). */
public enum JobLayout {
    /** Node BullMQ 5.x: camelCase options, hash {@code priority}/{@code delay} are the truth. */
    NODE("node"),
    /** The v1 Elixir app: short option keys ({@code pri}, {@code del}, {@code at}, …); hash priority and delay are 0. */
    ELIXIR("v1-elixir"),
    /** BullMQ 4.x and older: {@code attemptsMade} / {@code stalledCounter} without {@code ats}/{@code atm}. */
    LEGACY("legacy");

    private final String wireName;

    JobLayout(String wireName) {
        this.wireName = wireName;
    }

    public String wireName() {
        return wireName;
    }
}
