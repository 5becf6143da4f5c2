package io.emq.migrate.bench;

import io.emq.migrate.migrate.*;
import io.emq.migrate.server.LocalServer;
import io.emq.migrate.wire.Endpoint;
import io.emq.migrate.wire.Wire;
import java.util.*;
import java.util.concurrent.*;
import redis.clients.jedis.UnifiedJedis;

public final class Scratch2 {
    public static void main(String[] args) throws Exception {
        int queues = Integer.parseInt(args[0]);
        int par = Integer.parseInt(args[1]);
        try (LocalServer server = LocalServer.start(); UnifiedJedis source = Endpoint.parse(server.uri()).open()) {
            for (int q = 0; q < queues; q++) V1QueueGenerator.addWaiting(source, "t" + q, 1, 4, 200);
            Map<Integer, long[]> wall = new ConcurrentSkipListMap<>();
            Map<Integer, Long> sum = new ConcurrentHashMap<>();
            Migrator.Listener l = new Migrator.Listener() {
                public void stepStarted(String q, StepDefinition s) { wall.computeIfAbsent(s.version(), v -> new long[]{System.nanoTime(), 0}); }
                public void stepFinished(String q, StepDefinition s, Map<String, Long> c, long ms) { wall.get(s.version())[1] = System.nanoTime(); sum.merge(s.version(), ms, Long::sum); }
            };
            long t0 = System.nanoTime();
            List<MigrationResult> r = new Migrator(Wire.unfenced(source), Wire.open(source), server.uri(), MigrationOptions.defaults(), Checkpoints.none()).parallel(par).listener(l).migrate(List.of("bull"), List.of());
            long t1 = System.nanoTime();
            System.out.printf("total %.1f s, ok %d%n", (t1 - t0) / 1e9, r.stream().filter(MigrationResult::ok).count());
            long prevEnd = t0;
            for (var e : wall.entrySet()) {
                System.out.printf("V%d wall %.2f s (gap before %.2f s), sum of queue ms %d%n", e.getKey(), (e.getValue()[1] - e.getValue()[0]) / 1e9, (e.getValue()[0] - prevEnd) / 1e9, sum.get(e.getKey()));
                prevEnd = e.getValue()[1];
            }
        }
    }
}
