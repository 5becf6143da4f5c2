package io.emq.migrate.testing;

import java.util.List;
import java.util.function.Consumer;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.JedisMonitor;

/** {@code MONITOR} on one server connection, on a thread of its own: every command line the server shows goes to the consumer until {@link #close}. */
public final class Monitor implements AutoCloseable {
    private final Jedis connection;
    private final Thread watcher;

    public Monitor(Jedis connection, Consumer<String> commands) {
        this.connection = connection;
        this.watcher = new Thread(() -> {
            try {
                connection.monitor(new JedisMonitor() {
                    @Override
                    public void onCommand(String command) {
                        commands.accept(command);
                    }
                });
            } catch (RuntimeException closed) {
                // close() closed the connection: monitoring is over
            }
        });
        watcher.start();
    }

    /**
     * Echoes {@code text} through {@code marker} and waits (at most 10 s) until {@code seen}, the lines this monitor
     * gave its consumer, shows it: MONITOR streams behind the server, so every command the server ran before the
     * echo has then been seen.
     */
    public static void awaitShown(Jedis marker, List<String> seen, String text) throws InterruptedException {
        marker.echo(text);
        String echoed = "\"" + text + "\"";
        for (long deadline = System.nanoTime() + 10_000_000_000L; seen.stream().noneMatch(c -> c.contains(echoed))
                && System.nanoTime() < deadline; ) {
            Thread.sleep(10);
        }
    }

    /** Ends the monitoring (the server streams behind: wait for a marker of your own before closing). */
    @Override
    public void close() throws InterruptedException {
        connection.disconnect();
        watcher.join(2000);
    }
}
