package io.emq.migrate.migrate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Step files are found by listing a classpath folder, in a build tree and inside a jar alike. */
class ClasspathFolderTest {
    @Test
    void aFolderInsideAJarListsItsOwnFilesOnly(@TempDir Path dir) throws Exception {
        Path jar = dir.resolve("steps with space.jar");
        try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(jar))) {
            for (String name : List.of("migrations/", "migrations/V20__b.json", "migrations/V10__a.json",
                    "migrations/nested/V30__c.json", "other/V40__d.json")) {
                out.putNextEntry(new JarEntry(name));
                if (!name.endsWith("/")) {
                    out.write('{');
                    out.write('}');
                }
                out.closeEntry();
            }
        }
        try (URLClassLoader loader = new URLClassLoader(new URL[] {jar.toUri().toURL()}, null)) {
            assertEquals(List.of("V10__a.json", "V20__b.json"), ClasspathFolder.list(loader, "migrations"));
        }
    }

    @Test
    void theBuildTreeListsEveryStepFileOfThisRelease() throws Exception {
        List<String> files = ClasspathFolder.list("migrations");
        try (var tree = Files.list(Path.of("migrations"))) {
            assertEquals(tree.map(p -> p.getFileName().toString()).sorted().toList(), files);
        }
        assertTrue(files.contains("V120__retire_source.json"), files.toString());
    }
}
