package io.isobench.parse;

import com.fasterxml.jackson.core.json.JsonReadFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import io.isobench.Mode;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Parses the console output of vLLM's benchmark scripts into canonical metrics (formats: docs/parsing.md and
 * legacy-import.md "Console formats"). Never throws on any input and runs in linear time: every regex is anchored
 * or led by a literal, has no nested quantifiers, and works on pieces of at most {@link ConsoleText#MAX_PIECE_CHARS}.
 *
 * <p>When the output shows several kinds of result, one mode is chosen in this order and only its metrics are
 * returned: a serving block with metric rows, latency lines, a throughput line, prefix-caching "est. speed" lines
 * after a {@code start generating} marker, micro-benchmark JSON lines, and finally a serving header without rows
 * (mode serving, no metrics).
 */
public final class OutputParser {

    /** How the text was cut before it reached us. */
    public enum Truncation {
        /** Complete output. */
        NONE,
        /** Only the first N characters were kept (ISO-Bench R1 raws): an unterminated last line may be cut: ignored. */
        HEAD_KEPT,
        /** Only the last N characters were kept (console tails): the first line may start mid-line: ignored. */
        TAIL_KEPT
    }

    static final String NUM = "([-+]?(?:\\d{1,300}(?:\\.\\d{0,300})?|\\.\\d{1,300})(?:[eE][-+]?\\d{1,4})?|nan|NaN|inf|-inf)";

    /** No line that any format reads is shorter than this (the 10-character rule is the shortest). */
    private static final int MIN_USEFUL_LINE = 10;
    private static final String SERVING_HEADER = "Serving Benchmark Result";
    /** "Label: value" with a printable label; the value alone, with trailing padding. */
    private static final Pattern ROW = Pattern.compile("([A-Za-z][A-Za-z0-9 ()/._%-]{0,80}):[ \\t]{0,200}" + NUM + "[ \\t]*");
    private static final Pattern STAT_ROW = Pattern.compile("(Mean|Median|Std|P\\d{1,2}(?:\\.\\d{1,3})?) (TTFT|TPOT|ITL|E2EL) \\(ms\\)");
    private static final Pattern AVG_LATENCY = Pattern.compile("Avg latency: " + NUM + " seconds");
    private static final Pattern PCT_LATENCY = Pattern.compile("(\\d{1,2}(?:\\.\\d{1,3})?)% percentile latency: " + NUM + " seconds");
    private static final Pattern THROUGHPUT = Pattern.compile(
            "Throughput: " + NUM + " requests/s, " + NUM + " (total )?tokens/s(?:, " + NUM + " output tokens/s)?");
    private static final Pattern NUM_PROMPT_TOKENS = Pattern.compile("Total num prompt tokens:[ \\t]{0,200}(\\d{1,18})");
    private static final Pattern NUM_OUTPUT_TOKENS = Pattern.compile("Total num output tokens:[ \\t]{0,200}(\\d{1,18})");
    private static final Pattern EST_SPEED = Pattern.compile(
            "est\\. speed input: " + NUM + " toks/s, output: " + NUM + " toks/s");
    private static final Pattern COST_TIME = Pattern.compile("cost time " + NUM);

    private static final Map<String, String> SERVING_LABELS = Map.ofEntries(
            Map.entry("Successful requests", "completed_requests"),
            Map.entry("Failed requests", "failed_requests"),
            Map.entry("Benchmark duration (s)", "duration_s"),
            Map.entry("Total input tokens", "total_input_tokens"),
            Map.entry("Total generated tokens", "total_output_tokens"),
            Map.entry("Request throughput (req/s)", "request_throughput_rps"),
            Map.entry("Request goodput (req/s)", "request_goodput_rps"),
            Map.entry("Output token throughput (tok/s)", "output_throughput_tok_s"),
            Map.entry("Peak output token throughput (tok/s)", "peak_output_throughput_tok_s"),
            Map.entry("Peak concurrent requests", "peak_concurrent_requests"),
            Map.entry("Total Token throughput (tok/s)", "total_throughput_tok_s"),
            Map.entry("Total token throughput (tok/s)", "total_throughput_tok_s"),
            Map.entry("Input token throughput (tok/s)", "input_throughput_tok_s"),
            // isobench loadgen's "Schedule fidelity" and "Client self-check" sections (docs/loadgen.md)
            Map.entry("Schedule lag P50 (ms)", "schedule_lag_ms_p50"),
            Map.entry("Schedule lag P99 (ms)", "schedule_lag_ms_p99"),
            Map.entry("Schedule lag max (ms)", "schedule_lag_ms_max"),
            Map.entry("Late requests (%)", "schedule_late_pct"),
            Map.entry("Configured request rate (req/s)", "configured_request_rate_rps"),
            Map.entry("Delivered request rate (req/s)", "delivered_request_rate_rps"),
            Map.entry("Configured max concurrency", "configured_max_concurrency"),
            Map.entry("Delivered mean concurrency", "delivered_concurrency_mean"),
            Map.entry("Client I/O thread busy (%)", "client_cpu_busy_pct"),
            Map.entry("Client loop lag P99 (ms)", "client_loop_lag_ms_p99"),
            Map.entry("Client loop lag max (ms)", "client_loop_lag_ms_max"),
            Map.entry("Client saturated (0/1)", "client_saturated"));

    static final ObjectMapper JSON = JsonMapper.builder()
            .enable(JsonReadFeature.ALLOW_NON_NUMERIC_NUMBERS)
            .build();

    private OutputParser() {
    }

    /** Parses complete console output. */
    public static ParsedOutput parse(String text) {
        return parse(text, Truncation.NONE);
    }

    /** Parses console output that may have been cut (see {@link Truncation}). */
    public static ParsedOutput parse(String text, Truncation truncation) {
        try {
            return new Run(text, truncation == null ? Truncation.NONE : truncation).parse();
        } catch (RuntimeException | StackOverflowError e) {
            // Defensive: the parser is written not to throw; if it ever does, the run still gets a clear record.
            return ParsedOutput.empty(List.of("parser error (" + e.getClass().getSimpleName() + "): " + e.getMessage()));
        }
    }

    /** As {@link #parse(String, Truncation)} for text whose control characters are already stripped. */
    static ParsedOutput parseStripped(String stripped, Truncation truncation) {
        try {
            return new Run(stripped, truncation, false).parse();
        } catch (RuntimeException | StackOverflowError e) {
            return ParsedOutput.empty(List.of("parser error (" + e.getClass().getSimpleName() + "): " + e.getMessage()));
        }
    }

    /** Canonical name of a serving-block row label, or null when the label is not a metric. */
    static String servingMetricName(String label) {
        String name = SERVING_LABELS.get(label);
        if (name != null) {
            return name;
        }
        Matcher m = STAT_ROW.matcher(label);
        if (!m.matches()) {
            return null;
        }
        String stat = m.group(1).toLowerCase(Locale.ROOT);
        return m.group(2).toLowerCase(Locale.ROOT) + "_ms_" + stat;
    }

    static int lastIndexOfIgnoreCase(String s, String needle) {
        for (int i = s.length() - needle.length(); i >= 0; i--) {
            if (s.regionMatches(true, i, needle, 0, needle.length())) {
                return i;
            }
        }
        return -1;
    }

    static Double number(String s) {
        if (s == null) {
            return null;
        }
        try {
            double v = Double.parseDouble(s);
            return Double.isFinite(v) ? v : null;
        } catch (NumberFormatException e) {
            return null;
        }
    }

    /** Collects metrics for one mode, keeping the first value of each name. */
    static final class Collector {
        final Map<String, Metric> metrics = new LinkedHashMap<>();
        final Map<String, String> evidence = new LinkedHashMap<>();
        final List<String> warnings;

        Collector(List<String> warnings) {
            this.warnings = warnings;
        }

        boolean has(String name) {
            return metrics.containsKey(name);
        }

        void put(String name, String value, double scale, String evidenceText, ConsoleText.Line line) {
            if (metrics.containsKey(name) || MetricDictionary.lookup(name) == null) {
                return;
            }
            Double v = number(value);
            if (v == null || !Double.isFinite(v * scale)) {
                warnings.add("skipped " + name + ": value '" + value + "' is not a finite number");
                return;
            }
            metrics.put(name, Metric.of(name, v * scale));
            evidence.put(name, evidenceText);
            if (line != null && !line.terminated()) {
                warnings.add(name + " comes from the last line, which has no newline (the text may be cut there)");
            }
        }

        boolean isEmpty() {
            return metrics.isEmpty();
        }
    }

    /**
     * One parse: a single pass over the lines, each line cut into pieces once, every piece offered to the handler of
     * each format. Cheap literal checks guard every regex, so ordinary log lines cost a few {@code indexOf} calls.
     */
    private static final class Run {
        private final String text;
        private final Truncation truncation;
        private final List<String> warnings = new ArrayList<>();

        // serving
        private Collector servingBlock;
        private Collector servingCurrent;
        private int servingHeaders;
        private int servingComplete;
        private int servingStart;
        private boolean servingClosed;
        private boolean servingHasRows;
        // latency
        private final Collector latency = new Collector(warnings);
        private int avgCount;
        // throughput
        private final Collector throughput = new Collector(warnings);
        private int throughputCount;
        // prefix caching: state after the last "start generating" marker
        private int markerLine = -1;
        private String speedInput;
        private String speedOutput;
        private ConsoleText.Line speedLine;
        private String costTime;
        private ConsoleText.Line costLine;
        // micro
        private final List<MicroResult> micro = new ArrayList<>();

        Run(String text, Truncation truncation) {
            this(text, truncation, true);
        }

        Run(String text, Truncation truncation, boolean strip) {
            this.text = text == null ? "" : strip ? ConsoleText.stripControls(text) : text;
            this.truncation = truncation;
        }

        ParsedOutput parse() {
            // Lines are produced lazily (a multi-megabyte text of tiny lines must not become millions of live objects).
            int n = text.length();
            int start = 0;
            int number = 0;
            while (start < n) {
                int nl = text.indexOf('\n', start);
                boolean terminated = nl >= 0;
                int end = terminated ? nl : n;
                number++;
                int lineStart = start;
                start = end + 1;
                if (number == 1 && truncation == Truncation.TAIL_KEPT) {
                    continue;
                }
                if (end - lineStart < MIN_USEFUL_LINE && terminated) {
                    continue; // shorter than the shortest line any format reads ("==========", "Throughput: …")
                }
                ConsoleText.Line line = new ConsoleText.Line(number, text.substring(lineStart, end), terminated);
                if (!terminated && truncation == Truncation.HEAD_KEPT) {
                    if (!line.text().isBlank()) {
                        warnings.add("ignored line " + number + ": the text was head-truncated and the line has no newline");
                    }
                    break;
                }
                boolean headerOnLine = false;
                for (String piece : line.pieces()) {
                    headerOnLine = serving(piece, line, headerOnLine);
                    latency(piece, line);
                    throughput(piece, line);
                    prefixCaching(piece, line);
                    micro(piece, line);
                }
            }
            return finish();
        }

        private ParsedOutput finish() {
            servingComplete += servingHasRows ? 1 : 0;
            for (Mode mode : ConsoleMode.ORDER) {
                ParsedOutput r = switch (mode) {
                    case SERVING -> servingResult();
                    case LATENCY -> firstLine(Mode.LATENCY, latency, avgCount, "'Avg latency'");
                    case THROUGHPUT -> firstLine(Mode.THROUGHPUT, throughput, throughputCount, "'Throughput:'");
                    case PREFIX_CACHING -> prefixCachingResult();
                    case MICRO -> null;
                };
                if (r != null) {
                    return r;
                }
            }
            return microOrNone();
        }

        private ParsedOutput servingResult() {
            if (servingBlock == null) {
                return null;
            }
            if (!servingClosed && servingCurrent == servingBlock) {
                warnings.add("serving block starting at line " + servingStart + " has no closing rule (text ends inside it)");
            }
            if (servingComplete > 1) {
                warnings.add(servingComplete + " serving result blocks with metric rows (real block + harness echo?): "
                        + "the first complete one was used");
            }
            Workload w = Workload.ofNullable(asLong(servingBlock, "completed_requests"),
                    asLong(servingBlock, "total_input_tokens"), asLong(servingBlock, "total_output_tokens"));
            return result(Mode.SERVING, servingBlock, w, List.of());
        }

        /** The result of a mode whose lines are read from their first one, or null when it has no metrics. */
        private ParsedOutput firstLine(Mode mode, Collector c, int lines, String label) {
            if (c.isEmpty()) {
                return null;
            }
            if (lines > 1) {
                warnings.add(lines + " " + label + " lines: the first was used");
            }
            return result(mode, c, null, List.of());
        }

        private ParsedOutput prefixCachingResult() {
            if (markerLine < 0) {
                return null;
            }
            if (speedLine == null) {
                warnings.add("'start generating' marker at line " + markerLine + " but no 'est. speed' line after it");
                return null;
            }
            Collector c = new Collector(warnings);
            c.put("output_throughput_tok_s", speedOutput, 1.0, speedLine.evidence(), speedLine);
            c.put("input_throughput_tok_s", speedInput, 1.0, speedLine.evidence(), speedLine);
            if (costTime != null) {
                c.put("duration_s", costTime, 1.0, costLine.evidence(), costLine);
            }
            return c.isEmpty() ? null : result(Mode.PREFIX_CACHING, c, null, List.of());
        }

        private ParsedOutput microOrNone() {
            if (!micro.isEmpty()) {
                Collector c = new Collector(warnings);
                for (MicroResult r : micro) {
                    if (r.ok()) {
                        c.put("micro_avg_ms", Double.toString(r.avgMs()), 1.0, r.line(), null);
                        if (r.p50Ms() != null) {
                            c.put("micro_p50_ms", Double.toString(r.p50Ms()), 1.0, r.line(), null);
                        }
                        break;
                    }
                }
                if (micro.size() > 1) {
                    warnings.add(micro.size() + " micro-benchmark result lines: metrics come from the first successful one");
                }
                for (MicroResult r : micro) {
                    if (r.error() != null) {
                        warnings.add("micro-benchmark error object: " + r.error());
                    }
                }
                return result(Mode.MICRO, c, null, micro);
            }
            if (servingHeaders > 0) {
                warnings.add("serving result header printed " + servingHeaders
                        + " time(s) but no block has a metric row: no metrics (a header is not a success)");
                return ParsedOutput.emptyResultBlock(warnings);
            }
            return ParsedOutput.empty(warnings);
        }

        private ParsedOutput result(Mode mode, Collector c, Workload workload, List<MicroResult> microResults) {
            return new ParsedOutput(mode, new ArrayList<>(c.metrics.values()), workload, c.evidence, warnings,
                    microResults, false);
        }

        private static Long asLong(Collector c, String name) {
            Metric m = c.metrics.get(name);
            return m == null ? null : Math.round(m.value());
        }

        // ---- serving block ------------------------------------------------------------------------------------

        /** Returns whether a header was seen on this line (a de-glued piece repeats the header of its segment). */
        private boolean serving(String piece, ConsoleText.Line line, boolean headerOnLine) {
            if (piece.indexOf(SERVING_HEADER) >= 0) {
                if (headerOnLine) {
                    return true;
                }
                servingComplete += servingHasRows ? 1 : 0;
                servingHeaders++;
                // once a block with rows is chosen, later blocks are only counted (no collector)
                servingCurrent = servingBlock == null ? new Collector(warnings) : null;
                servingStart = line.number();
                servingClosed = false;
                servingHasRows = false;
                return true;
            }
            if (servingHeaders == 0 || servingClosed) {
                return headerOnLine;
            }
            if (isRule(piece, '=')) {
                servingClosed = true;
                return headerOnLine;
            }
            if (piece.indexOf(':') < 0) {
                return headerOnLine;
            }
            Matcher m = ROW.matcher(piece);
            if (!m.matches()) {
                return headerOnLine;
            }
            String name = servingMetricName(m.group(1).strip());
            if (name == null) {
                return headerOnLine;
            }
            if (servingCurrent != null) {
                servingCurrent.put(name, m.group(2), 1.0, line.evidence(), line);
                if (servingBlock == null && !servingCurrent.isEmpty()) {
                    servingBlock = servingCurrent;
                }
            }
            servingHasRows = true;
            return headerOnLine;
        }

        private static boolean isRule(String piece, char c) {
            if (piece.length() < 10 || piece.charAt(0) != c) {
                return false;
            }
            for (int i = 1; i < piece.length(); i++) {
                if (piece.charAt(i) != c) {
                    return false;
                }
            }
            return true;
        }

        // ---- latency ------------------------------------------------------------------------------------------

        private void latency(String piece, ConsoleText.Line line) {
            if (piece.indexOf("latency: ") < 0) {
                return;
            }
            if (piece.indexOf("Avg latency: ") >= 0) {
                Matcher m = AVG_LATENCY.matcher(piece);
                if (m.find()) {
                    avgCount++;
                    if (!latency.has("latency_ms_avg")) {
                        latency.put("latency_ms_avg", m.group(1), 1000.0, line.evidence(), line);
                    }
                    return;
                }
            }
            // percentile lines belong to the first Avg latency line: they follow it
            if (avgCount == 1 && latency.has("latency_ms_avg") && piece.indexOf("% percentile latency: ") >= 0) {
                Matcher m = PCT_LATENCY.matcher(piece);
                if (m.lookingAt()) {
                    latency.put("latency_ms_p" + m.group(1), m.group(2), 1000.0, line.evidence(), line);
                }
            }
        }

        // ---- throughput ---------------------------------------------------------------------------------------

        private void throughput(String piece, ConsoleText.Line line) {
            if (piece.indexOf("Throughput: ") >= 0) {
                Matcher m = THROUGHPUT.matcher(piece);
                if (m.find()) {
                    throughputCount++;
                    if (throughputCount == 1) {
                        String ev = line.evidence();
                        throughput.put("request_throughput_rps", m.group(1), 1.0, ev, line);
                        throughput.put("total_throughput_tok_s", m.group(2), 1.0, ev, line);
                        if (m.group(4) != null) {
                            throughput.put("output_throughput_tok_s", m.group(4), 1.0, ev, line);
                        }
                    }
                }
            } else if (throughputCount >= 1 && piece.startsWith("Total num ")) {
                Matcher p = NUM_PROMPT_TOKENS.matcher(piece);
                if (p.lookingAt()) {
                    throughput.put("total_input_tokens", p.group(1), 1.0, line.evidence(), line);
                }
                Matcher o = NUM_OUTPUT_TOKENS.matcher(piece);
                if (o.lookingAt()) {
                    throughput.put("total_output_tokens", o.group(1), 1.0, line.evidence(), line);
                }
            }
        }

        // ---- prefix caching -----------------------------------------------------------------------------------

        private void prefixCaching(String piece, ConsoleText.Line line) {
            String p = piece;
            if (piece.indexOf("enerating") >= 0) {
                int at = lastIndexOfIgnoreCase(piece, "start generating");
                if (at >= 0) {
                    // a new marker: everything measured before it was warm-up
                    markerLine = line.number();
                    speedInput = null;
                    speedOutput = null;
                    speedLine = null;
                    costTime = null;
                    costLine = null;
                    p = piece.substring(at);
                }
            }
            if (markerLine < 0) {
                return;
            }
            if (p.indexOf("est. speed input: ") >= 0) {
                Matcher m = EST_SPEED.matcher(p);
                while (m.find()) {
                    speedInput = m.group(1);
                    speedOutput = m.group(2);
                    speedLine = line;
                    costTime = null;
                    costLine = null;
                }
            }
            if (costTime == null && speedLine != null && p.startsWith("cost time ")) {
                Matcher m = COST_TIME.matcher(p);
                if (m.lookingAt()) {
                    costTime = m.group(1);
                    costLine = line;
                }
            }
        }

        // ---- micro-benchmark JSON lines -----------------------------------------------------------------------

        private void micro(String piece, ConsoleText.Line line) {
            if (piece.charAt(0) != '{' || piece.charAt(piece.length() - 1) != '}'
                    || !(piece.contains("\"avg_ms\"") || piece.contains("\"impl_tag\"") || piece.contains("\"error\""))) {
                return;
            }
            MicroResult r = microLine(piece);
            if (r != null) {
                micro.add(r);
            }
        }

        private static MicroResult microLine(String piece) {
            JsonNode n;
            try {
                n = JSON.readTree(piece);
            } catch (Exception e) {
                return null;
            }
            if (n == null || !n.isObject()) {
                return null;
            }
            Double avg = finite(n.get("avg_ms"));
            String error = null;
            JsonNode err = n.get("error");
            if (err != null && !err.isNull() && !(err.isBoolean() && !err.asBoolean())) {
                error = err.isTextual() ? err.asText() : err.toString();
            }
            if (avg == null && error == null) {
                if (!n.has("impl_tag")) {
                    return null;
                }
                error = "no avg_ms in result object";
            }
            JsonNode tag = n.get("impl_tag");
            return new MicroResult(tag == null || tag.isNull() ? null : tag.asText(), avg, finite(n.get("p50_ms")),
                    finite(n.get("p95_ms")), error, ConsoleText.redact(piece));
        }

        private static Double finite(JsonNode v) {
            if (v == null || !v.isNumber()) {
                return null;
            }
            double d = v.asDouble();
            return Double.isFinite(d) ? d : null;
        }
    }
}
