package io.emq.migrate.cli;

import java.util.Locale;

/** Figures as people read them: {@code 200,000} jobs, {@code 108 MiB}. */
final class Sizes {
    private static final String[] UNITS = {"B", "KiB", "MiB", "GiB", "TiB"};

    private Sizes() {
    }

    static String count(long n) {
        return String.format(Locale.ROOT, "%,d", n);
    }

    /** Binary units, one decimal below 10 of a unit ({@code 1.5 KiB}), none above ({@code 108 MiB}). */
    static String bytes(long n) {
        double value = n;
        int unit = 0;
        while (value >= 1024 && unit < UNITS.length - 1) {
            value /= 1024;
            unit++;
        }
        if (unit == 0) {
            return n + " B";
        }
        return String.format(Locale.ROOT, value < 10 ? "%.1f %s" : "%.0f %s", value, UNITS[unit]);
    }
}
