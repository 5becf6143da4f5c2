package io.emq.migrate.v1;

import java.util.List;

/**
 * The queues found under the prefixes, how many keys the prefixes hold, how many of those belong
 * to no queue (foreign: counted, never touched; a sample is kept), how many keys lie outside
 * every prefix, and the prefixes among those keys under which some look like v1 queues (when the discovery looked:
 * {@link Discovery#outsideToo}; else none).
 */
public record DiscoveryResult(List<String> prefixes, List<QueueRef> queues, long keysUnderPrefixes,
                              long foreignKeys, List<Bytes> foreignSample, long keysOutsidePrefixes, List<String> otherPrefixes) {
    /** How many foreign keys are named in the report. */
    public static final int SAMPLE = 20;

    public DiscoveryResult {
        prefixes = List.copyOf(prefixes);
        queues = List.copyOf(queues);
        foreignSample = List.copyOf(foreignSample);
        otherPrefixes = List.copyOf(otherPrefixes);
    }
}
