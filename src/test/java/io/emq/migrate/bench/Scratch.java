package io.emq.migrate.bench;

import io.emq.migrate.migrate.*;
import io.emq.migrate.server.LocalServer;
import io.emq.migrate.wire.Endpoint;
import io.emq.migrate.wire.Wire;
import java.util.List;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.JedisMonitor;
import redis.clients.jedis.UnifiedJedis;

public final class Scratch {
    public static void main(String[] args) throws Exception {
        int queues = Integer.parseInt(args[0]);
        int par = Integer.parseInt(args[1]);
        try (LocalServer server = LocalServer.start(); UnifiedJedis source = Endpoint.parse(server.uri()).open()) {
            for (int q = 0; q < queues; q++) V1QueueGenerator.addWaiting(source, "t" + q, 1, 4, 200);
            String[] hp = server.uri().replace("redis://", "").split(":");
            Thread t = new Thread(() -> new Jedis(hp[0], Integer.parseInt(hp[1])).monitor(new JedisMonitor() {
                public void onCommand(String c) { System.out.println("MON " + c); }
            }));
            t.setDaemon(true); t.start();
            Thread.sleep(300);
            List<MigrationResult> r = new Migrator(Wire.unfenced(source), Wire.open(source), server.uri(), MigrationOptions.defaults(), Checkpoints.none()).parallel(par).migrate(List.of("bull"), List.of());
            System.out.println(r);
            Thread.sleep(500);
        }
    }
}
