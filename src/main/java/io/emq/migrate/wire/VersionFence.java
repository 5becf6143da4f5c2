package io.emq.migrate.wire;

import io.emq.migrate.keyspace.Keys;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.params.SetParams;

/**
 * The deployment-wide version fence: {@code {emq}:version} must hold the version this runtime
 * speaks. Absent, it is claimed with {@code SET NX} and read back; any other value is refused.
 */
public final class VersionFence {

    /** The reserve key holding the wire version. */
    public static final String KEY = Keys.VERSION;
    /** The wire version this runtime speaks unless configured otherwise. */
    public static final String DEFAULT_VERSION = "echomq:2.0.0";
    /** The version the reference connector (as built) claims, and refuses any other: v2 protocol §5. */
    public static final String REFERENCE_VERSION = "echomq:3.0.0";
    /** The environment variable that configures it, e.g. {@code echomq:3.0.0} for a deployment on that fence. */
    public static final String VERSION_ENV = "EMQ_WIRE_VERSION";

    private VersionFence() {
    }

    /**
     * Whether {@code server} holds {@link #KEY}, as a v2 server does (a v2 server given where a v1 source was meant); false
     * where the user's key patterns leave the key out.
     */
    public static boolean heldBy(UnifiedJedis server) {
        try {
            return server.exists(KEY);
        } catch (JedisDataException refused) { // NOPERM
            return false;
        }
    }

    /** The version to expect: {@value #VERSION_ENV} from the environment when set, else {@link #DEFAULT_VERSION}. */
    public static String configured() {
        return configured(System.getenv(VERSION_ENV));
    }

    static String configured(String fromEnvironment) {
        return fromEnvironment == null || fromEnvironment.isBlank() ? DEFAULT_VERSION : fromEnvironment.trim();
    }

    /**
     * Checks the fence without claiming it, for commands that only read: absent is accepted (and left
     * absent), any other version than {@code expected} is refused.
     */
    public static void verify(UnifiedJedis client, String expected) {
        String found = client.get(KEY);
        if (found != null && !expected.equals(found)) {
            throw new EmqWireException.VersionFence(found, expected);
        }
    }

    /**
     * What an operator must hear before a run claims a version on a target that holds none: empty when the target holds
     * one (checked by {@link #verify}) or the run claims the reference's.
     */
    public static java.util.Optional<String> claimNote(UnifiedJedis client, String claimed) {
        if (claimed.equals(REFERENCE_VERSION) || client.exists(KEY)) {
            return java.util.Optional.empty();
        }
        return java.util.Optional.of("the target holds no " + KEY + ": the first write claims " + claimed + " there; the"
                + " reference connector speaks " + REFERENCE_VERSION + " and stops at connect on any other value: if it will"
                + " serve this target, pass --wire-version " + REFERENCE_VERSION + " (or set " + VERSION_ENV + "=" + REFERENCE_VERSION + ")");
    }

    /**
     * Checks (and on an empty deployment claims) the fence.
     *
     * @throws EmqWireException.VersionFence naming what was found and what was expected
     */
    public static void check(UnifiedJedis client, String expected) {
        String found = client.get(KEY);
        if (found == null) {
            client.set(KEY, expected, SetParams.setParams().nx());
            found = client.get(KEY);
        }
        if (!expected.equals(found)) {
            throw new EmqWireException.VersionFence(found == null ? "(absent)" : found, expected);
        }
    }
}
