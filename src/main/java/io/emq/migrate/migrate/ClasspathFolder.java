package io.emq.migrate.migrate;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.List;
import java.util.TreeSet;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.stream.Stream;

/**
 * The file names directly inside one folder of the classpath, whether it is a directory (a build
 * tree) or a folder inside a jar, as Flyway's scanner finds migrations: so a step is found by being
 * there, never by a list kept beside it.
 */
final class ClasspathFolder {
    private ClasspathFolder() {
    }

    /**
     * Names (not paths) of the files in {@code folder} (e.g. {@code migrations}), sorted, each once:
     * when the folder is on the classpath twice (a build tree and a jar of it), a name is the file the
     * class loader serves first, as for any resource.
     */
    static List<String> list(String folder) {
        return list(ClasspathFolder.class.getClassLoader(), folder);
    }

    static List<String> list(ClassLoader loader, String folder) {
        List<String> out = new ArrayList<>();
        try {
            Enumeration<URL> roots = loader.getResources(folder);
            while (roots.hasMoreElements()) {
                URL root = roots.nextElement();
                switch (root.getProtocol()) {
                    case "file" -> listDirectory(Path.of(root.toURI()), out);
                    case "jar" -> listJar(root, folder, out);
                    default -> throw new IllegalStateException("cannot list " + root + ": not a directory or a jar");
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot list the classpath folder " + folder, e);
        } catch (URISyntaxException e) {
            throw new IllegalStateException("cannot list the classpath folder " + folder, e);
        }
        return List.copyOf(new TreeSet<>(out));
    }

    private static void listDirectory(Path dir, List<String> out) throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            files.filter(Files::isRegularFile).forEach(p -> out.add(p.getFileName().toString()));
        }
    }

    private static void listJar(URL root, String folder, List<String> out) throws IOException {
        String spec = root.getPath(); // file:/…/emq-migrate.jar!/migrations
        String jarPath = spec.substring("file:".length(), spec.indexOf("!/"));
        String prefix = folder + "/";
        try (JarFile jar = new JarFile(java.net.URLDecoder.decode(jarPath, java.nio.charset.StandardCharsets.UTF_8))) {
            for (Enumeration<JarEntry> e = jar.entries(); e.hasMoreElements(); ) {
                String name = e.nextElement().getName();
                if (name.startsWith(prefix) && name.length() > prefix.length() && name.indexOf('/', prefix.length()) < 0) {
                    out.add(name.substring(prefix.length()));
                }
            }
        }
    }
}
