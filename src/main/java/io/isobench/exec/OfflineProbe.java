package io.isobench.exec;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.isobench.guard.InsideTree;
import io.isobench.probe.Greedy;
import io.isobench.probe.Probe;
import io.isobench.probe.ProbeException;
import io.isobench.parse.Failure;
import io.isobench.parse.FailureCategory;
import io.isobench.parse.FailureClassifier;
import io.isobench.plan.Job;
import io.isobench.plan.JobSpec;
import io.isobench.proc.ProcessGroup;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The correctness check through a task's offline entry point ({@code correctness.offline_command}): isobench writes
 * the probe prompts to {@code .isobench-probe-prompts.jsonl} in the arm's worktree (one JSON string per line; removed
 * afterwards), runs the command there without a shell through the executor's launcher (local process group or
 * container), and reads one JSON object per prompt from its output: {@code {"text": …, "token_ids": […]?,
 * "logprobs": […]?}}, in prompt order; other lines are ignored.
 */
final class OfflineProbe {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String PROMPTS_FILE = ".isobench-probe-prompts.jsonl";

    private OfflineProbe() {
    }

    /**
     * The probe prompts written into the arm's worktree and the command with its placeholders filled in; or, when the
     * prompts cannot be written, the failed result.
     */
    record Prepared(List<String> argv, Path prompts, int n, JobResult failure) {
        /** Removes the prompts file (it lives in the arm's worktree). */
        void cleanUp() {
            if (prompts != null) {
                try {
                    Files.deleteIfExists(prompts);
                } catch (IOException e) {
                    // temp file
                }
            }
        }
    }

    static Prepared prepare(Job job, long t0, Map<String, Double> timings) {
        JobSpec.Probes probes = job.probes();
        int n = probes.numPrompts();
        String maxTokens = Integer.toString(probes.maxTokens());
        String model = probes.model() != null ? probes.model() : "model";
        Path prompts;
        try {
            // inside the arm's environment, so a container or cluster executor that shares the worktree sees it too
            prompts = job.cwd().resolve(PROMPTS_FILE);
            StringBuilder sb = new StringBuilder();
            for (String p : Greedy.prompts(n)) {
                sb.append(JSON.writeValueAsString(p)).append('\n');
            }
            // its real path must stay in the worktree: a link the agent patch planted under this name is refused
            InsideTree.write(job.cwd(), PROMPTS_FILE, sb.toString().getBytes(StandardCharsets.UTF_8));
        } catch (InsideTree.Outside e) {
            // a link planted in the tree (by a patch): the arm's outcome, never a write outside it
            return new Prepared(job.argv(), null, n, JobResult.failed(t0, new Failure(FailureCategory.PATCH_FAILED,
                    "cannot write the probe prompts: " + e.getMessage(), List.of(e.getMessage())), "", timings,
                    job.argv()).withProbeFailure(ProbeException.Kind.OFFLINE_PROBE_FAILED));
        } catch (IOException e) {
            return new Prepared(job.argv(), null, n, JobResult.failed(t0, new Failure(FailureCategory.DISK_FULL,
                    "cannot write the probe prompts: " + e.getMessage(), List.of(String.valueOf(e.getMessage()))), "",
                    timings, job.argv()).withProbeFailure(ProbeException.Kind.OFFLINE_PROBE_FAILED));
        }
        Path file = prompts;
        List<String> argv = job.argv().stream().map(w -> w.replace("{prompts_file}", file.toString())
                .replace("{max_tokens}", maxTokens).replace("{model}", model)).toList();
        return new Prepared(argv, prompts, n, null);
    }

    /**
     * Runs the job's offline probe command through {@code launch} to its end or its limit and reads its outputs.
     *
     * @param t0      {@code System.nanoTime()} when the job began
     * @param timings the job's phases ({@code client_ms}, {@code teardown_ms} added)
     */
    static JobResult run(Job job, Executor.Hooks hooks, Path log, long t0, Map<String, Double> timings,
                         Launch launch) {
        Prepared prepared = prepare(job, t0, timings);
        if (prepared.failure() != null) {
            return prepared.failure();
        }
        List<String> argv = prepared.argv();
        try {
            ProcessGroup pg;
            try {
                pg = launch.start(job, argv, log);
            } catch (IOException e) {
                return JobResult.failed(t0, new Failure(FailureCategory.BAD_PERF_COMMAND,
                        "cannot start the offline probe command "
                        + argv.get(0) + ": " + e.getMessage(), List.of(String.valueOf(e.getMessage()))), "", timings,
                        argv).withProbeFailure(ProbeException.Kind.OFFLINE_PROBE_FAILED);
            }
            hooks.processGroupStarted().accept(pg.pgid());
            long tc = System.nanoTime();
            Integer exit = null;
            long end = System.nanoTime() + Duration.ofSeconds(job.limits().runS()).toNanos();
            try {
                while (exit == null && System.nanoTime() < end && !hooks.cancelled().getAsBoolean()) {
                    exit = pg.waitFor(Duration.ofMillis(100));
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } finally {
                long td = System.nanoTime();
                launch.stop(job, pg);
                timings.put("client_ms", (td - tc) / 1e6);
                timings.put("teardown_ms", (System.nanoTime() - td) / 1e6);
            }
            return finish(job, prepared, exit, read(log), t0, timings);
        } finally {
            prepared.cleanUp();
        }
    }

    /**
     * The result of a finished (or, {@code exit} null, killed at its limit) offline probe command from its output.
     */
    static JobResult finish(Job job, Prepared prepared, Integer exit, String text, long t0,
                            Map<String, Double> timings) {
        List<String> argv = prepared.argv();
        int n = prepared.n();
        if (exit == null) {
            return JobResult.failed(t0, new Failure(FailureCategory.TIMEOUT,
                    "OFFLINE_PROBE_FAILED: the offline probe command"
                    + " ran past " + job.limits().runS() + " s and was killed", List.of("timeout " + job.limits().runS()
                    + " s")), text, timings, argv).withProbeFailure(ProbeException.Kind.OFFLINE_PROBE_FAILED);
        }
        if (exit != 0) {
            Optional<Failure> f = FailureClassifier.classify(text);
            String detail = "OFFLINE_PROBE_FAILED: the offline probe command exited with code " + exit;
            Failure failure = f.isPresent() && f.get().category().precedence() == 1
                    ? new Failure(f.get().category(), detail + " (" + f.get().detail() + ")", f.get().evidence())
                    : new Failure(FailureCategory.UNKNOWN, detail, lastLines(text));
            return JobResult.failed(t0, failure, text, timings, argv)
                    .withProbeFailure(ProbeException.Kind.OFFLINE_PROBE_FAILED);
        }
        List<Probe> probes = parse(text);
        if (probes.size() != n) {
            return JobResult.failed(t0, new Failure(FailureCategory.NO_METRICS,
                    "OFFLINE_PROBE_FAILED: the offline probe"
                    + " command printed " + probes.size() + " output line(s) for " + n + " prompts (one JSON object"
                    + " {\"text\": …} per prompt expected)", lastLines(text)), text, timings, argv)
                    .withProbeFailure(ProbeException.Kind.OFFLINE_PROBE_FAILED);
        }
        // one pass: the command decides its own batching (docs/correctness.md)
        return JobResult.ended(t0, null, List.of(), null, text, timings, argv)
                .withOutputs(probes.stream().map(Probe::text).toList())
                .withProbes(Greedy.ProbeRun.sequentialOnly(probes).toJson());
    }

    /** The probe lines of the command's output: JSON objects with a {@code text} field, in order. */
    static List<Probe> parse(String output) {
        List<Probe> out = new ArrayList<>();
        for (String line : output.lines().toList()) {
            String l = line.strip();
            if (!l.startsWith("{") || !l.endsWith("}")) {
                continue;
            }
            try {
                JsonNode n = JSON.readTree(l);
                if (n.path("text").isTextual()) {
                    out.add(Probe.of(n));
                }
            } catch (IOException e) {
                // not a probe line
            }
        }
        return out;
    }

    private static List<String> lastLines(String text) {
        List<String> lines = text.strip().lines().filter(l -> !l.isBlank()).toList();
        return List.copyOf(lines.subList(Math.max(0, lines.size() - 3), lines.size()));
    }

    private static String read(Path log) {
        return ProcessGroup.readLog(log);
    }
}
