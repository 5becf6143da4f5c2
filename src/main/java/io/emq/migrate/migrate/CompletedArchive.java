package io.emq.migrate.migrate;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.Optional;

/**
 * The completed-jobs archive ({@code --archive-completed FILE}): one JSON line a completed v1 job, for every
 * queue archived into that file (each line names its queue first). A queue's archive rewrites the file whole:
 * the other queues' lines kept as they are, its own replaced by the ones given (a re-run leaves one line a
 * job), written beside the file and moved into place. One queue at a time: a lock in this process, and one on
 * {@code FILE.lock} between processes. A file holding a line that is not an archive line (a JSON object whose
 * first field is {@code queue}) is refused, untouched.
 */
public final class CompletedArchive {
    private static final JsonFactory JSON = new JsonFactory();
    private static final Object IN_PROCESS = new Object();

    /** Writes a queue's lines; returns how many. */
    interface Lines {
        long write(OutputStream out) throws IOException;
    }

    private CompletedArchive() {
    }

    /** Replaces the lines of {@code queue} (as the lines name it) in {@code file} with those {@code lines} writes; returns how many it wrote. */
    static long replace(Path file, String queue, Lines lines) {
        Path partial = file.resolveSibling(file.getFileName() + ".partial");
        synchronized (IN_PROCESS) {
            try (FileChannel lockFile = FileChannel.open(file.resolveSibling(file.getFileName() + ".lock"), StandardOpenOption.CREATE,
                    StandardOpenOption.WRITE); FileLock held = lockFile.lock()) {
                long written;
                try (OutputStream out = Files.newOutputStream(partial)) {
                    keepOthers(file, queue, out);
                    written = lines.write(out);
                }
                Files.move(partial, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
                return written;
            } catch (IOException e) {
                throw new MigrationRefused(MigrationRefused.Kind.ARCHIVE, "cannot write the completed-jobs archive " + file + " ("
                        + e + "): give --archive-completed a file this process can write, then migrate again (it resumes); nothing"
                        + " was deleted");
            }
        }
    }

    /**
     * Why {@code file} cannot be the completed-jobs archive, asked before a run writes anything: it holds a line that is
     * not an archive line (or it cannot be read); empty when it is one, or does not exist yet.
     */
    public static Optional<String> notAnArchive(Path file) {
        try {
            eachLine(file, (queue, line) -> { });
            return Optional.empty();
        } catch (MigrationRefused foreign) {
            return Optional.of(foreign.getMessage());
        } catch (IOException e) {
            return Optional.of("cannot read the completed-jobs archive " + file + " (" + e + ")");
        }
    }

    /** Copies the lines of {@code file} (when it exists) that other queues' archives wrote. */
    private static void keepOthers(Path file, String queue, OutputStream out) throws IOException {
        eachLine(file, (of, line) -> {
            if (!of.equals(queue)) {
                out.write(line.getBytes(StandardCharsets.UTF_8));
                out.write('\n');
            }
        });
    }

    /** One archive line, with the queue it names. */
    private interface ArchiveLine {
        void accept(String queue, String line) throws IOException;
    }

    /** Each line of {@code file} (none when it does not exist), with its queue; refused at the first that is not an archive line. */
    private static void eachLine(Path file, ArchiveLine each) throws IOException {
        if (!Files.exists(file)) {
            return;
        }
        long n = 0;
        try (BufferedReader in = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            for (String line = in.readLine(); line != null; line = in.readLine()) {
                n++;
                Optional<String> of = queueOf(line);
                if (of.isEmpty()) {
                    throw foreign(file, n);
                }
                each.accept(of.get(), line);
            }
        } catch (CharacterCodingException notText) {
            throw foreign(file, n + 1);
        }
    }

    private static MigrationRefused foreign(Path file, long line) {
        return new MigrationRefused(MigrationRefused.Kind.ARCHIVE, "the completed-jobs archive " + file + " holds a line that is"
                + " not an archive line (line " + line + "): give --archive-completed a new file, or one an earlier migration"
                + " wrote, then migrate again (it resumes); nothing was deleted, the file is untouched");
    }

    /** The queue an archive line names first; empty for any other line. */
    private static Optional<String> queueOf(String line) {
        try (JsonParser p = JSON.createParser(line)) {
            if (p.nextToken() == JsonToken.START_OBJECT && p.nextToken() == JsonToken.FIELD_NAME && p.currentName().equals("queue")
                    && p.nextToken() == JsonToken.VALUE_STRING) {
                return Optional.of(p.getText());
            }
            return Optional.empty();
        } catch (IOException notJson) {
            return Optional.empty();
        }
    }
}
