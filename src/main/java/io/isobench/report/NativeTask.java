package io.isobench.report;

import io.isobench.Arm;
import io.isobench.store.Pipeline;
import io.isobench.analysis.SessionAnalysis;
import io.isobench.store.RunDetails;
import io.isobench.store.RunFilter;
import io.isobench.store.RunRecord;
import io.isobench.store.SessionRecord;
import io.isobench.store.Store;

import java.io.IOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

import static io.isobench.report.Html.nz;

/**
 * A native task of the report model: its session, the analysis, and what a task page shows beyond the statistics
 * ({@link TaskExtra}), with the name of its page.
 */
record NativeTask(SessionRecord session, SessionAnalysis.TaskResult result, TaskExtra extra, String page) {

    /** Metrics kept per task (the primary one first, with statistics; the others descriptive). */
    static final int MAX_METRICS = 24;

    /** A failed run of a native task ({@code logArtifact}: its full log in the store, or null). */
    record RunFailure(String arm, int round, String category, String detail, String evidence, boolean retryable,
                      String logArtifact) {
    }

    /** Per task: samples per arm in round order, failures, fingerprint, environment and provenance. */
    static final class TaskExtra {
        final Map<String, TreeMap<Integer, Double>> samples = new LinkedHashMap<>();
        /** Every metric of the successful native rounds: metric → arm → round → value. */
        final Map<String, Map<String, TreeMap<Integer, Double>>> metrics = new TreeMap<>();
        final Map<String, io.isobench.parse.Metric> metricInfo = new LinkedHashMap<>();
        final List<RunFailure> failures = new ArrayList<>();
        final Map<String, String> env = new LinkedHashMap<>();
        final Map<String, String> argv = new LinkedHashMap<>();
        final Map<String, String> patch = new LinkedHashMap<>();
        final Set<String> workloads = new LinkedHashSet<>();
        String intended;
        String verified;
        Instant first;
        Instant last;
    }

    /**
     * The tasks of one analysed session ({@code sIndex}: its 1-based place among the store's sessions, for the page
     * names), with one pass over its measured runs; the log artifacts of its failed runs go to {@code failedLogs}.
     */
    static List<NativeTask> collect(Store store, SessionRecord s, SessionAnalysis a, int sIndex,
                                    Set<String> failedLogs) {
        List<NativeTask> out = new ArrayList<>();
        Map<String, String> metricOf = new LinkedHashMap<>();
        Map<String, TaskExtra> extras = new LinkedHashMap<>();
        for (SessionAnalysis.TaskResult t : a.tasks()) {
            metricOf.put(t.taskId(), t.analysis() == null ? null : t.analysis().metric());
            extras.put(t.taskId(), new TaskExtra());
        }
        store.forEachRun(new RunFilter(null, Set.of(RunRecord.RunKind.MEASURED), a.sessionId(), true), r -> {
            RunDetails x = r.details();
            TaskExtra e = extras.get(x.task() == null ? "" : x.task());
            if (e == null) {
                return;
            }
            add(r, x, e, metricOf.get(x.task()));
            if (r.failure() != null && r.logArtifact() != null) {
                failedLogs.add(r.logArtifact());
            }
        });
        int tIndex = 0;
        for (SessionAnalysis.TaskResult t : a.tasks()) {
            tIndex++;
            out.add(new NativeTask(s, t, extras.get(t.taskId()), "task-" + sIndex + "-" + tIndex + ".html"));
        }
        return out;
    }

    private static void add(RunRecord r, RunDetails x, TaskExtra e, String metric) {
        if (r.startedAt() != null) {
            e.first = e.first == null || r.startedAt().isBefore(e.first) ? r.startedAt() : e.first;
            e.last = e.last == null || r.startedAt().isAfter(e.last) ? r.startedAt() : e.last;
        }
        if (r.workload() != null) {
            e.workloads.add(r.workload());
        }
        e.env.putIfAbsent(r.arm().label(), "engine " + nz(r.engineVersion()) + "; env " + nz(r.envRef()) + "; model "
                + nz(r.model()));
        if (r.argvJson() != null) {
            e.argv.putIfAbsent(r.arm().label(), r.argvJson());
        }
        if (x.intendedCommit() != null && e.intended == null) {
            e.intended = x.intendedCommit();
        }
        if (x.verifiedCommit() != null && !r.arm().equals(Arm.BASELINE) && e.verified == null) {
            e.verified = x.verifiedCommit();
        }
        if (x.patchSha256() != null) {
            e.patch.putIfAbsent(r.arm().label(), x.patchSha256());
        }
        if (r.status() == RunRecord.RunStatus.NOT_RUN) {
            return;
        }
        if (r.failure() != null) {
            e.failures.add(new RunFailure(r.arm().label(), r.round(), r.failure().category(), r.failure().detail(),
                    r.failure().evidence(), r.failure().retryable(), r.logArtifact()));
        }
        // the same samples SessionAnalysis analyses: successful native rounds of the task's primary metric
        if (Pipeline.NATIVE.equals(r.pipeline()) && r.status() == RunRecord.RunStatus.SUCCESS && r.primaryValue() != null
                && (metric == null || metric.equals(r.primaryMetric()))) {
            e.samples.computeIfAbsent(r.arm().label(), k -> new TreeMap<>()).put(r.round(), r.primaryValue());
        }
        if (Pipeline.NATIVE.equals(r.pipeline()) && r.status() == RunRecord.RunStatus.SUCCESS) {
            for (io.isobench.parse.Metric mt : r.metrics()) {
                if (Double.isFinite(mt.value()) && (e.metrics.containsKey(mt.name()) || e.metrics.size() < MAX_METRICS)) {
                    e.metricInfo.putIfAbsent(mt.name(), mt);
                    e.metrics.computeIfAbsent(mt.name(), k -> new LinkedHashMap<>())
                            .computeIfAbsent(r.arm().label(), k -> new TreeMap<>()).put(r.round(), mt.value());
                }
            }
        }
    }
}
