package io.isobench.analysis;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.isobench.Arm;
import io.isobench.Mode;
import io.isobench.parse.Better;
import io.isobench.parse.MetricDictionary;
import io.isobench.store.RunFilter;
import io.isobench.store.RunRecord;
import io.isobench.store.Store;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The statistics of one native session: per task, its primary metric's {@link TaskAnalysis} over the measured
 * rounds, which arms failed the correctness gate, and each arm's failure outcomes counted by category. Computed
 * from the stored runs (derived and recomputable; one pass over the session's runs).
 */
public record SessionAnalysis(String sessionId, List<TaskResult> tasks, StatsConfig config) {

    /**
     * One task.
     *
     * @param taskId     the task
     * @param mode       its mode
     * @param commit     the human commit
     * @param arms       arm labels in plan order (baseline, human, agents)
     * @param analysis   statistics and verdicts of the primary metric; null when baseline or human has no arm rows
     * @param outcomes   per arm: failure category → runs (agent outcomes such as PATCH_FAILED, SERVER_CRASHED…)
     * @param incorrect  arms whose greedy outputs failed the gate
     * @param findings   per arm: patch-review findings (e.g. SUSPICIOUS_PATCH: touches benchmarks/)
     * @param runs       per arm: measured runs
     */
    public record TaskResult(String taskId, String mode, String commit, List<String> arms, TaskAnalysis analysis,
                             Map<String, Map<String, Integer>> outcomes, Set<String> incorrect,
                             Map<String, List<String>> findings, Map<String, Integer> runs) {
    }

    private static final ObjectMapper JSON = new ObjectMapper();

    public static SessionAnalysis of(Store store, String sessionId, StatsConfig config) {
        Map<String, List<Parsed>> byTask = new LinkedHashMap<>();
        store.forEachRun(new RunFilter(null, Set.of(RunRecord.RunKind.MEASURED), sessionId, false), r -> {
            JsonNode x = extra(r);
            JsonNode t = x.path("task");
            if (t.isTextual()) {
                byTask.computeIfAbsent(t.asText(), k -> new ArrayList<>())
                        .add(new Parsed(r, x, x.path("job_index").asInt(Integer.MAX_VALUE)));
            }
        });
        List<TaskResult> out = new ArrayList<>();
        for (Map.Entry<String, List<Parsed>> e : byTask.entrySet()) {
            out.add(task(e.getKey(), e.getValue(), config));
        }
        out.sort(Comparator.comparingInt(t -> firstIndex(byTask.get(t.taskId()))));
        return new SessionAnalysis(sessionId, out, config);
    }

    /** A run with its extra_json parsed once. */
    private record Parsed(RunRecord run, JsonNode extra, int jobIndex) {
    }

    private static int firstIndex(List<Parsed> runs) {
        return runs.stream().mapToInt(Parsed::jobIndex).min().orElse(0);
    }

    private static TaskResult task(String taskId, List<Parsed> runs, StatsConfig config) {
        runs.sort(Comparator.comparingInt(Parsed::jobIndex));
        List<String> arms = new ArrayList<>();
        Map<String, List<double[]>> samples = new LinkedHashMap<>();
        Map<String, Map<String, Integer>> outcomes = new LinkedHashMap<>();
        Map<String, List<String>> findings = new LinkedHashMap<>();
        Map<String, Integer> measured = new LinkedHashMap<>();
        java.util.Set<String> incorrect = new java.util.LinkedHashSet<>();
        String mode = null;
        String commit = null;
        String metric = null;
        for (Parsed p : runs) {
            RunRecord r = p.run();
            if (!arms.contains(r.arm())) {
                arms.add(r.arm());
            }
            mode = mode == null ? r.mode() : mode;
            commit = commit == null ? r.commit() : commit;
            JsonNode x = p.extra();
            for (JsonNode f : x.path("review_findings")) {
                List<String> l = findings.computeIfAbsent(r.arm(), k -> new ArrayList<>());
                if (!l.contains(f.asText())) {
                    l.add(f.asText());
                }
            }
            if (r.status() == RunRecord.RunStatus.NOT_RUN) {
                continue; // interrupted, not finished
            }
            if (r.failure() != null) {
                if ("OUTPUT_MISMATCH".equals(r.failure().category())) {
                    incorrect.add(r.arm());
                }
                outcomes.computeIfAbsent(r.arm(), k -> new TreeMap<>()).merge(r.failure().category(), 1, Integer::sum);
            }
            if (!"native".equals(r.pipeline())) {
                continue;
            }
            measured.merge(r.arm(), 1, Integer::sum);
            if (r.status() == RunRecord.RunStatus.SUCCESS && r.primaryValue() != null) {
                metric = r.primaryMetric();
                samples.computeIfAbsent(r.arm(), k -> new ArrayList<>())
                        .add(new double[] {r.round(), r.primaryValue()});
            }
        }
        if (metric == null && mode != null) {
            metric = Mode.fromLabel(mode).map(MetricDictionary::primaryMetric).orElse(null);
        }
        TaskAnalysis analysis = null;
        if (metric != null && arms.contains("baseline") && arms.contains("human")) {
            Better better = MetricDictionary.lookup(metric).better();
            List<ArmSamples> agents = new ArrayList<>();
            for (String a : arms) {
                if (a.startsWith("agent:")) {
                    agents.add(armSamples(a, samples, incorrect));
                }
            }
            analysis = TaskAnalysis.analyse(new TaskAnalysis.Input(metric, better,
                    armSamples("baseline", samples, incorrect), armSamples("human", samples, incorrect), agents), config);
        }
        return new TaskResult(taskId, mode, commit, arms, analysis, outcomes, incorrect, findings, measured);
    }

    private static ArmSamples armSamples(String label, Map<String, List<double[]>> samples, Set<String> incorrect) {
        List<double[]> s = new ArrayList<>(samples.getOrDefault(label, List.of()));
        s.sort(Comparator.comparingDouble(a -> a[0]));
        ArmSamples out = ArmSamples.of(Arm.fromLabel(label), s.stream().mapToDouble(a -> a[1]).toArray());
        return incorrect.contains(label) ? out.markedIncorrect() : out;
    }

    private static JsonNode extra(RunRecord r) {
        if (r.extraJson() == null) {
            return JSON.missingNode();
        }
        try {
            return JSON.readTree(r.extraJson());
        } catch (Exception e) {
            return JSON.missingNode();
        }
    }
}
