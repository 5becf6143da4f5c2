package io.emq.migrate.runtime;

/** The answer to an admission: the job id and whether a new row was written ({@code false}: a duplicate). */
public record Admission(String id, boolean admitted) {
    public boolean duplicate() {
        return !admitted;
    }
}
