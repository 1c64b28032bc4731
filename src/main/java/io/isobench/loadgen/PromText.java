package io.isobench.loadgen;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * A parser of the Prometheus text exposition format (version 0.0.4, and the sample lines OpenMetrics shares with it):
 * {@code # TYPE} and {@code # HELP} lines, samples {@code name{label="value",…} value [timestamp]}, label values with
 * the escapes {@code \\}, {@code \"} and {@code \n}, the values {@code NaN}, {@code +Inf}, {@code -Inf}, and
 * OpenMetrics exemplars ({@code … # {…} v}, dropped). Counters ({@code _total}, {@code _created}) and histograms
 * ({@code _bucket}, {@code _sum}, {@code _count}) are kept as samples under their own names; {@link #familyOf} names
 * the family a sample belongs to. The parser is lenient by line: a malformed line is skipped and counted with its
 * reason (the first few are kept), so one bad line of a server's exporter never loses the rest of the scrape.
 */
public final class PromText {

    /** Reasons kept per scrape (the count is exact). */
    static final int KEPT_ERRORS = 5;

    private PromText() {
    }

    /** One sample: its name, its labels (sorted by name) and its value. */
    public record Sample(String name, Map<String, String> labels, double value) {
        public Sample {
            labels = Collections.unmodifiableMap(new TreeMap<>(labels));
        }

        /** The series key: {@code name{a="x",b="y"}} with labels sorted and values escaped as on the wire. */
        public String key() {
            if (labels.isEmpty()) {
                return name;
            }
            StringBuilder b = new StringBuilder(name).append('{');
            boolean first = true;
            for (Map.Entry<String, String> e : labels.entrySet()) {
                if (!first) {
                    b.append(',');
                }
                first = false;
                b.append(e.getKey()).append("=\"").append(escape(e.getValue())).append('"');
            }
            return b.append('}').toString();
        }
    }

    /**
     * A parsed exposition.
     *
     * @param types      family name → type ({@code counter}, {@code gauge}, {@code histogram}, {@code summary},
     *                   {@code untyped}, …) from the {@code # TYPE} lines
     * @param samples    the samples in the order they came
     * @param badLines   how many lines could not be parsed (skipped)
     * @param errors     the first {@value #KEPT_ERRORS} reasons, {@code line N: why}
     */
    public record Exposition(Map<String, String> types, List<Sample> samples, int badLines, List<String> errors) {
        public Exposition {
            types = Collections.unmodifiableMap(new LinkedHashMap<>(types));
            samples = List.copyOf(samples);
            errors = List.copyOf(errors);
        }
    }

    /** Parses an exposition; never throws on content (bad lines are counted in {@link Exposition#badLines}). */
    public static Exposition parse(String text) {
        Map<String, String> types = new LinkedHashMap<>();
        List<Sample> samples = new ArrayList<>();
        List<String> errors = new ArrayList<>();
        int bad = 0;
        int lineNo = 0;
        for (String raw : text.split("\n", -1)) {
            lineNo++;
            String line = raw.endsWith("\r") ? raw.substring(0, raw.length() - 1) : raw;
            if (line.isBlank()) {
                continue;
            }
            try {
                String t = line.stripLeading();
                if (t.startsWith("#")) {
                    comment(t, types);
                } else {
                    samples.add(sample(t));
                }
            } catch (IllegalArgumentException e) {
                bad++;
                if (errors.size() < KEPT_ERRORS) {
                    errors.add("line " + lineNo + ": " + e.getMessage());
                }
            }
        }
        return new Exposition(types, samples, bad, errors);
    }

    /**
     * The family a sample name belongs to, given the declared types: {@code x_bucket}/{@code x_sum}/{@code x_count}
     * of a histogram or summary {@code x}, {@code x_total}/{@code x_created} of a counter {@code x} (or of a counter
     * declared as {@code x_total}, as Python's prometheus_client writes it); else the name itself.
     */
    public static String familyOf(String sample, Map<String, String> types) {
        if (types.containsKey(sample)) {
            return sample;
        }
        for (String suffix : new String[] {"_bucket", "_sum", "_count", "_total", "_created"}) {
            if (sample.endsWith(suffix)) {
                String base = sample.substring(0, sample.length() - suffix.length());
                if (types.containsKey(base)) {
                    return base;
                }
                if (suffix.equals("_created") && types.containsKey(base + "_total")) {
                    return base + "_total";
                }
            }
        }
        return sample;
    }

    private static void comment(String line, Map<String, String> types) {
        String[] parts = line.substring(1).strip().split("[ \t]+", 3);
        if (parts.length >= 1 && parts[0].equals("TYPE")) {
            if (parts.length < 3 || !validName(parts[1])) {
                throw new IllegalArgumentException("malformed TYPE line");
            }
            types.put(parts[1], parts[2].strip());
        }
        // HELP and other comments carry nothing the summaries use
    }

    private static Sample sample(String line) {
        int i = 0;
        int n = line.length();
        while (i < n && nameChar(line.charAt(i), i == 0)) {
            i++;
        }
        if (i == 0) {
            throw new IllegalArgumentException("no metric name");
        }
        String name = line.substring(0, i);
        Map<String, String> labels = new LinkedHashMap<>();
        if (i < n && line.charAt(i) == '{') {
            i = labels(line, i + 1, labels);
        }
        String rest = line.substring(i).strip();
        if (rest.isEmpty()) {
            throw new IllegalArgumentException("no value for " + name);
        }
        int hash = rest.indexOf(" #");
        if (hash >= 0) {
            rest = rest.substring(0, hash).strip(); // an OpenMetrics exemplar
        }
        String[] vt = rest.split("[ \t]+");
        if (vt.length > 2) {
            throw new IllegalArgumentException("trailing text after the value of " + name);
        }
        if (vt.length == 2) {
            try {
                Long.parseLong(vt[1]);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("bad timestamp '" + vt[1] + "' of " + name);
            }
        }
        return new Sample(name, labels, value(vt[0], name));
    }

    /** Reads {@code a="x",b="y"}} from {@code i} (just after the brace); returns the index after the closing brace. */
    private static int labels(String line, int start, Map<String, String> out) {
        int i = start;
        int n = line.length();
        while (true) {
            while (i < n && (line.charAt(i) == ' ' || line.charAt(i) == '\t')) {
                i++;
            }
            if (i < n && line.charAt(i) == '}') {
                return i + 1;
            }
            int s = i;
            while (i < n && labelChar(line.charAt(i), i == s)) {
                i++;
            }
            if (i == s) {
                throw new IllegalArgumentException("bad label name at column " + (i + 1));
            }
            String label = line.substring(s, i);
            while (i < n && line.charAt(i) == ' ') {
                i++;
            }
            if (i + 1 >= n || line.charAt(i) != '=' || line.charAt(i + 1) != '"') {
                throw new IllegalArgumentException("label " + label + " has no quoted value");
            }
            i += 2;
            StringBuilder v = new StringBuilder();
            while (true) {
                if (i >= n) {
                    throw new IllegalArgumentException("unterminated value of label " + label);
                }
                char c = line.charAt(i++);
                if (c == '"') {
                    break;
                }
                if (c == '\\') {
                    if (i >= n) {
                        throw new IllegalArgumentException("unterminated escape in label " + label);
                    }
                    char e = line.charAt(i++);
                    switch (e) {
                        case '\\' -> v.append('\\');
                        case '"' -> v.append('"');
                        case 'n' -> v.append('\n');
                        default -> throw new IllegalArgumentException("bad escape \\" + e + " in label " + label);
                    }
                } else {
                    v.append(c);
                }
            }
            if (out.put(label, v.toString()) != null) {
                throw new IllegalArgumentException("label " + label + " given twice");
            }
            while (i < n && line.charAt(i) == ' ') {
                i++;
            }
            if (i < n && line.charAt(i) == ',') {
                i++;
            } else if (i < n && line.charAt(i) == '}') {
                return i + 1;
            } else {
                throw new IllegalArgumentException("expected ',' or '}' after label " + label);
            }
        }
    }

    private static double value(String s, String name) {
        switch (s) {
            case "NaN":
                return Double.NaN;
            case "+Inf", "Inf":
                return Double.POSITIVE_INFINITY;
            case "-Inf":
                return Double.NEGATIVE_INFINITY;
            default:
                try {
                    return Double.parseDouble(s);
                } catch (NumberFormatException e) {
                    throw new IllegalArgumentException("bad value '" + s + "' of " + name);
                }
        }
    }

    private static boolean validName(String s) {
        for (int i = 0; i < s.length(); i++) {
            if (!nameChar(s.charAt(i), i == 0)) {
                return false;
            }
        }
        return !s.isEmpty();
    }

    private static boolean nameChar(char c, boolean first) {
        return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || c == ':' || !first && c >= '0' && c <= '9';
    }

    private static boolean labelChar(char c, boolean first) {
        return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || !first && c >= '0' && c <= '9';
    }

    static String escape(String v) {
        return v.replace("\\", "\\\\").replace("\"", "\\\"").replace("\n", "\\n");
    }
}
