package io.emq.migrate.runtime;

import io.emq.migrate.keyspace.BrandedId;
import io.emq.migrate.keyspace.Names;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/**
 * One entry of a queue's {@code flow:outbox}, as {@code complete} and {@code retry} push it for a
 * child whose parent lives in another queue (v2 protocol §4.9). Fields are NUL-joined; the last
 * field (result or error) is taken whole, so it may itself contain NUL bytes.
 */
sealed interface OutboxEntry {

    String parentQueue();

    String parentId();

    String childId();

    /** {@code <parent_q>\0<parent_id>\0<child_id>\0<result>}. */
    record Completed(String parentQueue, String parentId, String childId, byte[] result) implements OutboxEntry {
    }

    /** {@code \0fail\0<parent_q>\0<parent_id>\0<child_id>\0<fp|id>\0<error>}. */
    record Died(String parentQueue, String parentId, String childId, String policy, byte[] error) implements OutboxEntry {
    }

    /**
     * The entry, or empty when it is malformed: neither shape, an invalid parent queue name, a
     * parent or child that is not a branded id, or a policy other than {@code fp} and {@code id}.
     */
    static Optional<OutboxEntry> parse(byte[] entry) {
        if (entry.length > 0 && entry[0] == 0) {
            List<byte[]> f = split(entry, 7);
            if (f.size() != 7 || !"fail".equals(text(f.get(1)))) {
                return Optional.empty();
            }
            String policy = text(f.get(5));
            if (!policy.equals("fp") && !policy.equals("id")) {
                return Optional.empty();
            }
            return valid(new Died(text(f.get(2)), text(f.get(3)), text(f.get(4)), policy, f.get(6)));
        }
        List<byte[]> f = split(entry, 4);
        if (f.size() != 4) {
            return Optional.empty();
        }
        return valid(new Completed(text(f.get(0)), text(f.get(1)), text(f.get(2)), f.get(3)));
    }

    private static Optional<OutboxEntry> valid(OutboxEntry e) {
        boolean ok = Names.queueNameProblem(e.parentQueue()).isEmpty()
                && BrandedId.isValid(e.parentId()) && BrandedId.isValid(e.childId());
        return ok ? Optional.of(e) : Optional.empty();
    }

    /** Splits at NUL into at most {@code limit} fields, the last one keeping any further NULs. */
    private static List<byte[]> split(byte[] bytes, int limit) {
        List<byte[]> out = new ArrayList<>(limit);
        int from = 0;
        for (int i = 0; i < bytes.length && out.size() < limit - 1; i++) {
            if (bytes[i] == 0) {
                out.add(Arrays.copyOfRange(bytes, from, i));
                from = i + 1;
            }
        }
        out.add(Arrays.copyOfRange(bytes, from, bytes.length));
        return out;
    }

    private static String text(byte[] bytes) {
        return new String(bytes, StandardCharsets.US_ASCII);
    }
}
