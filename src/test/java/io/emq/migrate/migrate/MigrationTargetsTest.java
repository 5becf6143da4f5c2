package io.emq.migrate.migrate;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.emq.migrate.testing.RealServerExtension;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Every recorded fixture migrates into the same server, a separate server and a three-master cluster, and drains in order. */
class MigrationTargetsTest {
    @RegisterExtension
    static final RealServerExtension SOURCE = RealServerExtension.standalone();
    @RegisterExtension
    static final RealServerExtension SEPARATE = RealServerExtension.standalone();
    @RegisterExtension
    static final RealServerExtension CLUSTER = RealServerExtension.cluster();

    @ParameterizedTest
    @ValueSource(strings = {"node-5.65.1", "elixir-v1", "legacy-and-foreign", "node-large-payload"})
    void intoTheSameServer(String fixture) throws InterruptedException {
        assertTrue(FixtureDrainCheck.run(fixture, SOURCE.client(), SOURCE.uri(), SOURCE.client()) > 0);
    }

    @ParameterizedTest
    @ValueSource(strings = {"node-5.65.1", "elixir-v1", "legacy-and-foreign", "node-large-payload"})
    void intoASeparateServer(String fixture) throws InterruptedException {
        assertTrue(FixtureDrainCheck.run(fixture, SOURCE.client(), SOURCE.uri(), SEPARATE.client()) > 0);
    }

    @ParameterizedTest
    @ValueSource(strings = {"node-5.65.1", "elixir-v1", "legacy-and-foreign", "node-large-payload"})
    void intoAThreeMasterCluster(String fixture) throws InterruptedException {
        assertTrue(FixtureDrainCheck.run(fixture, SOURCE.client(), SOURCE.uri(), CLUSTER.client()) > 0);
    }
}
