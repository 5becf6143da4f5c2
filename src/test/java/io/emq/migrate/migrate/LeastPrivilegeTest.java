package io.emq.migrate.migrate;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.emq.migrate.testing.RealServerExtension;
import io.emq.migrate.wire.Endpoint;
import io.emq.migrate.wire.Wire;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.UnifiedJedis;

/**
 * The migrator runs with the least-privilege ACL users MIGRATION.md gives: on the source only keys
 * under the v1 prefix, on the target only {@code emq:*} and {@code {emq}:*}, and no dangerous or
 * admin commands on either.
 */
class LeastPrivilegeTest {
    @RegisterExtension
    static final RealServerExtension SOURCE = RealServerExtension.standalone();
    @RegisterExtension
    static final RealServerExtension TARGET = RealServerExtension.standalone();

    static final String SOURCE_ACL = "on >s3cret ~bull:* resetchannels +@read +@write +@scripting +@connection -@dangerous +scan +type +time";
    static final String TARGET_ACL = "on >s3cret ~emq:* ~{emq}:* resetchannels +@read +@write +@scripting +@connection -@dangerous +scan +type +time";

    private static void user(RealServerExtension server, String acl) {
        try (Jedis admin = server.node(server.nodes().get(0))) {
            admin.aclDelUser("migrator");
            List<String> rules = List.of(acl.split(" "));
            admin.aclSetUser("migrator", rules.toArray(new String[0]));
        }
    }

    @Test
    void theMigratorNeedsOnlyItsOwnKeysAndNoDangerousCommands() {
        MigrationHarness.load(SOURCE.client(), "node-5.65.1");
        SOURCE.client().set("foreign:key", "untouched");
        user(SOURCE, SOURCE_ACL);
        user(TARGET, TARGET_ACL);
        try (UnifiedJedis source = Endpoint.parse("redis://migrator:s3cret@" + SOURCE.uri().substring(8)).open();
             UnifiedJedis target = Endpoint.parse("redis://migrator:s3cret@" + TARGET.uri().substring(8)).open()) {
            List<MigrationResult> results = new Migrator(Wire.unfenced(source), Wire.open(target), SOURCE.uri(),
                    MigrationOptions.defaults().withAcceptAnomalies(true), Checkpoints.none())
                    .migrate(List.of("bull"), List.of("emails", "flows-parent", "flows-child"));
            results.forEach(r -> assertTrue(r.ok(), r.toString()));
        }
        assertTrue(TARGET.client().zcard("emq:{emails}:pending") > 0);
    }
}
