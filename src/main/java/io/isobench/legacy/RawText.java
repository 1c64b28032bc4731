package io.isobench.legacy;

import io.isobench.Mode;
import io.isobench.parse.ConsoleMode;

import java.math.BigDecimal;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The console shapes of legacy-import.md "Console formats" and the primary-metric regexes of its contract table.
 * Lines are split on {@code \n} only ({@code MULTILINE | UNIX_LINES}). When a raw text was head-truncated (R1 keeps
 * the first 3,000 characters), a match on the last line that ends the text without a newline is not trusted: the
 * number may have been cut.
 */
final class RawText {

    private static final int F = Pattern.MULTILINE | Pattern.UNIX_LINES;

    static final Pattern SERVING_HEADER = Pattern.compile("=+ Serving Benchmark Result =+", F);
    static final Pattern MEAN_TPOT = Pattern.compile("^Mean TPOT \\(ms\\):\\s+([0-9.]+)", F);
    static final Pattern AVG_LATENCY = Pattern.compile("Avg latency: ([0-9.eE+-]+) seconds", F);
    static final Pattern THROUGHPUT =
            Pattern.compile("Throughput: ([0-9.]+) requests/s, ([0-9.]+) (?:total )?tokens/s", F);
    static final Pattern START_GENERATING = Pattern.compile("------start generating------", F);
    static final Pattern EST_SPEED =
            Pattern.compile("est\\. speed input: ([0-9.]+) toks/s, output: ([0-9.]+) toks/s", F);

    private static final Pattern SUCCESSFUL_REQUESTS = Pattern.compile("^Successful requests:\\s+([0-9]+)", F);
    private static final Pattern TOTAL_INPUT_TOKENS = Pattern.compile("^Total input tokens:\\s+([0-9]+)", F);
    private static final Pattern TOTAL_GENERATED_TOKENS = Pattern.compile("^Total generated tokens:\\s+([0-9]+)", F);
    private static final Pattern OUTPUT_TOK_S = Pattern.compile("^Output token throughput \\(tok/s\\):\\s+([0-9.]+)", F);

    private final String text;
    private final boolean headTruncated;

    /**
     * @param text          the raw console text (null = none)
     * @param headTruncated true when the text is the head of a longer output (its last line may be cut)
     */
    RawText(String text, boolean headTruncated) {
        this.text = text == null ? "" : text;
        this.headTruncated = headTruncated;
    }

    boolean isEmpty() {
        return text.isBlank();
    }

    String text() {
        return text;
    }

    /** A decimal found in the text, as written (and the value it denotes, possibly scaled). */
    record Found(BigDecimal value, String text) {
    }

    /** First index of a serving-block header, or -1. */
    int servingHeader() {
        Matcher m = SERVING_HEADER.matcher(text);
        return m.find() ? m.start() : -1;
    }

    boolean hasServingBlock() {
        return servingHeader() >= 0;
    }

    /** The mode shown by the text ({@link ConsoleMode}), or null. */
    Mode mode() {
        return ConsoleMode.of(text).orElse(null);
    }

    /** The primary metric for a mode from the raw text (contract table), or null when the raw line is absent. */
    Found primary(Mode mode) {
        return switch (mode) {
            case SERVING -> fromServingBlock(MEAN_TPOT);
            case LATENCY -> {
                Found f = first(AVG_LATENCY, 1, 0);
                yield f == null ? null : scaled(f, 3);
            }
            case THROUGHPUT -> first(THROUGHPUT, 2, 0);
            case PREFIX_CACHING -> lastEstSpeedOutput();
            case MICRO -> null;
        };
    }

    /** Output tok/s of the first serving block, or null. */
    Found servingOutputTokS() {
        return fromServingBlock(OUTPUT_TOK_S);
    }

    /** Successful requests / total input tokens / generated tokens of the first serving block (null entries when absent). */
    Map<String, Long> workload() {
        Map<String, Long> w = new LinkedHashMap<>();
        if (!hasServingBlock()) {
            return w;
        }
        put(w, "successful_requests", fromServingBlock(SUCCESSFUL_REQUESTS));
        put(w, "total_input_tokens", fromServingBlock(TOTAL_INPUT_TOKENS));
        put(w, "total_generated_tokens", fromServingBlock(TOTAL_GENERATED_TOKENS));
        return w;
    }

    private static void put(Map<String, Long> w, String key, Found f) {
        if (f != null) {
            try {
                w.put(key, f.value().longValueExact());
            } catch (ArithmeticException ignored) {
                // not an integer: leave it out
            }
        }
    }

    private Found fromServingBlock(Pattern p) {
        int start = servingHeader();
        if (start < 0) {
            return null;
        }
        Matcher m = p.matcher(text);
        if (!m.find(start)) {
            return null;
        }
        return trusted(m.end(1)) ? decimal(m.group(1)) : null;
    }

    private Found first(Pattern p, int group, int from) {
        Matcher m = p.matcher(text);
        if (!m.find(from)) {
            return null;
        }
        return trusted(m.end(group)) ? decimal(m.group(group)) : null;
    }

    /** Output toks/s of the last {@code est. speed} after the last {@code ------start generating------}. */
    private Found lastEstSpeedOutput() {
        Matcher s = START_GENERATING.matcher(text);
        int marker = -1;
        while (s.find()) {
            marker = s.end();
        }
        if (marker < 0) {
            return null;
        }
        Matcher m = EST_SPEED.matcher(text);
        Found last = null;
        int lastEnd = -1;
        int from = marker;
        while (from <= text.length() && m.find(from)) {
            last = decimal(m.group(2));
            lastEnd = m.end(2);
            from = m.end();
        }
        return last != null && trusted(lastEnd) ? last : null;
    }

    /** A number ending at {@code end} is trusted unless the text was head-truncated and it sits on the cut last line. */
    private boolean trusted(int end) {
        return !headTruncated || text.indexOf('\n', end) >= 0;
    }

    static Found decimal(String s) {
        if (s == null) {
            return null;
        }
        try {
            BigDecimal d = new BigDecimal(s.strip());
            return new Found(d, d.toPlainString());
        } catch (NumberFormatException e) {
            return null;
        }
    }

    /** Multiplies by 10^places (seconds → ms), keeping the decimal text exact. */
    static Found scaled(Found f, int places) {
        BigDecimal d = f.value().movePointRight(places);
        if (d.scale() < 0) {
            d = d.setScale(0);
        }
        return new Found(d, d.toPlainString());
    }

    @Override
    public String toString() {
        return String.format(Locale.ROOT, "RawText[%d chars%s]", text.length(), headTruncated ? ", head" : "");
    }
}
