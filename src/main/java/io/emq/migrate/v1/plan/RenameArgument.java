package io.emq.migrate.v1.plan;

import java.util.regex.Pattern;

/**
 * A {@code --rename OLD=NEW} a message suggests, as an operator types it into a shell: the argument quoted when a name
 * holds what a shell splits or expands (a space, a quote, {@code $}, {@code *}, braces, ...), so it can be pasted as shown.
 */
public final class RenameArgument {
    /** The characters no POSIX shell treats specially inside a word. */
    private static final Pattern PLAIN = Pattern.compile("[A-Za-z0-9_.:@%+,/=-]+");

    private RenameArgument() {
    }

    /** {@code --rename OLD=NEW}, the argument quoted for a shell when it needs to be. */
    public static String suggested(String oldName, String newName) {
        return "--rename " + shellWord(oldName + "=" + newName);
    }

    /** {@code word} as one shell word: as it is when plain, else in single quotes (each quote in it as {@code '\''}). */
    static String shellWord(String word) {
        return PLAIN.matcher(word).matches() ? word : "'" + word.replace("'", "'\\''") + "'";
    }
}
