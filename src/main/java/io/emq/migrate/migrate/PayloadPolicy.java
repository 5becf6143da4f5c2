package io.emq.migrate.migrate;

import java.util.Locale;
import java.util.Optional;

/** How a v1 job becomes a v2 payload (contract §5); recorded in the journal. */
public enum PayloadPolicy {
    /** A JSON object with the v1 name, data and provenance; {@link Envelope} recovers the data bytes. */
    ENVELOPE,
    /** Exactly the v1 {@code data} bytes. */
    DATA;

    public String wireName() {
        return name().toLowerCase(Locale.ROOT);
    }

    public static Optional<PayloadPolicy> parse(String text) {
        for (PayloadPolicy p : values()) {
            if (p.wireName().equals(text)) {
                return Optional.of(p);
            }
        }
        return Optional.empty();
    }
}
