package io.emq.migrate.cli;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.MapperFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;

/**
 * What a command is, as the one table {@code commands.json} (beside this class) declares it: the
 * help ({@code summary}, {@code syntax}, {@code examples}, what its exits mean), the servers it talks
 * to, the options it takes more than once, and its traits. {@link Cli} reads it; the command class
 * brings only its options and its work.
 *
 * @param takesArguments words after the options are taken (else they are a usage error)
 * @param showsProgress  the command shows progress (then --quiet and --no-progress apply)
 * @param destroys       the command can destroy data (then --yes confirms it off a terminal)
 * @param v1Target       its target receives a v1 keyspace, not a v2 deployment (then --wire-version does not apply)
 */
record Declaration(String summary, String syntax, List<String> examples, Exits exits, Set<Side> servers,
                   Set<String> repeatable, boolean takesArguments, boolean showsProgress, boolean destroys,
                   boolean v1Target) {
    private static final JsonMapper JSON = JsonMapper.builder().enable(MapperFeature.ACCEPT_CASE_INSENSITIVE_ENUMS).build();

    /** What the exit codes mean for the command: {@link ExitCodes#meanings} words them; absent ones it does not end with. */
    record Exits(String ok, String refused, String rejected) {
    }

    Declaration {
        Objects.requireNonNull(summary, "summary");
        Objects.requireNonNull(syntax, "syntax");
        Objects.requireNonNull(examples, "examples");
        Objects.requireNonNull(exits, "exits");
        servers = servers == null ? Set.of() : Set.copyOf(servers);
        repeatable = repeatable == null ? Set.of() : Set.copyOf(repeatable);
    }

    /** The table, by command name. */
    static Map<String, Declaration> table() {
        try (InputStream in = Declaration.class.getResourceAsStream("commands.json")) {
            return JSON.readValue(Objects.requireNonNull(in, "commands.json"), new TypeReference<Map<String, Declaration>>() {
            });
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The exit codes the command ends with (0 included) and what each means for it. */
    Map<Integer, String> exitMeanings() {
        Map<Integer, String> m = ExitCodes.meanings(exits.ok(), exits.refused());
        if (exits.rejected() != null) {
            m.put(ExitCodes.REJECTED, exits.rejected());
        }
        return new TreeMap<>(m);
    }

    /** Whether the command opens its target as a v2 deployment (then --wire-version applies). */
    boolean opensV2Target() {
        return servers.contains(Side.TARGET) && !v1Target;
    }
}
