package io.isobench.plan;

import com.fasterxml.jackson.databind.JsonNode;
import io.isobench.IsobenchException;
import io.isobench.task.AgentSpec;
import io.isobench.task.GpuEstimate;
import io.isobench.task.InputLines;
import io.isobench.task.RoundsPlan;
import io.isobench.task.Suite;
import io.isobench.task.SuiteLoader;
import io.isobench.task.TaskSpec;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Jobs for {@code plan simulate}: from a suite YAML (GPU needs from each task's command and model; durations from a
 * side file, else the task's run limit) or from an ISO-Bench {@code exports/full_results.jsonl} ({@code gpu_config},
 * {@code perf_command}, {@code model}, {@code duration_s}). Jobs = tasks × arms × rounds.
 */
public final class SimInput {

    /**
     * @param arms          arms per task; null: 3 for ISO-Bench files, baseline + human + the agents with a patch for
     *                      the task for suites
     * @param rounds        rounds; null: 5 for ISO-Bench files, the suite's {@code run.rounds}
     * @param durationsFile side file for suites: {@code id seconds} per line (also {@code id,seconds} or
     *                      {@code id: seconds}; {@code #} comments), or an ISO-Bench full_results.jsonl matched by
     *                      commit; null for none
     */
    public record Options(Integer arms, Integer rounds, Path durationsFile) {
        public static final Options DEFAULT = new Options(null, null, null);
    }

    /** The jobs, and the tasks left out with the reason (lint error, no duration). */
    public record Jobs(List<SimJob> jobs, Map<String, String> skipped, String source) {
        public Jobs {
            jobs = List.copyOf(jobs);
            skipped = Collections.unmodifiableMap(new LinkedHashMap<>(skipped));
        }
    }

    public static final int ISO_BENCH_ARMS = 3;

    private static final String[] ARM_NAMES = {"baseline", "human", "agent"};

    private SimInput() {
    }

    public static Jobs load(Path file, Options options) {
        if (!Files.isRegularFile(file)) {
            throw IsobenchException.badInput("%s: no such file (fix: give a suite .yaml or an ISO-Bench"
                    + " full_results.jsonl)", file);
        }
        String name = file.getFileName().toString().toLowerCase(Locale.ROOT);
        if (name.endsWith(".yaml") || name.endsWith(".yml")) {
            return fromSuite(file, options);
        }
        if (name.endsWith(".jsonl") || name.endsWith(".json")) {
            return fromIsoBench(file, options);
        }
        throw IsobenchException.badInput("%s: unknown input type (fix: a suite .yaml/.yml or an ISO-Bench"
                + " full_results.jsonl)", file);
    }

    /** One ISO-Bench row: the fields the simulator uses. */
    record Row(String commit, String perfCommand, String model, String gpuConfig, Double durationS, int line) {
    }

    static List<Row> readRows(Path file) {
        List<Row> rows = new ArrayList<>();
        for (InputLines.Json line : InputLines.json(file)) {
            if (line.error() != null) {
                throw IsobenchException.badInput("%s:%d: not a JSON object (fix: one ISO-Bench result per line, as"
                        + " exports/full_results.jsonl)", file, line.number());
            }
            JsonNode n = line.node();
            if (n == null || !n.isObject()) {
                throw IsobenchException.badInput("%s:%d: not a JSON object (fix: one ISO-Bench result per line)",
                        file, line.number());
            }
            JsonNode d = n.get("duration_s");
            rows.add(new Row(text(n, "commit_hash"), text(n, "perf_command"), text(n, "model"),
                    text(n, "gpu_config"), d != null && d.isNumber() ? d.asDouble() : null, line.number()));
        }
        return rows;
    }

    private static String text(JsonNode n, String key) {
        JsonNode v = n.get(key);
        return v == null || v.isNull() || v.asText().isBlank() ? null : v.asText();
    }

    static Jobs fromIsoBench(Path file, Options options) {
        int arms = options.arms() != null ? options.arms() : ISO_BENCH_ARMS;
        int rounds = options.rounds() != null ? options.rounds() : RoundsPlan.DEFAULT.planned();
        List<SimJob> jobs = new ArrayList<>();
        Map<String, String> skipped = new LinkedHashMap<>();
        for (Row r : readRows(file)) {
            String id = r.commit() == null ? "line" + r.line() : r.commit().substring(0, Math.min(8, r.commit().length()));
            if (r.durationS() == null || r.durationS() < 0 || r.durationS().isInfinite() || r.durationS().isNaN()) {
                skipped.put(id, "no duration_s (line " + r.line() + ")");
                continue;
            }
            GpuEstimate g = GpuEstimate.forCommand(r.perfCommand(), r.model(), r.gpuConfig());
            String basis = g.basis() + "; duration_s " + fmt(r.durationS()) + " from ISO-Bench";
            addJobs(jobs, new Shape(id, arms, rounds, null), g.gpus(), r.durationS(), basis);
        }
        return new Jobs(jobs, skipped, file + " (" + arms + " arm(s) × " + rounds + " round(s))");
    }

    static Jobs fromSuite(Path file, Options options) {
        Suite suite = SuiteLoader.load(file, false);
        suite.requireCommits();
        Map<String, Double> durations = options.durationsFile() == null ? Map.of() : readDurations(options.durationsFile());
        int rounds = options.rounds() != null ? options.rounds() : suite.run().rounds().planned();
        List<SimJob> jobs = new ArrayList<>();
        Map<String, String> skipped = new LinkedHashMap<>();
        Map<String, String> lint = new LinkedHashMap<>();
        suite.notRunnable().forEach((id, findings) -> lint.put(id, "lint error: " + findings.get(0).code()));
        for (TaskSpec t : suite.tasks()) {
            if (lint.containsKey(t.id())) {
                skipped.put(t.id(), lint.get(t.id()));
                continue;
            }
            GpuEstimate g = GpuEstimate.forTask(t);
            Double d = lookup(durations, t);
            String durationBasis;
            if (d != null) {
                durationBasis = "duration " + fmt(d) + " s from " + options.durationsFile().getFileName();
            } else {
                d = (double) (t.timeoutS() != null ? t.timeoutS() : suite.run().timeouts().runS());
                durationBasis = "no duration estimate: the run limit " + fmt(d) + " s (an upper bound)";
            }
            List<String> armNames = new ArrayList<>(List.of("baseline", "human"));
            for (AgentSpec a : suite.agents()) {
                if (a.patchFor(t.id()).isPresent()) {
                    armNames.add(a.name());
                }
            }
            int arms = options.arms() != null ? options.arms() : armNames.size();
            addJobs(jobs, new Shape(t.id(), arms, rounds, armNames), g.gpus(), d, g.basis() + "; " + durationBasis);
        }
        return new Jobs(jobs, skipped, file + " (" + (options.arms() != null ? options.arms() + " arm(s)"
                : "arms from the suite") + " × " + rounds + " round(s))");
    }

    /** A task's jobs to simulate: {@code arms} arms ({@code armNames}, else the default names) × {@code rounds}. */
    private record Shape(String taskId, int arms, int rounds, List<String> armNames) {
    }

    private static void addJobs(List<SimJob> jobs, Shape shape, int gpus, double durationS, String basis) {
        String taskId = shape.taskId();
        int arms = shape.arms();
        int rounds = shape.rounds();
        List<String> armNames = shape.armNames();
        if (arms < 1 || rounds < 1) {
            throw IsobenchException.badInput("--arms (%d) and --rounds (%d) must be >= 1", arms, rounds);
        }
        for (int round = 1; round <= rounds; round++) {
            for (int a = 0; a < arms; a++) {
                List<String> names = armNames != null ? armNames : List.of(ARM_NAMES);
                String arm = a < names.size() ? names.get(a) : "arm" + (a + 1);
                jobs.add(new SimJob(taskId + "/" + arm + "/r" + round, taskId, gpus, durationS, basis));
            }
        }
    }

    private static Double lookup(Map<String, Double> durations, TaskSpec t) {
        Double d = durations.get(t.id());
        if (d != null) {
            return d;
        }
        for (Map.Entry<String, Double> e : durations.entrySet()) {
            String k = e.getKey();
            if (k.length() >= 7 && (k.startsWith(t.id()) || k.startsWith(t.humanCommit())
                    || t.humanCommit().startsWith(k))) {
                return e.getValue();
            }
        }
        return null;
    }

    /** A durations side file: {@code id seconds} lines, or an ISO-Bench full_results.jsonl (commit → duration_s). */
    static Map<String, Double> readDurations(Path file) {
        Map<String, Double> out = new LinkedHashMap<>();
        if (!Files.isRegularFile(file)) {
            throw IsobenchException.badInput("%s: no such durations file (fix: lines 'TASK_ID SECONDS', or an"
                    + " ISO-Bench full_results.jsonl)", file);
        }
        if (file.getFileName().toString().toLowerCase(Locale.ROOT).endsWith(".jsonl")) {
            for (Row r : readRows(file)) {
                if (r.commit() != null && r.durationS() != null) {
                    out.putIfAbsent(r.commit(), r.durationS());
                }
            }
            return out;
        }
        List<String> lines = InputLines.read(file);
        for (int i = 0; i < lines.size(); i++) {
            String l = lines.get(i);
            int hash = l.indexOf('#');
            if (hash >= 0) {
                l = l.substring(0, hash);
            }
            l = l.strip();
            if (l.isEmpty()) {
                continue;
            }
            String[] f = l.split("[\\s,:]+");
            double v;
            try {
                v = f.length == 2 ? Double.parseDouble(f[1]) : Double.NaN;
            } catch (NumberFormatException e) {
                v = Double.NaN;
            }
            if (!(v >= 0) || Double.isInfinite(v)) {
                throw IsobenchException.badInput("%s:%d: '%s' unreadable (fix: 'TASK_ID SECONDS', seconds >= 0)",
                        file, i + 1, lines.get(i).strip());
            }
            out.put(f[0], v);
        }
        return out;
    }

    static String fmt(double v) {
        return String.format(Locale.ROOT, "%.1f", v);
    }
}
