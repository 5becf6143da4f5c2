package io.emq.migrate.migrate;

import io.emq.migrate.wire.AclAdvice;

/**
 * How a step's error reads in its report and its history row: what the server (or the client) said, without a Java
 * class name; a refusal of the user's ACL ({@code NOPERM}) also names the rule it lacks ({@link AclAdvice}).
 */
final class StepErrors {
    private StepErrors() {
    }

    static String of(RuntimeException e) {
        String said = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
        return said + AclAdvice.of(said).map(advice -> "; " + advice).orElse("");
    }
}
