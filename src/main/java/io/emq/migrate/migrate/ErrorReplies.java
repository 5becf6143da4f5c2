package io.emq.migrate.migrate;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.IntStream;
import redis.clients.jedis.UnifiedJedis;

/**
 * How many error replies of each kind (their first word: {@code OOM}, {@code READONLY}, …) each server of a run sent,
 * as the server counts them ({@code INFO errorstats}, Redis 6.2 and later, Valkey), read as the run begins: the server
 * whose count of a refusal's word grew since is the one that refused, which the refusal itself does not tell. A server
 * that cannot be asked (a user without {@code +info}, a cluster) tells nothing.
 */
final class ErrorReplies {
    private final List<UnifiedJedis> servers;
    private final List<Optional<Map<String, Long>>> atStart;

    private ErrorReplies(List<UnifiedJedis> servers) {
        this.servers = servers;
        this.atStart = servers.stream().map(ErrorReplies::counts).toList();
    }

    /** The counts of {@code servers} now. */
    static ErrorReplies counted(List<UnifiedJedis> servers) {
        return new ErrorReplies(servers);
    }

    /** The index of the one server whose count of {@code said}'s first word grew since {@link #counted}; empty when none or several did. */
    Optional<Integer> grew(String said) {
        String kind = said.split(" ", 2)[0];
        List<Integer> grew = IntStream.range(0, servers.size()).filter(i -> atStart.get(i).isPresent()
                && counts(servers.get(i)).map(now -> now.getOrDefault(kind, 0L) > atStart.get(i).get().getOrDefault(kind, 0L))
                .orElse(false)).boxed().toList();
        return grew.size() == 1 ? Optional.of(grew.get(0)) : Optional.empty();
    }

    /** {@code errorstat_OOM:count=3} lines by kind; empty when the server cannot be asked. */
    private static Optional<Map<String, Long>> counts(UnifiedJedis server) {
        try {
            Map<String, Long> counts = new HashMap<>();
            for (String line : server.info("errorstats").split("\r?\n")) {
                if (line.startsWith("errorstat_") && line.contains(":count=")) {
                    String count = line.substring(line.indexOf(":count=") + 7).split(",", 2)[0];
                    counts.put(line.substring("errorstat_".length(), line.indexOf(':')), Long.parseLong(count.trim()));
                }
            }
            return Optional.of(counts);
        } catch (RuntimeException unaskable) {
            return Optional.empty();
        }
    }
}
