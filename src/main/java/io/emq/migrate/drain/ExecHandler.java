package io.emq.migrate.drain;

import io.emq.migrate.runtime.Delivery;
import io.emq.migrate.runtime.JobAbandoned;
import io.emq.migrate.runtime.JobHandler;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Stream;

/**
 * Runs an operator's command for each job: {@code /bin/sh -c CMD} with the job's v2 payload, exactly
 * as stored, on standard input and {@code EMQ_QUEUE}, {@code EMQ_JOB_ID} and {@code EMQ_ATTEMPTS} in
 * the environment. Exit 0 completes the job; any other exit fails it with the last line of the
 * command's standard error (or its exit status), so the consumer retries it and dead-letters it at
 * max attempts. The command's standard output is discarded. {@link #stop()} ends the commands running
 * (a drain that exits before they returned) and starts no more; their jobs are abandoned, left to their lease.
 */
public final class ExecHandler implements JobHandler {
    private static final int STDERR_KEPT = 4096;
    /** How long a stopped command's processes have to exit on SIGTERM before they are killed. */
    private static final Duration POLITE_EXIT = Duration.ofSeconds(2);

    private final String command;
    /** The commands running now; guarded by itself, as is {@link #stopped}. */
    private final Set<Process> running = new HashSet<>();
    private boolean stopped;

    public ExecHandler(String command) {
        this.command = command;
    }

    @Override
    public void handle(Delivery job) throws Exception {
        ProcessBuilder pb = new ProcessBuilder("/bin/sh", "-c", command).redirectOutput(ProcessBuilder.Redirect.DISCARD);
        pb.environment().put("EMQ_QUEUE", job.queue());
        pb.environment().put("EMQ_JOB_ID", job.id());
        pb.environment().put("EMQ_ATTEMPTS", Long.toString(job.attempts()));
        Process process = start(pb);
        int status;
        String stderr;
        try {
            Thread feeder = new Thread(() -> feed(process.getOutputStream(), job.payload()), "emq-exec-stdin");
            feeder.start();
            stderr = tail(process.getErrorStream());
            status = process.waitFor();
            feeder.join();
        } finally {
            forget(process);
        }
        if (status != 0 && stopped()) {
            throw new JobAbandoned("the drain stopped the command");
        }
        if (status != 0) {
            String last = stderr.strip().lines().reduce((a, b) -> b).orElse("");
            throw new IllegalStateException("exit " + status + (last.isEmpty() ? "" : ": " + last));
        }
    }

    /**
     * Ends every command running now, each with its whole process tree (its descendants, then itself: SIGTERM, then
     * SIGKILL for those still running after {@link #POLITE_EXIT}), and starts no more: their jobs, and those not started,
     * are abandoned. Returns how many processes it ended.
     */
    public int stop() {
        List<ProcessHandle> processes;
        synchronized (running) {
            stopped = true;
            processes = running.stream().flatMap(ExecHandler::tree).toList();
        }
        end(processes);
        return processes.size();
    }

    private Process start(ProcessBuilder pb) throws IOException, JobAbandoned {
        synchronized (running) {
            if (stopped) {
                throw new JobAbandoned("the drain stopped its handler before this job's command started");
            }
            Process process = pb.start();
            running.add(process);
            return process;
        }
    }

    private void forget(Process process) {
        synchronized (running) {
            running.remove(process);
        }
    }

    private boolean stopped() {
        synchronized (running) {
            return stopped;
        }
    }

    /** A command's process tree, its descendants first. */
    private static Stream<ProcessHandle> tree(Process process) {
        return Stream.concat(process.descendants(), Stream.of(process.toHandle())).filter(ProcessHandle::isAlive);
    }

    /** SIGTERM to each process, a short wait for them all to exit, then SIGKILL to those still running. */
    private static void end(List<ProcessHandle> processes) {
        processes.forEach(ProcessHandle::destroy);
        try {
            CompletableFuture.allOf(processes.stream().map(ProcessHandle::onExit).toArray(CompletableFuture[]::new))
                    .get(POLITE_EXIT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException | ExecutionException stillRunning) {
            // killed below
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        processes.stream().filter(ProcessHandle::isAlive).forEach(ProcessHandle::destroyForcibly);
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
