package io.emq.migrate.v1;

import java.util.List;

/**
 * The queues found under the prefixes, how many keys the prefixes hold, how many of those belong
 * to no queue (foreign: counted, never touched; a sample is kept), and how many keys lie outside
 * every prefix.
 */
public record DiscoveryResult(List<String> prefixes, List<QueueRef> queues, long keysUnderPrefixes,
                              long foreignKeys, List<Bytes> foreignSample, long keysOutsidePrefixes) {
    /** How many foreign keys are named in the report. */
    public static final int SAMPLE = 20;

    public DiscoveryResult {
        prefixes = List.copyOf(prefixes);
        queues = List.copyOf(queues);
        foreignSample = List.copyOf(foreignSample);
    }
}
