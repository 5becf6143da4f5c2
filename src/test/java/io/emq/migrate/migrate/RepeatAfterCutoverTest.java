package io.emq.migrate.migrate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.emq.migrate.runtime.Consumer;
import io.emq.migrate.runtime.JobHandler;
import io.emq.migrate.runtime.Jobs;
import io.emq.migrate.testing.RealServerExtension;
import io.emq.migrate.wire.Wire;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** A migrated BullMQ {@code every} scheduler keeps producing after cutover, once per occurrence. */
class RepeatAfterCutoverTest {
    @RegisterExtension
    static final RealServerExtension SERVER = RealServerExtension.standalone();

    @Test
    void aMigratedEverySchedulerFiresOncePerOccurrenceUnderTwoConsumers() throws Exception {
        MigrationHarness.load(SERVER.client(), "node-5.65.1");
        SERVER.client().hset("bull:orders:repeat:every-minute", "every", "150");
        SERVER.client().keys("bull:orders:*:lock").forEach(SERVER.client()::del);
        List<MigrationResult> results = MigrationHarness.migrate(SERVER, SERVER,
                MigrationOptions.defaults().withDropCronSchedulers(true), Checkpoints.none(), List.of("bull"), "bull:orders");
        assertEquals(MigrationResult.Outcome.RETIRED, results.get(0).outcome(), results.get(0).message());
        assertEquals("150", SERVER.client().hget("emq:{orders}:repeat:every-minute", "every_ms"));

        Wire wire = Wire.open(SERVER.client());
        List<String> occurrences = Collections.synchronizedList(new ArrayList<>());
        JobHandler handler = job -> {
            if ("every-minute".equals(SERVER.client().hget("emq:{orders}:job:" + job.id(), "repeat"))) {
                occurrences.add(SERVER.client().hget("emq:{orders}:job:" + job.id(), "occurrence"));
            }
        };
        try (Consumer one = Consumer.on(Jobs.on(wire, "orders"), handler).beat(Duration.ofMillis(10)).build();
             Consumer two = Consumer.on(Jobs.on(wire, "orders"), handler).beat(Duration.ofMillis(10)).build()) {
            one.start();
            two.start();
            Thread.sleep(1200);
        }
        assertTrue(occurrences.size() >= 4, "fired " + occurrences);
        assertEquals(occurrences.size(), new HashSet<>(occurrences).size(), "an occurrence ran twice: " + occurrences);
        List<Long> times = occurrences.stream().map(Long::parseLong).sorted().toList();
        for (int i = 1; i < times.size(); i++) {
            assertEquals(0, (times.get(i) - times.get(0)) % 150, "off the scheduler's cadence: " + times);
        }
    }
}
