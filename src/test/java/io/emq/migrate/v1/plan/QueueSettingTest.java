package io.emq.migrate.v1.plan;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Which v1 meta settings are carried into v2 and why the others are dropped (pure). */
class QueueSettingTest {
    private static List<String> read(Map<String, String> meta) {
        return QueueSetting.of(meta).stream().map(s -> s.field() + "=" + s.v1Value() + " " + (s.carried() ? "carried" : "dropped: " + s.note())).toList();
    }

    @Test
    void concurrencyAndACompleteRateLimitAreCarried() {
        assertEquals(List.of("concurrency=5 carried", "max=10 carried", "duration=1000 carried"),
                read(Map.of("concurrency", "5", "max", "10", "duration", "1000", "version", "bullmq:5.65.1", "paused", "1")));
        assertEquals(List.of(), read(Map.of("opts.maxLenEvents", "10000")), "nothing to carry, nothing listed");
    }

    @Test
    void badValuesAndHalfARateLimitAreDroppedWithTheReason() {
        assertEquals(List.of("concurrency=0 dropped: concurrency '0' is not a positive integer"),
                read(Map.of("concurrency", "0")));
        assertEquals(List.of("concurrency=-3 dropped: concurrency '-3' is not a positive integer"), read(Map.of("concurrency", "-3")));
        assertEquals(List.of("concurrency=99999999999999999 dropped: concurrency '99999999999999999' is not a positive integer"),
                read(Map.of("concurrency", "99999999999999999")));
        assertEquals(List.of("max=10 dropped: a rate limit needs both max and duration; duration is not set"),
                read(Map.of("max", "10")));
        assertEquals(List.of("duration=1000 dropped: a rate limit needs both max and duration; max is not set"),
                read(Map.of("duration", "1000")));
        assertEquals(List.of("max=10 dropped: duration '1e3' is not a positive integer; max and duration go together",
                        "duration=1e3 dropped: duration '1e3' is not a positive integer; max and duration go together"),
                read(Map.of("max", "10", "duration", "1e3")));
    }
}
