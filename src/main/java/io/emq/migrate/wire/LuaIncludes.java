package io.emq.migrate.wire;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Expands {@code --- @include "name"} lines, the way BullMQ's script loader does: the line is
 * replaced by the text of {@code lua/includes/<name>.lua}, itself expanded first. A snippet is
 * written once per script however many times (or through however many snippets) it is included,
 * so a snippet can declare {@code local function}s without clashing. Every other line, the
 * script's KEYS/ARGV/reply header included, is kept byte for byte.
 */
public final class LuaIncludes {

    private static final Pattern INCLUDE = Pattern.compile("^--- @include \"([A-Za-z0-9_]+)\"\\s*$");

    private final Function<String, Optional<String>> snippets;

    /** @param snippets reads the text of one snippet by name; empty when there is no such snippet */
    public LuaIncludes(Function<String, Optional<String>> snippets) {
        this.snippets = snippets;
    }

    /** An include that cannot be expanded: a missing snippet or a cycle. */
    public static final class Unresolved extends IllegalStateException {
        Unresolved(String message) {
            super(message);
        }
    }

    /** The expanded text of {@code source}, the script named {@code scriptName} (named in errors). */
    public String expand(String scriptName, String source) {
        StringBuilder out = new StringBuilder(source.length());
        expandInto(out, source, scriptName, new ArrayList<>(), new LinkedHashSet<>());
        return out.toString();
    }

    private void expandInto(StringBuilder out, String source, String scriptName, List<String> path, Set<String> written) {
        for (String line : source.split("(?<=\n)", -1)) {
            Matcher m = INCLUDE.matcher(line.stripTrailing());
            if (!m.matches()) {
                out.append(line);
                continue;
            }
            String name = m.group(1);
            if (path.contains(name)) {
                throw new Unresolved("lua include cycle in " + scriptName + ": " + String.join(" -> ", path) + " -> " + name);
            }
            if (!written.add(name)) {
                continue;
            }
            String text = snippets.apply(name).orElseThrow(() -> new Unresolved(
                    "lua script " + scriptName + " includes \"" + name + "\", which is not in lua/includes/"));
            path.add(name);
            expandInto(out, text.endsWith("\n") ? text : text + "\n", scriptName, path, written);
            path.remove(path.size() - 1);
        }
    }

    /** The bundle's snippets: {@code lua/includes/<name>.lua} on the classpath. */
    static Optional<String> classpathSnippet(String name) {
        return Script.resource("lua/includes/" + name + ".lua")
                .map(bytes -> new String(bytes, StandardCharsets.UTF_8));
    }
}
