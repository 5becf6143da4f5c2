package io.emq.migrate.server;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Locale;
import java.util.Optional;

/**
 * Where a local server binary comes from: {@code valkey-server} or {@code redis-server} on PATH, else
 * the Linux {@code redis-server} (6.2) shipped inside {@code com.github.codemonstur:embedded-redis}.
 * {@code EMQ_SERVER=valkey|redis|embedded} forces one source.
 */
public record ServerBinary(String source, Path path) {
    public static final String FORCE_ENV = "EMQ_SERVER";

    /** Finds a binary by the house order, honouring {@value #FORCE_ENV}; empty when none fits. */
    public static Optional<ServerBinary> find() {
        String forced = System.getenv(FORCE_ENV);
        if (forced != null && !forced.isBlank()) {
            return switch (forced.trim().toLowerCase(Locale.ROOT)) {
                case "valkey" -> onPath("valkey-server", "valkey");
                case "redis" -> onPath("redis-server", "redis");
                case "embedded" -> embedded();
                default -> Optional.empty();
            };
        }
        return onPath("valkey-server", "valkey").or(() -> onPath("redis-server", "redis")).or(ServerBinary::embedded);
    }

    static Optional<ServerBinary> onPath(String command, String source) {
        String path = System.getenv("PATH");
        if (path == null) {
            return Optional.empty();
        }
        for (String dir : path.split(java.io.File.pathSeparator)) {
            Path candidate = Path.of(dir, command);
            if (Files.isRegularFile(candidate) && Files.isExecutable(candidate)) {
                return Optional.of(new ServerBinary(source, candidate));
            }
        }
        return Optional.empty();
    }

    /** Extracts the embedded-redis Linux binary for this CPU into a temporary file. */
    static Optional<ServerBinary> embedded() {
        String arch = System.getProperty("os.arch", "");
        String os = System.getProperty("os.name", "").toLowerCase(Locale.ROOT);
        if (!os.contains("linux")) {
            return Optional.empty();
        }
        String resource = switch (arch) {
            case "amd64", "x86_64" -> "/redis-server-6.2.6-v5-linux-amd64";
            case "aarch64", "arm64" -> "/redis-server-6.2.7-linux-arm64";
            default -> null;
        };
        if (resource == null) {
            return Optional.empty();
        }
        try (InputStream in = ServerBinary.class.getResourceAsStream(resource)) {
            if (in == null) {
                return Optional.empty();
            }
            Path file = Files.createTempFile("emq-redis-server-", "");
            Files.copy(in, file, StandardCopyOption.REPLACE_EXISTING);
            file.toFile().setExecutable(true);
            file.toFile().deleteOnExit();
            return Optional.of(new ServerBinary("embedded", file));
        } catch (IOException e) {
            return Optional.empty();
        }
    }
}
