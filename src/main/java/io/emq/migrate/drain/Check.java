package io.emq.migrate.drain;

/** One line of a verdict: what was checked, what the journal expects, what was found. */
public record Check(String name, String expected, String found, Outcome outcome) {

    /** PASS and FAIL decide the verdict; INFO reports a figure that decides nothing. */
    public enum Outcome { PASS, FAIL, INFO }

    static Check of(String name, long expected, long found) {
        return new Check(name, Long.toString(expected), Long.toString(found), expected == found ? Outcome.PASS : Outcome.FAIL);
    }

    static Check info(String name, long expected, long found) {
        return new Check(name, Long.toString(expected), Long.toString(found), Outcome.INFO);
    }

    public boolean failed() {
        return outcome == Outcome.FAIL;
    }

    /** The OK column: yes, NO, or - for a figure. */
    public String ok() {
        return switch (outcome) {
            case PASS -> "yes";
            case FAIL -> "NO";
            case INFO -> "-";
        };
    }
}
