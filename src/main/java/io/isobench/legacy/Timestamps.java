package io.isobench.legacy;

import java.time.Instant;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The timestamp styles of the old files ({@code 2026-01-14 21:01:19}, {@code …T06:27:00Z},
 * {@code …T14:22:25.610911}, {@code 20251231_011435}, and the agent runs' folder style {@code 2025-12-24_09-35-05}
 * with an optional sample suffix {@code _s0}). Zone-less times are read as UTC (the harness ran on UTC machines).
 * Log-style {@code MM-DD HH:MM:SS} has no year and is not turned into an instant.
 */
final class Timestamps {

    private static final List<DateTimeFormatter> LOCAL = List.of(
            DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss[.SSSSSS][.SSS]"),
            DateTimeFormatter.ISO_LOCAL_DATE_TIME,
            DateTimeFormatter.ofPattern("yyyyMMdd_HHmmss"),
            DateTimeFormatter.ofPattern("yyyy-MM-dd_HH-mm-ss"));
    /** A run folder's timestamp followed by a suffix ({@code 2026-03-26_23-06-50_s0}): the suffix is no time. */
    private static final Pattern RUN_FOLDER =
            Pattern.compile("^(\\d{4}-\\d{2}-\\d{2}_\\d{2}-\\d{2}-\\d{2})_[A-Za-z0-9]+$");

    private Timestamps() {
    }

    static Instant parse(String s) {
        if (s == null || s.isBlank()) {
            return null;
        }
        String t = s.strip();
        Matcher folder = RUN_FOLDER.matcher(t);
        if (folder.matches()) {
            t = folder.group(1);
        }
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
