package io.emq.migrate.drain;

import io.emq.migrate.runtime.Delivery;
import io.emq.migrate.runtime.JobHandler;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;

/**
 * Runs an operator's command for each job: {@code /bin/sh -c CMD} with the job's v2 payload, exactly
 * as stored, on standard input and {@code EMQ_QUEUE}, {@code EMQ_JOB_ID} and {@code EMQ_ATTEMPTS} in
 * the environment. Exit 0 completes the job; any other exit fails it with the last line of the
 * command's standard error (or its exit status), so the consumer retries it and dead-letters it at
 * max attempts. The command's standard output is discarded.
 */
public final class ExecHandler implements JobHandler {
    private static final int STDERR_KEPT = 4096;

    private final String command;

    public ExecHandler(String command) {
        this.command = command;
    }

    @Override
    public void handle(Delivery job) throws Exception {
        ProcessBuilder pb = new ProcessBuilder("/bin/sh", "-c", command).redirectOutput(ProcessBuilder.Redirect.DISCARD);
        pb.environment().put("EMQ_QUEUE", job.queue());
        pb.environment().put("EMQ_JOB_ID", job.id());
        pb.environment().put("EMQ_ATTEMPTS", Long.toString(job.attempts()));
        Process process = pb.start();
        Thread feeder = new Thread(() -> feed(process.getOutputStream(), job.payload()), "emq-exec-stdin");
        feeder.start();
        String stderr = tail(process.getErrorStream());
        int status = process.waitFor();
        feeder.join();
        if (status != 0) {
            String last = stderr.strip().lines().reduce((a, b) -> b).orElse("");
            throw new IllegalStateException("exit " + status + (last.isEmpty() ? "" : ": " + last));
        }
    }

    /** Writes the payload to the command; a command that does not read it all is not an error. */
    private static void feed(OutputStream stdin, byte[] payload) {
        try (stdin) {
            stdin.write(payload);
        } catch (IOException closedEarly) {
            // the command exited or closed its input; its exit status decides
        }
    }

    private static String tail(InputStream stderr) throws IOException {
        ByteArrayOutputStream kept = new ByteArrayOutputStream();
        byte[] buffer = new byte[8192];
        for (int n; (n = stderr.read(buffer)) > 0; ) {
            kept.write(buffer, 0, n);
            if (kept.size() > 2 * STDERR_KEPT) {
                byte[] all = kept.toByteArray();
                kept.reset();
                kept.write(all, all.length - STDERR_KEPT, STDERR_KEPT);
            }
        }
        return kept.toString(StandardCharsets.UTF_8);
    }
}
