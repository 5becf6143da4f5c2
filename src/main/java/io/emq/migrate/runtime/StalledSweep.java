package io.emq.migrate.runtime;

import java.util.List;

/** What a stall sweep did: ids requeued below the threshold, ids dead-lettered at it. */
public record StalledSweep(List<String> recovered, List<String> dead) {
}
