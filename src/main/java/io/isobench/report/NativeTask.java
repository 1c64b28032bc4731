package io.isobench.report;

import io.isobench.analysis.SessionAnalysis;
import io.isobench.analysis.StatsConfig;
import io.isobench.store.RunDetails;
import io.isobench.store.RunFilter;
import io.isobench.store.RunRecord;
import io.isobench.store.SessionRecord;
import io.isobench.store.Store;

import java.io.IOException;
import java.nio.file.Files;
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
 * A native task of the HTML report: its session, the analysis, and what a task page shows beyond the statistics
 * ({@link TaskExtra}), with the name of its page.
 */
record NativeTask(SessionRecord session, SessionAnalysis.TaskResult result, TaskExtra extra, String page) {


    /** A failed run of a native task. */
    record RunFailure(String arm, int round, String category, String detail, String evidence, boolean retryable,
                      String logFile) {
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

    static List<NativeTask> collect(Store store, MarkdownReport.Options options, Site site)
            throws IOException {
        List<NativeTask> out = new ArrayList<>();
        int sIndex = 0;
        String wanted = options.agent() == null ? null : io.isobench.Arm.agent(options.agent()).label();
        for (SessionRecord s : store.sessions()) {
            sIndex++;
            SessionAnalysis a = SessionAnalysis.of(store, s.sessionId(), StatsConfig.defaults());
            if (a.tasks().isEmpty()) {
                continue;
            }
            if (wanted != null && a.tasks().stream().noneMatch(t -> t.arms().contains(wanted))) {
                continue;
            }
            Map<String, String> metricOf = new LinkedHashMap<>();
            Map<String, TaskExtra> extras = new LinkedHashMap<>();
            for (SessionAnalysis.TaskResult t : a.tasks()) {
                metricOf.put(t.taskId(), t.analysis() == null ? null : t.analysis().metric());
                extras.put(t.taskId(), new TaskExtra());
            }
            List<RunRecord> failedWithLog = new ArrayList<>();
            store.forEachRun(new RunFilter(null, Set.of(RunRecord.RunKind.MEASURED), s.sessionId(), true), r -> {
                RunDetails x = r.details();
                TaskExtra e = extras.get(x.task() == null ? "" : x.task());
                if (e == null) {
                    return;
                }
                add(r, x, e, metricOf.get(x.task()));
                if (r.failure() != null && r.logArtifact() != null) {
                    failedWithLog.add(r);
                }
            });
            // the full logs of failed runs, beside the pages
            Map<String, String> logFiles = new LinkedHashMap<>();
            for (RunRecord r : failedWithLog) {
                if (!logFiles.containsKey(r.logArtifact())) {
                    byte[] bytes = store.artifact(r.logArtifact()).orElse(null);
                    if (bytes != null) {
                        String name = "logs/" + r.logArtifact().replaceAll("[^0-9a-fA-F]", "") + ".log.txt";
                        Files.createDirectories(site.dir.resolve("logs"));
                        io.isobench.guard.AtomicFile.write(site.dir.resolve(name), bytes);
                        logFiles.put(r.logArtifact(), name);
                    }
                }
            }
            int tIndex = 0;
            for (SessionAnalysis.TaskResult t : a.tasks()) {
                tIndex++;
                TaskExtra e = extras.get(t.taskId());
                List<RunFailure> linked = new ArrayList<>();
                for (RunFailure f : e.failures) {
                    linked.add(new RunFailure(f.arm(), f.round(), f.category(), f.detail(), f.evidence(),
                            f.retryable(), f.logFile() == null ? null : logFiles.get(f.logFile())));
                }
                e.failures.clear();
                e.failures.addAll(linked);
                out.add(new NativeTask(s, t, e, "task-" + sIndex + "-" + tIndex + ".html"));
            }
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
        e.env.putIfAbsent(r.arm(), "engine " + nz(r.engineVersion()) + "; env " + nz(r.envRef()) + "; model "
                + nz(r.model()));
        if (r.argvJson() != null) {
            e.argv.putIfAbsent(r.arm(), r.argvJson());
        }
        if (x.intendedCommit() != null && e.intended == null) {
            e.intended = x.intendedCommit();
        }
        if (x.verifiedCommit() != null && "baseline".equals(r.arm()) == false && e.verified == null) {
            e.verified = x.verifiedCommit();
        }
        if (x.patchSha256() != null) {
            e.patch.putIfAbsent(r.arm(), x.patchSha256());
        }
        if (r.status() == RunRecord.RunStatus.NOT_RUN) {
            return;
        }
        if (r.failure() != null) {
            e.failures.add(new RunFailure(r.arm(), r.round(), r.failure().category(), r.failure().detail(),
                    r.failure().evidence(), r.failure().retryable(), r.logArtifact()));
        }
        // the same samples SessionAnalysis analyses: successful native rounds of the task's primary metric
        if ("native".equals(r.pipeline()) && r.status() == RunRecord.RunStatus.SUCCESS && r.primaryValue() != null
                && (metric == null || metric.equals(r.primaryMetric()))) {
            e.samples.computeIfAbsent(r.arm(), k -> new TreeMap<>()).put(r.round(), r.primaryValue());
        }
        if ("native".equals(r.pipeline()) && r.status() == RunRecord.RunStatus.SUCCESS) {
            for (io.isobench.parse.Metric mt : r.metrics()) {
                if (Double.isFinite(mt.value()) && (e.metrics.containsKey(mt.name()) || e.metrics.size() < HtmlReport.MAX_METRICS)) {
                    e.metricInfo.putIfAbsent(mt.name(), mt);
                    e.metrics.computeIfAbsent(mt.name(), k -> new LinkedHashMap<>())
                            .computeIfAbsent(r.arm(), k -> new TreeMap<>()).put(r.round(), mt.value());
                }
            }
        }
    }
}
