package io.emq.migrate.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;

class KeyCommandTest {
    static CliRun run(String... args) {
        return CliRun.of(args);
    }

    @Test
    void printsKindQueueTypeSlotAndMintTime() {
        CliRun r = run("key", "emq:{orders}:job:JOB0NwdXCmjyDI", "{emq}:version");
        assertEquals(0, r.code());
        assertTrue(r.out().contains("emq:{orders}:job:JOB0NwdXCmjyDI  queue"), r.out());
        assertTrue(r.out().contains("2026-06-13T12:00:00Z"), r.out());
        assertTrue(r.out().contains("reserve"), r.out());
    }

    @Test
    void jsonHasTheContractFields() throws Exception {
        CliRun r = run("key", "--json", "emq:{orders}:pending", "bull:orders:wait");
        assertEquals(1, r.code());
        JsonNode rows = Json.MAPPER.readTree(r.out());
        assertEquals(2, rows.size());
        JsonNode ok = rows.get(0);
        assertEquals("queue", ok.get("kind").asText());
        assertEquals("orders", ok.get("queue").asText());
        assertEquals("pending", ok.get("type").asText());
        assertEquals(105, ok.get("slot").asInt());
        assertTrue(ok.get("reason").isNull());
        JsonNode bad = rows.get(1);
        assertEquals("rejected", bad.get("kind").asText());
        assertEquals("bull-key", bad.get("rejection").asText());
        assertTrue(bad.get("reason").asText().contains("v1"));
        for (String field : new String[] {"key", "kind", "queue", "type", "slot", "reason"}) {
            assertTrue(bad.has(field), field);
        }
    }

    @Test
    void badUsageExitsTwo() {
        assertEquals(2, run("key").code());
        assertEquals(2, run("key", "--nope", "x").code());
        assertEquals(2, run("frobnicate").code());
        assertEquals(2, run().code());
        assertEquals(0, run("key", "--help").code());
    }
}
