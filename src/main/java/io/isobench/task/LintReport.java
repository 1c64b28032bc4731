package io.isobench.task;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Renders lint results: a text table for people, JSON lines for machines. The JSON shape is a contract (sealed by the
 * golden file {@code src/test/resources/golden/perf-commands.jsonl}).
 */
public final class LintReport {

    /** Format id written in the golden file's header. */
    public static final String FORMAT_ID = "isobench-perf-command-lint/1";

    private static final ObjectMapper JSON = new ObjectMapper().disable(SerializationFeature.INDENT_OUTPUT);

    private LintReport() {
    }

    /** One JSON object per line, in input order. */
    public static String jsonLines(List<TaskLint.Linted> items) {
        StringBuilder b = new StringBuilder();
        for (TaskLint.Linted l : items) {
            b.append(json(l)).append('\n');
        }
        return b.toString();
    }

    public static String json(TaskLint.Linted l) {
        try {
            return JSON.writeValueAsString(toMap(l));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot render lint result for " + l.id(), e);
        }
    }

    /** The JSON object of one linted command (field order fixed). */
    public static Map<String, Object> toMap(TaskLint.Linted l) {
        ParsedPerfCommand p = l.command();
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("id", l.id());
        m.put("perf_command", p.raw());
        m.put("runnable", l.runnable());
        m.put("tool", p.tool().name().toLowerCase(Locale.ROOT));
        m.put("script", p.script());
        m.put("mode", p.mode() == null ? null : p.mode().label());
        m.put("model", p.model());
        m.put("model_from_task", p.modelFromTask());
        m.put("env", p.env());
        m.put("argv", p.argv());
        m.put("gpus", p.gpus());
        if (p.modelSize() != null) {
            Map<String, Object> s = new LinkedHashMap<>();
            s.put("params_b", p.modelSize().paramsB());
            s.put("bytes_per_param", p.modelSize().bytesPerParam());
            s.put("weights_gb", Math.round(p.modelSize().weightsGb() * 10) / 10.0);
            s.put("gpus_needed", p.modelSize().gpusNeeded());
            s.put("basis", p.modelSize().basis());
            m.put("model_size_estimate", s);
        } else {
            m.put("model_size_estimate", null);
        }
        m.put("server_argv", p.serverArgv().isEmpty() ? null : p.serverArgv());
        m.put("client_argv", p.client() == null ? null : p.client().argv());
        List<Map<String, String>> fs = new ArrayList<>();
        for (Finding f : p.findings()) {
            Map<String, String> fm = new LinkedHashMap<>();
            fm.put("code", f.code());
            fm.put("severity", f.severity().label());
            fm.put("message", f.message());
            fs.add(fm);
        }
        m.put("findings", fs);
        return m;
    }

    /** A text report: one block per command with its mode, model, GPUs and findings, then a summary line. */
    public static String text(List<TaskLint.Linted> items) {
        StringBuilder b = new StringBuilder();
        b.append(String.format(Locale.ROOT, "%-10s %-6s %-15s %-45s %4s  %s%n", "TASK", "STATUS", "MODE", "MODEL",
                "GPUS", "TOOL"));
        int errors = 0;
        int warnings = 0;
        int runnable = 0;
        for (TaskLint.Linted l : items) {
            ParsedPerfCommand p = l.command();
            String status = l.runnable() ? (p.findings().isEmpty() ? "ok" : "warn") : "ERROR";
            b.append(String.format(Locale.ROOT, "%-10s %-6s %-15s %-45s %4d  %s%n", l.id(), status,
                    p.mode() == null ? "-" : p.mode().label(), p.model() == null ? "-" : p.model(), p.gpus(),
                    p.script() == null ? "-" : p.script()));
            for (Finding f : p.findings()) {
                b.append("    ").append(f.severity().label()).append(' ').append(f.code()).append(": ")
                        .append(f.message()).append('\n');
                if (f.isError()) {
                    errors++;
                } else {
                    warnings++;
                }
            }
            if (l.runnable()) {
                runnable++;
            }
        }
        b.append(String.format(Locale.ROOT, "%d command(s): %d runnable, %d not runnable; %d error(s), %d warning(s)%n",
                items.size(), runnable, items.size() - runnable, errors, warnings));
        return b.toString();
    }
}
