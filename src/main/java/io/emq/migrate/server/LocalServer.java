package io.emq.migrate.server;

import io.emq.migrate.wire.ServerState;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;

/**
 * A real server process on a free loopback port, with no persistence, in a temporary directory that
 * is removed on close. Used by the test harness and by the embedded demo.
 */
public final class LocalServer implements AutoCloseable {
    public static final String HOST = "127.0.0.1";

    private final ServerBinary binary;
    private final int port;
    private final Path dir;
    private final List<String> extraArgs;
    private volatile Process process;

    private LocalServer(ServerBinary binary, int port, Path dir, List<String> extraArgs, Process process) {
        this.binary = binary;
        this.port = port;
        this.dir = dir;
        this.extraArgs = extraArgs;
        this.process = process;
    }

    /** Starts a standalone server from the first binary {@link ServerBinary#find()} gives. */
    public static LocalServer start() {
        return start(requireBinary(), List.of());
    }

    public static ServerBinary requireBinary() {
        return ServerBinary.find().orElseThrow(() -> new IllegalStateException(
                "no server binary: install valkey-server or redis-server, or keep embedded-redis on the classpath"
                        + " (EMQ_SERVER=" + System.getenv(ServerBinary.FORCE_ENV) + ")"));
    }

    /** Starts a server with extra configuration arguments (for example cluster mode). */
    public static LocalServer start(ServerBinary binary, List<String> extraArgs) {
        IllegalStateException last = null;
        for (int attempt = 0; attempt < 5; attempt++) {
            int port = freePort();
            Path dir = tempDir();
            try {
                LocalServer server = new LocalServer(binary, port, dir, extraArgs, launch(binary, port, dir, extraArgs));
                if (server.awaitReady()) {
                    return server;
                }
                last = new IllegalStateException("server on port " + port + " did not answer PING: " + server.log());
                server.close();
            } catch (IOException e) {
                deleteTree(dir);
                throw new UncheckedIOException("cannot start " + binary.path(), e);
            }
        }
        throw last;
    }

    private static Process launch(ServerBinary binary, int port, Path dir, List<String> extraArgs) throws IOException {
        List<String> cmd = new ArrayList<>(List.of(binary.path().toString(),
                "--port", Integer.toString(port), "--bind", HOST, "--save", "", "--appendonly", "no",
                "--dir", dir.toString(), "--daemonize", "no", "--protected-mode", "no",
                "--repl-diskless-sync-delay", "0")); // a replica's first sync begins at once (the default waits 5 s for others)
        cmd.addAll(extraArgs);
        return new ProcessBuilder(cmd).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(dir.resolve("server.log").toFile())).start();
    }

    /**
     * Kills the server's process (SIGKILL, as a crash) and starts it again at once on the same port, empty (it keeps
     * nothing on disk): a server restarted without its data. Its clients' connections drop.
     */
    public void restartEmpty() {
        kill();
        relaunch();
    }

    /** Kills the server's process (SIGKILL, as a crash): its clients' connections drop, and new ones are refused until {@link #relaunch}. */
    public void kill() {
        try {
            process.destroyForcibly().waitFor();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /**
     * Starts the server {@link #kill} killed again, on the same port, in the same folder, with the same arguments: it holds
     * what its files kept (nothing but with persistence among its extra arguments, {@code --appendonly yes}).
     */
    public void relaunch() {
        try {
            process = launch(binary, port, dir, extraArgs);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot restart " + binary.path(), e);
        }
        if (!awaitReady()) {
            throw new IllegalStateException("server on port " + port + " did not answer PING after its restart: " + log());
        }
    }

    private boolean awaitReady() {
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (System.nanoTime() < deadline && process.isAlive()) {
            try (Jedis jedis = new Jedis(new HostAndPort(HOST, port),
                    DefaultJedisClientConfig.builder().resp2().timeoutMillis(500).build())) {
                if ("PONG".equals(jedis.ping())) {
                    return true;
                }
            } catch (RuntimeException notYet) {
                sleep(20);
            }
        }
        return false;
    }

    public int port() {
        return port;
    }

    public String uri() {
        return "redis://" + HOST + ":" + port;
    }

    public HostAndPort hostAndPort() {
        return new HostAndPort(HOST, port);
    }

    /** A replica of {@code master} ({@code --replicaof}, the same binary), returned once the master counts it online. */
    public static LocalServer startReplicaOf(LocalServer master) {
        long online = master.onlineReplicas();
        LocalServer replica = start(master.binary, List.of("--replicaof", HOST, Integer.toString(master.port)));
        try {
            master.awaitOnlineReplicas(online + 1);
            return replica;
        } catch (RuntimeException e) {
            replica.close();
            throw e;
        }
    }

    /** Waits, 30 s at most, until this server counts {@code replicas} replicas online ({@code INFO replication}). */
    void awaitOnlineReplicas(long replicas) {
        long deadline = System.nanoTime() + 30_000_000_000L;
        while (onlineReplicas() < replicas) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("the replicas of " + hostAndPort() + " were not online within 30 s");
            }
            sleep(25);
        }
    }

    /** How many replicas this server counts online ({@code INFO replication}). */
    private long onlineReplicas() {
        try (Jedis server = new Jedis(hostAndPort(), DefaultJedisClientConfig.builder().resp2().timeoutMillis(15_000).build())) {
            return ServerState.onlineReplicaLines(server.info("replication")).count();
        }
    }

    /**
     * Stops the server's process where it is (SIGSTOP), as a server stalled by its machine: it answers nothing, and its
     * peers and clients keep it connected, until {@link #resume} (SIGCONT).
     */
    public void stall() {
        signal("-STOP");
    }

    /** Lets the process {@link #stall} stopped run on; nothing when it runs. */
    public void resume() {
        signal("-CONT");
    }

    private void signal(String signal) {
        try {
            int exit = new ProcessBuilder("kill", signal, Long.toString(process.pid())).start().waitFor();
            if (exit != 0) {
                throw new IllegalStateException("kill " + signal + " " + process.pid() + " exited " + exit);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    public ServerBinary binary() {
        return binary;
    }

    /** The server's own log, for diagnostics. */
    public String log() {
        try {
            return Files.readString(dir.resolve("server.log"));
        } catch (IOException e) {
            return "(no log)";
        }
    }

    @Override
    public void close() {
        process.destroy();
        try {
            if (!process.waitFor(5, java.util.concurrent.TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor();
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
        deleteTree(dir);
    }

    static int freePort() {
        try (ServerSocket socket = new ServerSocket(0, 1, java.net.InetAddress.getByName(HOST))) {
            socket.setReuseAddress(true);
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException("no free loopback port", e);
        }
    }

    private static Path tempDir() {
        try {
            return Files.createTempDirectory("emq-server-");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static void deleteTree(Path dir) {
        try (Stream<Path> paths = Files.walk(dir)) {
            paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException ignored) {
            // best effort: the directory lives under the system temp dir
        }
    }

    static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
