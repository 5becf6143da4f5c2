package io.emq.migrate.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.emq.migrate.testing.RealServerExtension;
import io.emq.migrate.wire.Wire;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The same scenarios against a three-master cluster. Each sub-queue ({@code conformance.<name>}) is
 * its own hashtag, so the scenarios spread over all three masters.
 */
class ConformanceClusterTest {
    @RegisterExtension
    static final RealServerExtension CLUSTER = RealServerExtension.cluster();

    @Test
    void everyScenarioPassesOnEveryMaster() {
        Wire wire = Wire.open(CLUSTER.client());
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        List<Conformance.Verdict> verdicts = new Conformance(wire, "conformance")
                .run(new PrintStream(out, true, StandardCharsets.UTF_8));
        String text = out.toString(StandardCharsets.UTF_8);
        assertTrue(verdicts.stream().allMatch(Conformance.Verdict::ok), text);
        assertTrue(text.endsWith("CONFORMANCE " + verdicts.size() + "/" + verdicts.size() + "\n"), text);
        long keys = 0;
        for (var node : CLUSTER.nodes()) {
            try (var jedis = CLUSTER.node(node)) {
                keys += jedis.dbSize();
            }
        }
        assertEquals(1, keys, "only {emq}:version may remain");
    }
}
