package io.emq.migrate.payload;

/** How a v1 job's {@code data} becomes the v2 {@code payload} (migration contract §5). */
public enum PayloadPolicy {
    /** A JSON object with the v1 {@code name}, the {@code data} (raw JSON, or a string with a flag) and the v1 provenance. */
    ENVELOPE("envelope", "payload = {name, data (raw when JSON, else a string with a flag), v1 provenance: queue, id, timestamp, opts}"),
    /** The v1 {@code data} bytes exactly. */
    DATA("data", "payload = the v1 data bytes exactly; the v1 name and opts are not kept");

    private final String wireName;
    private final String description;

    PayloadPolicy(String wireName, String description) {
        this.wireName = wireName;
        this.description = description;
    }

    public static java.util.Optional<PayloadPolicy> parse(String text) {
        for (PayloadPolicy p : values()) {
            if (p.wireName.equals(text)) {
                return java.util.Optional.of(p);
            }
        }
        return java.util.Optional.empty();
    }

    public String wireName() {
        return wireName;
    }

    public String description() {
        return description;
    }

    /** The v1 data bytes a v2 payload written under this policy carries (empty: an envelope that does not read). */
    public java.util.Optional<byte[]> v1Data(byte[] payload) {
        return this == DATA ? java.util.Optional.of(payload) : Envelope.recoverData(payload);
    }
}
