package io.isobench.loadgen;

import com.fasterxml.jackson.databind.JsonNode;

import java.io.IOException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeFormatterBuilder;
import java.time.format.DateTimeParseException;
import java.time.temporal.ChronoField;
import java.time.temporal.TemporalAccessor;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Reads a timed-trace file into {@link TimedTrace.Request}s, in file order. Two formats, told apart by the first
 * non-blank line: a JSON object is Mooncake's JSONL ({@code timestamp}, {@code input_length}, {@code output_length},
 * {@code hash_ids}, renamed by {@code --timed-trace-label-*}); a CSV header naming {@code TIMESTAMP},
 * {@code ContextTokens} and {@code GeneratedTokens} is an Azure LLM inference trace (datetimes, no hash ids). Anything
 * else, and any bad record, is a one-line {@link IllegalArgumentException}: file, line, what is wrong, the fix.
 */
final class TraceFile {

    /** Azure's datetimes: {@code 2023-11-16 18:15:46.6805900}, {@code 2024-05-10 00:00:00.009930+00:00}, ISO 'T'. */
    private static final DateTimeFormatter AZURE_TIME = new DateTimeFormatterBuilder()
            .appendPattern("yyyy-MM-dd HH:mm:ss")
            .optionalStart().appendFraction(ChronoField.NANO_OF_SECOND, 0, 9, true).optionalEnd()
            .optionalStart().appendOffset("+HH:MM", "Z").optionalEnd()
            .toFormatter(Locale.ROOT);

    private TraceFile() {
    }

    static List<TimedTrace.Request> read(Path file, DatasetSpec.Trace t) {
        List<String> lines;
        try {
            lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        } catch (NoSuchFileException e) {
            throw new IllegalArgumentException("trace file " + file + " does not exist");
        } catch (IOException e) {
            throw new IllegalArgumentException("trace file " + file + " cannot be read as UTF-8 text: " + e.getMessage());
        }
        if (!lines.isEmpty() && lines.get(0).startsWith("\uFEFF")) {
            lines.set(0, lines.get(0).substring(1)); // a UTF-8 byte-order mark (Windows tools write one) is not data
        }
        int first = 0;
        while (first < lines.size() && lines.get(first).isBlank()) {
            first++;
        }
        if (first == lines.size()) {
            throw new IllegalArgumentException("trace file " + file + " has no records");
        }
        String head = lines.get(first).strip();
        List<TimedTrace.Request> out = head.startsWith("{") ? mooncake(file, lines, t.labels(), t.secMultiplier())
                : azure(file, lines, first, head);
        if (out.isEmpty()) {
            throw new IllegalArgumentException("trace file " + file + " has no records");
        }
        return out;
    }

    private static List<TimedTrace.Request> mooncake(Path file, List<String> lines, DatasetSpec.Labels labels,
                                                     double secMultiplier) {
        List<TimedTrace.Request> out = new ArrayList<>();
        BigDecimal first = null;
        BigDecimal prev = null;
        int prevLine = 0;
        for (int i = 0; i < lines.size(); i++) {
            int line = i + 1;
            if (lines.get(i).isBlank()) {
                continue;
            }
            JsonNode n;
            try {
                n = TimedTrace.JSON.readTree(lines.get(i));
            } catch (IOException e) {
                n = null;
            }
            if (n == null || !n.isObject()) {
                throw bad(file, line, "is not a JSON object", "one {\"" + labels.timestamp() + "\": ..., \""
                        + labels.inputLength() + "\": ..., \"" + labels.outputLength() + "\": ..., \"" + labels.hashIds()
                        + "\": [...]} per line");
            }
            BigDecimal ts = TimedTrace.decimal(n.get(labels.timestamp()));
            if (ts == null) {
                throw bad(file, line, "has no numeric \"" + labels.timestamp() + "\"", "give each record one, or name"
                        + " the field with --timed-trace-label-timestamp");
            }
            if (prev != null && ts.compareTo(prev) < 0) {
                throw bad(file, line, "has \"" + labels.timestamp() + "\" " + ts.toPlainString() + ", earlier than line "
                        + prevLine + "'s " + prev.toPlainString(), "sort the file by timestamp: a timed trace is"
                        + " replayed in file order");
            }
            if (first == null) {
                first = ts;
            }
            prev = ts;
            prevLine = line;
            int in = length(file, line, n, labels.inputLength(), "--timed-trace-label-input-length");
            int outLen = length(file, line, n, labels.outputLength(), "--timed-trace-label-output-length");
            double traceS = ts.subtract(first).doubleValue() * secMultiplier;
            if (!Double.isFinite(traceS)) {
                throw bad(file, line, "has \"" + labels.timestamp() + "\" " + ts + ", past any time a replay can reach",
                        "the timestamps' unit: --timed-trace-sec-multiplier turns them into seconds");
            }
            out.add(new TimedTrace.Request(line, traceS, in, outLen,
                    hashIds(file, line, n.get(labels.hashIds()), labels.hashIds())));
        }
        return out;
    }

    private static int length(Path file, int line, JsonNode n, String label, String flag) {
        JsonNode v = n.get(label);
        if (v == null || v.isNull()) {
            throw bad(file, line, "has no \"" + label + "\"", "give each record one, or name the field with " + flag);
        }
        if (!v.isIntegralNumber() || !v.canConvertToInt() || v.asInt() < 1) {
            throw bad(file, line, "has \"" + label + "\" " + v + ", not a whole number of tokens >= 1",
                    "fix or drop the record");
        }
        return v.asInt();
    }

    private static long[] hashIds(Path file, int line, JsonNode v, String label) {
        if (v == null || v.isNull()) {
            return new long[0]; // no shared blocks: the request's own tokens (as vLLM's default [])
        }
        if (!v.isArray()) {
            throw bad(file, line, "has \"" + label + "\" that is not an array of integers", "e.g. \"" + label
                    + "\": [0, 1, 2], or name the field with --timed-trace-label-hash-ids");
        }
        long[] ids = new long[v.size()];
        for (int j = 0; j < ids.length; j++) {
            JsonNode h = v.get(j);
            if (!h.isIntegralNumber()) {
                throw bad(file, line, "has \"" + label + "\" entry " + h + ", not an integer", "hash ids are integers");
            }
            ids[j] = h.canConvertToLong() ? h.asLong() : h.bigIntegerValue().longValue();
        }
        return ids;
    }

    private static List<TimedTrace.Request> azure(Path file, List<String> lines, int headerAt, String header) {
        String[] cols = header.split(",", -1);
        int ts = -1;
        int ctx = -1;
        int gen = -1;
        for (int c = 0; c < cols.length; c++) {
            switch (cols[c].strip().toLowerCase(Locale.ROOT)) {
                case "timestamp" -> ts = c;
                case "contexttokens" -> ctx = c;
                case "generatedtokens" -> gen = c;
                default -> { }
            }
        }
        if (ts < 0 || ctx < 0 || gen < 0) {
            throw new IllegalArgumentException("trace file " + file + " line " + (headerAt + 1) + " is neither a JSON"
                    + " object (Mooncake JSONL) nor an Azure CSV header TIMESTAMP,ContextTokens,GeneratedTokens (fix: one"
                    + " of those two formats)");
        }
        List<TimedTrace.Request> out = new ArrayList<>();
        long firstNs = 0;
        long prevNs = Long.MIN_VALUE;
        int prevLine = 0;
        for (int i = headerAt + 1; i < lines.size(); i++) {
            int line = i + 1;
            if (lines.get(i).isBlank()) {
                continue;
            }
            String[] f = lines.get(i).split(",", -1);
            if (f.length < cols.length) {
                throw bad(file, line, "has " + f.length + " fields, the header " + cols.length, "one value per column");
            }
            long ns = epochNs(file, line, f[ts].strip());
            if (ns < prevNs) {
                throw bad(file, line, "has TIMESTAMP " + f[ts].strip() + ", earlier than line " + prevLine + "'s",
                        "sort the file by TIMESTAMP: a timed trace is replayed in file order");
            }
            if (out.isEmpty()) {
                firstNs = ns;
            }
            prevNs = ns;
            prevLine = line;
            if (ns - firstNs < 0) { // wrapped: from before 1970 to centuries later, past any time a replay reaches
                throw bad(file, line, "has TIMESTAMP " + f[ts].strip() + ", more than 292 years after the first row's",
                        "one trace's rows, sorted by TIMESTAMP");
            }
            double traceS = (ns - firstNs) / 1e9;
            out.add(new TimedTrace.Request(line, traceS, count(file, line, f[ctx], "ContextTokens"),
                    count(file, line, f[gen], "GeneratedTokens"), new long[0]));
        }
        return out;
    }

    private static int count(Path file, int line, String v, String column) {
        try {
            int n = Integer.parseInt(v.strip());
            if (n >= 1) {
                return n;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw bad(file, line, "has " + column + " '" + v.strip() + "', not a whole number of tokens >= 1",
                "fix or drop the row");
    }

    private static long epochNs(Path file, int line, String v) {
        try {
            TemporalAccessor t = AZURE_TIME.parse(v.length() > 10 && v.charAt(10) == 'T'
                    ? v.substring(0, 10) + " " + v.substring(11) : v);
            LocalDateTime local = LocalDateTime.from(t);
            ZoneOffset off = t.isSupported(ChronoField.OFFSET_SECONDS)
                    ? ZoneOffset.ofTotalSeconds(t.get(ChronoField.OFFSET_SECONDS)) : ZoneOffset.UTC;
            return Math.addExact(Math.multiplyExact(local.toEpochSecond(off), 1_000_000_000L), local.getNano());
        } catch (DateTimeParseException | ArithmeticException e) {
            throw bad(file, line, "has TIMESTAMP '" + v + "', not a datetime", "yyyy-MM-dd HH:mm:ss[.fraction][+HH:MM]");
        }
    }

    private static IllegalArgumentException bad(Path file, int line, String what, String fix) {
        return new IllegalArgumentException("trace file " + file + " line " + line + " " + what + " (fix: " + fix + ")");
    }
}
