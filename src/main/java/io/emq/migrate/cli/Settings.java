package io.emq.migrate.cli;

import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import org.apache.commons.cli.CommandLine;

/**
 * Where a server setting comes from, first found wins: the flag ({@code --source},
 * {@code --target-cacert}), the environment ({@code EMQ_SOURCE}, {@code EMQ_TARGET_CACERT}), then the
 * config file ({@code source=…}, {@code target.cacert=…} in {@code --config FILE}, else
 * {@code ./emq-migrate.conf} when present). Like Flyway's {@code FLYWAY_URL} and {@code flyway.conf}.
 */
final class Settings {
    static final String DEFAULT_FILE = "emq-migrate.conf";
    /** What each side can be given: the URI, the CA certificate, the client certificate and its key. */
    static final Set<String> PARTS = Set.of("", "cacert", "cert", "key");

    private final CommandLine line;
    private final Environment environment;
    private final Properties file;
    private final String fileName;

    private Settings(CommandLine line, Environment environment, Properties file, String fileName) {
        this.line = line;
        this.environment = environment;
        this.file = file;
        this.fileName = fileName;
    }

    /** For a command that names no server: no file is read. */
    static Settings none(CommandLine line, Environment environment) {
        return new Settings(line, environment, new Properties(), "");
    }

    /** Reads the config file ({@code --config FILE} must exist; the default one may be absent). */
    static Settings of(CommandLine line, Environment environment) {
        Path path = line.hasOption("config") ? environment.directory().resolve(line.getOptionValue("config"))
                : environment.directory().resolve(DEFAULT_FILE);
        Properties properties = new Properties();
        try (Reader r = Files.newBufferedReader(path, StandardCharsets.UTF_8)) {
            properties.load(r);
        } catch (NoSuchFileException absent) {
            if (line.hasOption("config")) {
                throw CliException.usage("--config: no file " + path);
            }
        } catch (IOException | IllegalArgumentException e) {
            throw CliException.usage("cannot read the config file " + path + ": " + e.getMessage());
        }
        Set<String> known = new TreeSet<>();
        for (Side side : Side.values()) {
            PARTS.forEach(part -> known.add(key(side, part)));
        }
        for (String key : properties.stringPropertyNames()) {
            if (!known.contains(key)) {
                throw CliException.usage("unknown setting '" + Printable.line(key) + "' in " + path + " (known: "
                        + String.join(", ", known) + ")");
            }
        }
        return new Settings(line, environment, properties, path.toString());
    }

    /** The value of one side's setting ({@code part} "" is the URI), with where it came from. */
    Optional<Value> get(Side side, String part) {
        String option = option(side, part);
        if (line.hasOption(option)) {
            return Optional.of(new Value(line.getOptionValue(option), "--" + option));
        }
        String variable = variable(side, part);
        if (environment.variable(variable) != null) {
            return Optional.of(new Value(environment.variable(variable).trim(), variable));
        }
        String fromFile = file.getProperty(key(side, part));
        if (fromFile != null && !fromFile.isBlank()) {
            return Optional.of(new Value(fromFile.trim(), key(side, part) + " in " + fileName));
        }
        return Optional.empty();
    }

    /** A setting's value and where it was found ({@code --source}, {@code EMQ_SOURCE}, {@code source in FILE}). */
    record Value(String text, String origin) {
    }

    static String option(Side side, String part) {
        return part.isEmpty() ? side.word() : side.word() + "-" + part;
    }

    static String variable(Side side, String part) {
        return "EMQ_" + side.name() + (part.isEmpty() ? "" : "_" + part.toUpperCase(Locale.ROOT));
    }

    static String key(Side side, String part) {
        return part.isEmpty() ? side.word() : side.word() + "." + part;
    }
}
