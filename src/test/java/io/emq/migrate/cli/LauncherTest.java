package io.emq.migrate.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code bin/emq-migrate} reached through symlinks (one on PATH, pointing at another) runs the jar beside the sources it
 * points at, not one beside the link. The script runs as it is, in a copy of the project that holds only it and a jar,
 * with a {@code java} on PATH that prints what it was given (and an {@code mvn} that fails, should it try to build).
 */
class LauncherTest {
    @Test
    void aSymlinkOnPathRunsTheJarBesideTheScriptItPointsAt(@TempDir Path dir) throws Exception {
        Path project = dir.resolve("project");
        Path script = project.resolve("bin/emq-migrate");
        Files.createDirectories(script.getParent());
        Files.copy(Path.of("bin/emq-migrate"), script, StandardCopyOption.COPY_ATTRIBUTES);
        Files.createDirectories(project.resolve("target"));
        Files.createFile(project.resolve("target/emq-migrate.jar"));
        Path tools = dir.resolve("tools");
        executable(tools.resolve("java"), "echo \"$@\"");
        executable(tools.resolve("mvn"), "exit 1");
        Path elsewhere = Files.createDirectories(dir.resolve("elsewhere"));
        Files.createSymbolicLink(elsewhere.resolve("em"), script);
        Path onPath = Files.createDirectories(dir.resolve("on-path"));
        Files.createSymbolicLink(onPath.resolve("emq-migrate"), Path.of("../elsewhere/em"));

        // as an operator calls it: by its bare name, found on PATH
        ProcessBuilder pb = new ProcessBuilder("sh", "-c", "emq-migrate version").redirectErrorStream(true);
        pb.environment().remove("EMQ_JAVA_OPTS");
        pb.environment().put("PATH", onPath + ":" + tools + ":" + System.getenv("PATH"));
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        p.waitFor(30, TimeUnit.SECONDS);
        assertEquals(0, p.exitValue(), out);
        assertEquals("-jar " + project.resolve("target/emq-migrate.jar") + " version", out.strip());
        assertFalse(Files.exists(dir.resolve("target")), "nothing made beside the link");
    }

    private static void executable(Path file, String body) throws IOException {
        Files.createDirectories(file.getParent());
        Files.writeString(file, "#!/bin/sh\n" + body + "\n");
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rwxr-xr-x"));
    }
}
