package io.emq.migrate.migrate;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.emq.migrate.keyspace.BrandedId;
import io.emq.migrate.v1.Bytes;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Which lane a migrated job waits in: none (the flat pending set), the one {@code --lane} names, or,
 * with {@code --lane-from FIELD}, one lane per value of a job field: {@code name} (the v1 job name)
 * or {@code group} ({@code opts.group.id}, as BullMQ Pro writes it). A value becomes the branded
 * group id {@code GRP} + base62 of the first 63 bits of its SHA-256, the same on every run; a job
 * without a value goes to the {@code --lane} lane, else to the lane of the empty value.
 */
public final class JobLanes {
    /** The fields {@code --lane-from} reads. */
    public static final List<String> FIELDS = List.of("name", "group");
    static final String NAMESPACE = "GRP";
    private static final ObjectMapper JSON = new ObjectMapper();

    private JobLanes() {
    }

    /** The job's lane and the value it came from ({@code null} for a fixed lane); empty for the flat pending set. */
    static Optional<Map.Entry<BrandedId, String>> of(MigrationOptions options, Map<Bytes, Bytes> hash) {
        if (options.laneFrom().isEmpty()) {
            return options.lane().map(l -> Map.entry(l, ""));
        }
        Optional<String> value = value(options.laneFrom().get(), hash);
        if (value.isEmpty() && options.lane().isPresent()) {
            return Optional.of(Map.entry(options.lane().get(), ""));
        }
        String v = value.orElse("");
        return Optional.of(Map.entry(mint(v), v));
    }

    /** The lane of one value. */
    public static BrandedId mint(String value) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(value.getBytes(StandardCharsets.UTF_8));
            return new BrandedId(NAMESPACE, ByteBuffer.wrap(digest).getLong() & Long.MAX_VALUE);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is required of every JVM", e);
        }
    }

    private static Optional<String> value(String field, Map<Bytes, Bytes> hash) {
        if (field.equals("name")) {
            return Optional.ofNullable(hash.get(Bytes.utf8("name"))).map(Bytes::display).filter(v -> !v.isEmpty());
        }
        Bytes opts = hash.get(Bytes.utf8("opts"));
        if (opts == null) {
            return Optional.empty();
        }
        try {
            JsonNode id = JSON.readTree(opts.raw()).path("group").path("id");
            return id.isValueNode() && !id.asText().isEmpty() ? Optional.of(id.asText()) : Optional.empty();
        } catch (IOException notJson) {
            return Optional.empty();
        }
    }
}
