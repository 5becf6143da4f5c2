package io.emq.migrate.migrate;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.emq.migrate.keyspace.BrandedId;
import io.emq.migrate.testing.RealServerExtension;
import io.emq.migrate.wire.EmqWireException;
import io.emq.migrate.wire.Wire;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class JournalTest {
    @RegisterExtension
    static final RealServerExtension SERVER = RealServerExtension.standalone();

    private static Journal journal() {
        return new Journal(Wire.open(SERVER.client()), "orders");
    }

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void idsAreMintedInTheOrderGivenAndARerunGivesTheSameAnswer() {
        Journal j = journal();
        j.acquire("m1", 10_000);
        j.set("id_base", "0");
        List<BrandedId> first = j.assignIds(List.of(b("9"), b("10"), b("a:b:\u00e9")));
        assertEquals(List.of(BrandedId.job(1), BrandedId.job(2), BrandedId.job(3)), first);
        List<BrandedId> again = j.assignIds(List.of(b("10"), b("new"), b("9")));
        assertEquals(List.of(BrandedId.job(2), BrandedId.job(4), BrandedId.job(1)), again);
        assertEquals(4, j.highWaterMark());
        assertArrayEquals(b("a:b:\u00e9"), j.lookupV2(BrandedId.job(3)).orElseThrow());
        assertEquals(List.of(Optional.of(BrandedId.job(1)), Optional.empty()), j.lookupV1(List.of(b("9"), b("nope"))));
    }

    @Test
    void aSecondMigratorIsRefusedWhileTheLeaseLivesAndTakesOverAfter() throws InterruptedException {
        Journal first = journal();
        long t1 = first.acquire("m1", 200);
        Journal second = journal();
        EmqWireException.Lock refused = assertThrows(EmqWireException.Lock.class, () -> second.acquire("m2", 200));
        assertTrue(refused.getMessage().contains("m1"), refused.getMessage());
        Thread.sleep(250);
        long t2 = second.acquire("m2", 10_000);
        assertTrue(t2 > t1);
        assertThrows(EmqWireException.Lock.class, () -> first.set("state", "running"), "the zombie is fenced off");
        assertThrows(EmqWireException.Lock.class, () -> first.assignIds(List.of(b("x"))));
        assertThrows(EmqWireException.State.class, () -> second.assignIds(List.of(b("x"))), "no id base yet");
        second.set("id_base", "3");
        assertEquals(List.of(BrandedId.job((3L << 36) + 1)), second.assignIds(List.of(b("x"))));
        second.set("state", "running");
        assertEquals(Optional.of(Journal.State.RUNNING), second.state());
    }

    @Test
    void historyRowsRoundTripInRankOrder() {
        Journal j = journal();
        j.acquire("m1", 10_000);
        j.recordStep(new HistoryRow(2, 3, "absorb pending", 42, "me@host", "2026-01-01T00:00:00Z", 12, true,
                Map.of("pending", 5L), null));
        j.recordStep(new HistoryRow(1, 1, "fence source", 7, "me@host", "2026-01-01T00:00:00Z", 3, true, Map.of(), null));
        assertEquals(List.of(1, 3), j.history().stream().map(HistoryRow::version).toList());
        assertEquals(5L, j.history().get(1).counts().get("pending"));
        j.forgetStep(3);
        assertEquals(List.of(1), j.history().stream().map(HistoryRow::version).toList());
    }
}
