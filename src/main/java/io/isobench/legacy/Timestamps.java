package io.isobench.legacy;

import java.time.Instant;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.List;

/**
 * The timestamp styles of the old files ({@code 2026-01-14 21:01:19}, {@code …T06:27:00Z},
 * {@code …T14:22:25.610911}, {@code 20251231_011435}). Zone-less times are read as UTC (the harness ran on UTC
 * machines). Log-style {@code MM-DD HH:MM:SS} has no year and is not turned into an instant.
 */
final class Timestamps {

    private static final List<DateTimeFormatter> LOCAL = List.of(
            DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss[.SSSSSS][.SSS]"),
            DateTimeFormatter.ISO_LOCAL_DATE_TIME,
            DateTimeFormatter.ofPattern("yyyyMMdd_HHmmss"));

    private Timestamps() {
    }

    static Instant parse(String s) {
        if (s == null || s.isBlank()) {
            return null;
        }
        String t = s.strip();
        try {
            return OffsetDateTime.parse(t).toInstant();
        } catch (DateTimeParseException ignored) {
            // try the zone-less styles
        }
        for (DateTimeFormatter f : LOCAL) {
            try {
                return LocalDateTime.parse(t, f).toInstant(ZoneOffset.UTC);
            } catch (DateTimeParseException ignored) {
                // next style
            }
        }
        return null;
    }
}
