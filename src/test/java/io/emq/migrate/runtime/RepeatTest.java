package io.emq.migrate.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.emq.migrate.testing.RealServerExtension;
import io.emq.migrate.wire.Wire;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class RepeatTest {
    @RegisterExtension
    static final RealServerExtension SERVER = RealServerExtension.standalone();

    private final Wire wire = Wire.open(SERVER.client());

    private static byte[] p(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void oneRegistrationFiresTwoOccurrencesWithDistinctIdsInMintOrder() throws Exception {
        Jobs jobs = Jobs.on(wire, "rep");
        assertTrue(jobs.registerRepeat("tick", Duration.ofMillis(400), p("T"), Duration.ZERO));
        assertFalse(jobs.registerRepeat("tick", Duration.ofMillis(5), p("other"), Duration.ZERO), "a live name is kept");
        List<RepeatFired> first = jobs.fireDueRepeats(10);
        assertEquals(1, first.size());
        assertEquals(List.of(), jobs.fireDueRepeats(10), "not due again before its period");
        Thread.sleep(420);
        List<RepeatFired> second = jobs.fireDueRepeats(10);
        assertEquals(1, second.size());
        long apart = second.get(0).occurrenceMs() - first.get(0).occurrenceMs();
        // a loaded machine may reach the next fire a period late: the occurrence is then a later one on the same cadence
        assertTrue(apart > 0 && apart % 400 == 0, "the cadence is kept: " + apart + " ms apart");
        assertTrue(first.get(0).id().compareTo(second.get(0).id()) < 0);
        Claim a = jobs.claim(Duration.ofSeconds(5)).orElseThrow();
        assertEquals(first.get(0).id(), a.id());
        assertEquals("T", new String(a.payload(), StandardCharsets.UTF_8));
        assertTrue(jobs.cancelRepeat("tick"));
        assertFalse(jobs.cancelRepeat("tick"));
        Thread.sleep(420);
        assertEquals(List.of(), jobs.fireDueRepeats(10), "a cancelled registration fires no more");
    }

    @Test
    void missedOccurrencesAreCoalescedAndADanglingNameIsDropped() throws Exception {
        Jobs jobs = Jobs.on(wire, "miss");
        jobs.registerRepeat("tick", Duration.ofMillis(20), p("T"), Duration.ZERO);
        Thread.sleep(120);
        List<RepeatFired> fired = jobs.fireDueRepeats(10);
        assertEquals(1, fired.size(), "one fire for the occurrences no pump was there for");
        long next = SERVER.client().zscore("emq:{miss}:repeat", "tick").longValue();
        assertEquals(0, (next - fired.get(0).occurrenceMs()) % 20, "the next run stays on the cadence");
        assertTrue(next - fired.get(0).occurrenceMs() >= 100, "the missed runs were skipped, not queued");
        SERVER.client().zadd("emq:{miss}:repeat", 0, "ghost");
        assertEquals(List.of(), jobs.fireDueRepeats(10).stream().filter(f -> f.name().equals("ghost")).toList());
        assertEquals(null, SERVER.client().zscore("emq:{miss}:repeat", "ghost"));
        assertThrows(IllegalArgumentException.class, () -> jobs.registerRepeat("x", Duration.ZERO, p("T"), Duration.ZERO));
        assertThrows(IllegalArgumentException.class, () -> jobs.registerRepeat("bad name", Duration.ofSeconds(1), p("T"), Duration.ZERO));
    }

    @Test
    void twoConsumersBeatingOnOneQueueRunEachOccurrenceExactlyOnce() throws Exception {
        Jobs jobs = Jobs.on(wire, "pump");
        jobs.registerRepeat("tick", Duration.ofMillis(100), p("T"), Duration.ZERO);
        Map<String, Integer> runs = new ConcurrentHashMap<>();
        List<String> occurrences = Collections.synchronizedList(new ArrayList<>());
        JobHandler handler = job -> {
            runs.merge(job.id(), 1, Integer::sum);
            occurrences.add(SERVER.client().hget("emq:{pump}:job:" + job.id(), "occurrence"));
        };
        Consumer one = Consumer.on(jobs, handler).beat(Duration.ofMillis(10)).build();
        Consumer two = Consumer.on(Jobs.on(wire, "pump"), handler).beat(Duration.ofMillis(10)).build();
        one.start();
        two.start();
        Thread.sleep(1000);
        one.close();
        two.close();
        assertTrue(occurrences.size() >= 3, "fired " + occurrences.size());
        assertTrue(runs.values().stream().allMatch(n -> n == 1), runs.toString());
        assertEquals(occurrences.size(), new HashSet<>(occurrences).size(), "no occurrence ran twice: " + occurrences);
        List<Long> times = occurrences.stream().map(Long::parseLong).sorted().toList();
        for (int i = 1; i < times.size(); i++) {
            assertEquals(0, (times.get(i) - times.get(0)) % 100, "every occurrence is on the cadence: " + times);
        }
    }
}
