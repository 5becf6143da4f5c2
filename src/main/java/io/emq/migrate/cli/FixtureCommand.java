package io.emq.migrate.cli;

import io.emq.migrate.v1.fixture.Fixture;
import io.emq.migrate.v1.fixture.FixtureKey;
import io.emq.migrate.v1.fixture.FixtureLoader;
import io.emq.migrate.wire.Endpoint;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.commons.cli.Options;
import redis.clients.jedis.UnifiedJedis;

/**
 * {@code emq-migrate fixture load --target URI NAME}: writes one of the recorded v1 keyspaces the
 * demo uses into a server of one's own, to try the other commands on it. It never overwrites: a key
 * the fixture holds that already exists refuses the load before anything is written, as a cluster does (its keys
 * carry no hash tag).
 */
final class FixtureCommand implements Command {
    static final List<String> NAMES = List.of("node-5.65.1", "elixir-v1", "legacy-and-foreign", "node-large-payload");

    public void options(Options options) {
    }

    public int run(Invocation in) {
        List<String> words = in.arguments();
        if (words.size() != 2 || !words.get(0).equals("load")) {
            throw CliException.usage("give: fixture load NAME (one of " + String.join(", ", NAMES) + ")");
        }
        Fixture fixture = fixture(words.get(1));
        Endpoint target = in.require(Side.TARGET);
        if (target.cluster()) {
            throw CliException.usage("fixtures load into a standalone server only: their keys carry no hash tag (as BullMQ's off"
                    + " a cluster), so a cluster would spread each queue over its slots, where it can be neither served nor"
                    + " migrated; give --target as redis://host:port (a scratch server); nothing was written");
        }
        UnifiedJedis client = in.open(target, Side.TARGET, 8);
        for (FixtureKey k : fixture.keys()) {
            if (client.exists(k.key().raw())) {
                throw CliException.refused("key " + k.key().display() + " already exists there: the fixture loads only"
                        + " where none of its keys exist (use an empty database, e.g. redis://host:port/9)");
            }
        }
        new FixtureLoader(client).load(fixture);
        if (in.json()) {
            Map<String, Object> doc = new LinkedHashMap<>();
            doc.put("fixture", fixture.name());
            doc.put("keys", fixture.keys().size());
            doc.put("prefixes", fixture.prefixes());
            Json.print(doc, in.out());
        } else {
            in.out().println("loaded the recorded v1 keyspace '" + words.get(1) + "': " + fixture.keys().size()
                    + " keys under " + DiscoverCommand.under(fixture.prefixes()));
            in.out().println("   " + fixture.description());
        }
        return ExitCodes.OK;
    }

    /** A recorded fixture by name; a usage error listing the names otherwise. */
    static Fixture fixture(String name) {
        if (!NAMES.contains(name)) {
            throw CliException.usage("no fixture '" + name + "'; the fixtures are " + String.join(", ", NAMES));
        }
        return FixtureLoader.resource(name);
    }
}
