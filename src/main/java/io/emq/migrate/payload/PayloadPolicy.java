package io.emq.migrate.payload;

import java.util.Arrays;
import java.util.Locale;
import java.util.Optional;

/** How a v1 job's {@code data} becomes the v2 {@code payload} (migration contract §5). */
public enum PayloadPolicy {
    /** A JSON object with the v1 {@code name}, the {@code data} (raw JSON, or a string with a flag) and the v1 provenance. */
    ENVELOPE("payload = {name, data (raw when JSON, else a string with a flag), v1 provenance: queue, id, timestamp, opts}"),
    /** The v1 {@code data} bytes exactly. */
    DATA("payload = the v1 data bytes exactly; the v1 name and opts are not kept");

    private final String description;

    PayloadPolicy(String description) {
        this.description = description;
    }

    /** The policy a {@code --payload} word (or a journal) names. */
    public static Optional<PayloadPolicy> parse(String text) {
        return Arrays.stream(values()).filter(p -> p.wireName().equals(text)).findFirst();
    }

    /** {@code envelope} or {@code data}. */
    public String wireName() {
        return name().toLowerCase(Locale.ROOT);
    }

    public String description() {
        return description;
    }

    /** The v1 data bytes a v2 payload written under this policy carries (empty: an envelope that does not read). */
    public Optional<byte[]> v1Data(byte[] payload) {
        return this == DATA ? Optional.of(payload) : Envelope.recoverData(payload);
    }
}
