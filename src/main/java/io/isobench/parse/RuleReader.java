package io.isobench.parse;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Applies declared {@link ReadRule}s to what a command printed or wrote: metric values (the last regex match, or the
 * number at a JSON path) and generated texts (every regex match, the elements of a JSON list, or the whole text).
 * Also the two primitives the accuracy hook reads its score with.
 */
public final class RuleReader {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Pattern PART = Pattern.compile("([^\\[]+)((\\[\\d+])*)");
    private static final Pattern INDEX = Pattern.compile("\\[(\\d+)]");

    private RuleReader() {
    }

    /**
     * What a command left to read.
     *
     * @param stdout its standard output
     * @param stderr its standard error
     * @param files  the contents of the files the rules name ({@code from: file}), by the rule's path; a file that
     *               was not there is absent
     */
    public record Streams(String stdout, String stderr, Map<String, String> files) {
        public Streams {
            stdout = stdout == null ? "" : stdout;
            stderr = stderr == null ? "" : stderr;
            files = files == null ? Map.of() : Map.copyOf(files);
        }

        /** The text a rule reads; null for a file that is not there. */
        public String text(ReadRule r) {
            return switch (r.from()) {
                case STDOUT -> stdout;
                case STDERR -> stderr;
                case FILE -> files.get(r.path());
            };
        }
    }

    /** One rule's value, or why there is none. */
    public record Value(Double value, String problem) {
    }

    /** The metrics of the rules that matched, and one line per rule that did not. */
    public record Read(List<Metric> metrics, Map<String, String> unmatched) {
        public Read {
            metrics = List.copyOf(metrics);
            unmatched = Collections.unmodifiableMap(new LinkedHashMap<>(unmatched));
        }
    }

    /** Applies every metric rule to the streams. */
    public static Read metrics(List<MetricRule> rules, Streams streams) {
        List<Metric> out = new ArrayList<>();
        Map<String, String> unmatched = new LinkedHashMap<>();
        for (MetricRule r : rules) {
            Value v = value(r.read(), streams);
            if (v.value() != null) {
                out.add(r.metric(v.value()));
            } else {
                unmatched.put(r.name(), v.problem());
            }
        }
        return new Read(out, unmatched);
    }

    /** A rule's number: its regex's last match, or the value at its JSON path. */
    public static Value value(ReadRule r, Streams streams) {
        String text = streams.text(r);
        if (text == null) {
            return new Value(null, "file " + r.path() + " was not written");
        }
        if (r.regex() != null) {
            String last = lastMatch(text, Pattern.compile(r.regex()));
            if (last == null) {
                return new Value(null, "no match of /" + r.regex() + "/ in " + where(r) + lastLine(text));
            }
            return number(last.strip(), "/" + r.regex() + "/ matched '" + last.strip() + "'");
        }
        if (r.jsonPath() != null) {
            JsonNode n = at(lastJson(text), r.jsonPath());
            if (n == null) {
                return new Value(null, "json_path " + r.jsonPath() + " is not in " + where(r));
            }
            return n.isNumber() ? new Value(n.asDouble(), null)
                    : number(n.asText(), "json_path " + r.jsonPath() + " is '" + n.asText() + "'");
        }
        return number(text.strip(), where(r) + " is '" + abbreviate(text.strip()) + "'");
    }

    /**
     * The generated texts a rule reads: every regex match (its first group, else the whole match), the elements of a
     * JSON list (or the one value) at the JSON path, or the whole text. Empty when nothing matched.
     */
    public static List<String> texts(ReadRule r, Streams streams) {
        String text = streams.text(r);
        if (text == null) {
            return List.of();
        }
        List<String> out = new ArrayList<>();
        if (r.regex() != null) {
            Matcher m = Pattern.compile(r.regex()).matcher(text);
            while (m.find()) {
                out.add(m.groupCount() >= 1 && m.group(1) != null ? m.group(1) : m.group());
            }
        } else if (r.jsonPath() != null) {
            JsonNode n = at(lastJson(text), r.jsonPath());
            if (n != null && n.isArray()) {
                n.forEach(e -> out.add(e.isTextual() ? e.asText() : e.toString()));
            } else if (n != null) {
                out.add(n.isTextual() ? n.asText() : n.toString());
            }
        } else {
            out.add(text);
        }
        return out;
    }

    /** The first group (else the whole match) of the last match of {@code p} in {@code text}; null when none. */
    public static String lastMatch(String text, Pattern p) {
        Matcher m = p.matcher(text);
        String last = null;
        while (m.find()) {
            last = m.groupCount() >= 1 && m.group(1) != null ? m.group(1) : m.group();
        }
        return last;
    }

    /** The node at a dotted path ({@code a.b[0]}); null when the document or the path is missing. */
    public static JsonNode at(JsonNode doc, String path) {
        if (doc == null) {
            return null;
        }
        JsonNode n = doc;
        for (String part : path.split("\\.")) {
            Matcher m = PART.matcher(part);
            if (!m.matches()) {
                return null;
            }
            n = n.path(m.group(1));
            Matcher idx = INDEX.matcher(m.group(2));
            while (idx.find()) {
                n = n.path(Integer.parseInt(idx.group(1)));
            }
        }
        return n.isMissingNode() || n.isNull() ? null : n;
    }

    /** The whole text as one JSON document, else its last line that is a JSON object; null when neither. */
    public static JsonNode lastJson(String output) {
        try {
            JsonNode all = JSON.readTree(output);
            if (all != null && all.isContainerNode()) {
                return all;
            }
        } catch (IOException e) {
            // not one document
        }
        List<String> lines = output.lines().toList();
        for (int i = lines.size() - 1; i >= 0; i--) {
            String l = lines.get(i).strip();
            if (l.startsWith("{") && l.endsWith("}")) {
                try {
                    return JSON.readTree(l);
                } catch (IOException e) {
                    // keep looking
                }
            }
        }
        return null;
    }

    /** {@code s} as a finite number, else the problem ({@code what}, not a number). */
    public static Value number(String s, String what) {
        try {
            double v = Double.parseDouble(s);
            if (Double.isNaN(v) || Double.isInfinite(v)) {
                return new Value(null, what + ", not a finite number");
            }
            return new Value(v, null);
        } catch (NumberFormatException e) {
            return new Value(null, what + ", not a number");
        }
    }

    private static String where(ReadRule r) {
        return r.from() == ReadRule.Source.FILE ? "file " + r.path() : r.from().label();
    }

    private static String lastLine(String text) {
        List<String> lines = text.strip().lines().filter(l -> !l.isBlank()).toList();
        return lines.isEmpty() ? " (it is empty)" : " (its last line: " + abbreviate(lines.get(lines.size() - 1)) + ")";
    }

    private static String abbreviate(String s) {
        return s.length() > 120 ? s.substring(0, 120) + "…" : s;
    }
}
