package io.emq.migrate.cli;

import io.emq.migrate.wire.VersionFence;
import org.apache.commons.cli.CommandLine;
import org.apache.commons.cli.Option;

/**
 * {@code --wire-version V}, on every command that opens a v2 target: the {@code {emq}:version} the
 * command expects there (and claims on an empty deployment). Without it, {@code EMQ_WIRE_VERSION},
 * else {@link VersionFence#DEFAULT_VERSION}.
 */
final class WireVersionOption {
    static final String NAME = "wire-version";

    private WireVersionOption() {
    }

    static Option option() {
        return Option.builder().longOpt(NAME).hasArg().argName("V").desc("the {emq}:version the v2 target speaks (default "
                + VersionFence.configured() + ", from " + VersionFence.VERSION_ENV + " or the built-in "
                + VersionFence.DEFAULT_VERSION + "); e.g. echomq:3.0.0 for a deployment the reference connector fenced").get();
    }

    /** The version given, else the configured one. */
    static String of(CommandLine line) {
        String v = line.getOptionValue(NAME);
        return v == null || v.isBlank() ? VersionFence.configured() : v.trim();
    }
}
