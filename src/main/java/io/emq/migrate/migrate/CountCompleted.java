package io.emq.migrate.migrate;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import io.emq.migrate.v1.Bytes;
import io.emq.migrate.v1.JobFacts;
import io.emq.migrate.v1.QueueSnapshot;
import io.emq.migrate.v1.V1State;
import java.io.IOException;
import java.io.OutputStream;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * V80: completed v1 jobs have no v2 row; their number is folded into {@code metrics:completed} once, and the number
 * of failed ones (each a dead row since V50) into {@code metrics:failed} ({@link FinishedCounts}).
 * With {@code --archive-completed FILE} each completed job is first written as one JSON line
 * (queue, id, name, data, returnvalue, finishedOn, attemptsMade) into the file, beside the lines of the other
 * queues archived there; a re-run replaces the queue's lines ({@link CompletedArchive}).
 */
final class CountCompleted implements Step {
    private static final JsonFactory JSON = new JsonFactory();

    @Override
    public List<String> checkpoints() {
        return List.of("archive written", "before the fold");
    }

    @Override
    public Map<String, Long> apply(QueueMigration m) {
        long archived = 0;
        if (m.options.archiveCompleted().isPresent()) {
            archived = archive(m, m.snapshot());
            m.checkpoints.hit("archive written");
        }
        m.checkpoints.hit("before the fold");
        Map<FinishedCounts.Metric, Long> listed = FinishedCounts.fold(m, m.snapshot());
        Map<String, Long> counts = new LinkedHashMap<>();
        counts.put("completed", listed.get(FinishedCounts.Metric.COMPLETED));
        counts.put("failed", listed.get(FinishedCounts.Metric.FAILED));
        if (archived > 0) {
            counts.put("archived", archived);
        }
        return counts;
    }

    /**
     * Archives again the completed jobs {@code snap} lists when they are not those this run archived last (a v1 worker
     * finished jobs since, or a re-run is given the option after an earlier run counted them): a re-sync pass calls it
     * as it folds the counts, so the last one, under the pause, leaves the archive holding every completed job the
     * retirement then deletes. Nothing without {@code --archive-completed}, or when they are the same.
     */
    static void archiveAgain(QueueMigration m, QueueSnapshot snap) {
        if (m.options.archiveCompleted().isPresent() && !snap.jobs(V1State.COMPLETED).stream().map(JobFacts::id).toList().equals(m.archived)) {
            archive(m, snap);
        }
    }

    /**
     * Replaces this queue's lines in the archive ({@link CompletedArchive}) with one a completed job {@code snap} lists,
     * read a batch at a time; remembers which it archived.
     */
    private static long archive(QueueMigration m, QueueSnapshot snap) {
        List<JobFacts> jobs = snap.jobs(V1State.COMPLETED);
        long n = CompletedArchive.replace(m.options.archiveCompleted().get(), m.source.display(), out -> {
            for (int from = 0; from < jobs.size(); from += JobWriter.BATCH) {
                List<JobFacts> batch = jobs.subList(from, Math.min(jobs.size(), from + JobWriter.BATCH));
                List<Map<Bytes, Bytes>> hashes = JobWriter.readHashes(m, batch.stream().map(JobFacts::id).toList());
                for (int i = 0; i < batch.size(); i++) {
                    writeLine(out, m, batch.get(i), hashes.get(i));
                }
            }
            return jobs.size();
        });
        m.archived = jobs.stream().map(JobFacts::id).toList();
        return n;
    }

    private static void writeLine(OutputStream out, QueueMigration m, JobFacts job, Map<Bytes, Bytes> hash) throws IOException {
        JsonGenerator g = JSON.createGenerator(out);
        g.writeStartObject();
        g.writeStringField("queue", m.source.display());
        bytes(g, "id", job.id());
        bytes(g, "name", RowBuilder.field(hash, "name").orElse(Bytes.utf8("")));
        bytes(g, "data", RowBuilder.field(hash, "data").orElse(Bytes.utf8("")));
        Optional<Bytes> returnValue = RowBuilder.field(hash, "returnvalue");
        if (returnValue.isPresent()) {
            bytes(g, "returnvalue", returnValue.get());
        } else {
            g.writeNullField("returnvalue");
        }
        g.writeNumberField("finishedOn", job.finishedOn());
        g.writeNumberField("attemptsMade", job.attemptsMade());
        g.writeEndObject();
        g.flush();
        out.write('\n');
    }

    /** v1 bytes as the field's text when they are UTF-8, else as {@code <field>Base64}: a \xNN display could be a text id's too. */
    private static void bytes(JsonGenerator g, String field, Bytes value) throws IOException {
        if (value.isUtf8()) {
            g.writeStringField(field, value.utf8());
        } else {
            g.writeStringField(field + "Base64", Base64.getEncoder().encodeToString(value.raw()));
        }
    }
}
