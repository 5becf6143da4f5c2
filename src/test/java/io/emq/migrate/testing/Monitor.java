package io.emq.migrate.testing;

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

    /** Ends the monitoring (the server streams behind: wait for a marker of your own before closing). */
    @Override
    public void close() throws InterruptedException {
        connection.disconnect();
        watcher.join(2000);
    }
}
