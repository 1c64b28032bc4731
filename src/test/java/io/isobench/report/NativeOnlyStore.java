package io.isobench.report;

import io.isobench.parse.Better;
import io.isobench.parse.Metric;
import io.isobench.store.RunRecord;
import io.isobench.store.SessionRecord;
import io.isobench.store.Store;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * A store with one native session and no imported data, as a blind llama2.c session leaves it (a generic engine's
 * offline command on a CPU-only machine, no GPU): task {@code offline} (primary metric {@code command_cpu_s} declared
 * by the suite's rules, its check comparing the command's own stdout) with the human, a correct agent
 * {@code agent:fast}, {@code agent:stale} whose patch does not apply (PATCH_FAILED on its check and each of its 5
 * rounds: 6 jobs, one failure) and {@code agent:wrong} whose output differs from the baseline's at character 110 (the
 * stored evidence: two identical 60-character prefixes, as the gate writes it); task {@code noisy} (a greedy server
 * check) with no agent arm and a human whose rounds scatter (inconclusive).
 */
final class NativeOnlyStore {

    static final String SESSION = "s-native";
    /** The baseline's output; {@link #WRONG} equals it up to character 110. */
    static final String TEXT = "Once upon a time, in a small village at the edge of a great forest, there lived a "
            + "curious little girl named Lily who loved to explore.";
    static final String WRONG = TEXT.substring(0, 110) + "X wandered off" + TEXT.substring(124);
    private static final Instant T0 = Instant.parse("2026-11-28T10:00:00Z");

    private final List<RunRecord> runs = new ArrayList<>();
    private int job;

    private NativeOnlyStore() {
    }

    static void write(Store store) {
        store.putSession(SessionRecord.builder(SESSION).time(T0, T0.plusSeconds(600))
                .machine("vm", "AMD EPYC, 2 cores", "none", "{}").seed(42L).status("complete").build());
        NativeOnlyStore s = new NativeOnlyStore();
        String reason = "vs baseline: 100 % of the greedy outputs differ (tolerance 0 %): one at a time: 0/1 exact (0 %), "
                + "first divergence: prompt 0, char 110; vs human: the human does not change outputs";
        s.check("offline", "baseline", "command", "REFERENCE", "the baseline's outputs are the reference", TEXT, null);
        s.check("offline", "human", "command", "MATCH", "one at a time: 1/1 exact (100 %)", TEXT, null);
        s.check("offline", "agent:fast", "command", "MATCH", "one at a time: 1/1 exact (100 %)", TEXT, null);
        s.check("offline", "agent:wrong", "command", "OUTPUT_MISMATCH", reason, WRONG,
                new RunRecord.FailureInfo("OUTPUT_MISMATCH", reason, "prompt 0: expected \"" + TEXT.substring(0, 60)
                        + "…\" got \"" + WRONG.substring(0, 60) + "…\"", false));
        s.check("offline", "agent:stale", "command", "CHECK_FAILED", "git apply --check stale.patch: error: patch "
                + "failed: run.c:639", null, patchFailed());
        s.check("noisy", "baseline", "server", "REFERENCE", "the baseline's outputs are the reference", TEXT, null);
        s.check("noisy", "human", "server", "MATCH", "one at a time: 8/8 exact (100 %)", TEXT, null);
        double[] human = {1.0, 2.6, 1.4, 0.7, 2.9};
        // a few per mille of noise per run, different for each arm
        double[][] n = {{1.000, 1.004, 0.998, 1.003, 1.001}, {1.002, 0.999, 1.004, 1.000, 0.997},
                {0.998, 1.003, 1.001, 0.996, 1.004}, {1.001, 0.997, 1.002, 1.004, 0.999}};
        for (int r = 0; r < 5; r++) {
            s.round("offline", "baseline", r, 2.30 * n[0][r]);
            s.round("offline", "human", r, 0.73 * n[1][r]);
            s.round("offline", "agent:fast", r, 0.77 * n[2][r]);
            s.round("offline", "agent:wrong", r, 0.65 * n[3][r]);
            s.round("offline", "agent:stale", r, null);
            s.round("noisy", "baseline", r, 2.0 * n[0][r]);
            s.round("noisy", "human", r, human[r]);
        }
        store.putRuns(s.runs);
    }

    private static RunRecord.FailureInfo patchFailed() {
        String line = "git apply --check stale.patch: error: patch failed: run.c:639";
        return new RunRecord.FailureInfo("PATCH_FAILED", line, line, false);
    }

    private RunRecord.Builder base(String task, String arm, String jobName) {
        RunRecord.Builder b = RunRecord.builder(SESSION + "/" + task + "/" + arm + "/" + jobName)
                .session(SESSION)
                .kind(RunRecord.RunKind.MEASURED)
                .commit("d421a95b2bfe0000000000000000000000000000", "d421a95b")
                .armLabel(arm)
                .modeLabel("throughput")
                .model("llama2c-model.bin")
                .startedAt(T0.plusSeconds(job))
                .durationMs(900.0)
                .argvJson("[\"./run\",\"model.bin\",\"-t\",\"0.3\"]");
        if (arm.startsWith("agent:")) {
            b.agent(arm.substring("agent:".length()));
        }
        return b;
    }

    private String details(String task, String arm, String jobName, String more) {
        return "{\"task\":\"" + task + "\",\"job\":\"" + task + "/" + arm + "/" + jobName + "\",\"job_index\":" + job++
                + ",\"hardware_id\":\"hw-cpu\",\"primary_definition\":{\"better\":\"lower\",\"name\":\"command_cpu_s\","
                + "\"unit\":\"s\"}" + more + "}";
    }

    private void check(String task, String arm, String probe, String outcome, String reason, String output,
                       RunRecord.FailureInfo failure) {
        String corr = ",\"correctness\":{\"thresholds\":{\"tolerance\":0.0,\"max_logprob_drift\":null,\"prompts\":8,"
                + "\"max_tokens\":32,\"probe\":\"" + probe + "\"},\"outcome\":\"" + outcome + "\",\"rule\":null,"
                + "\"reason\":\"" + reason + "\"}" + (output == null ? "" : ",\"outputs\":[\"" + output + "\"]");
        runs.add(base(task, arm, "check")
                .pipelineLabel("native-check")
                .status(failure == null ? RunRecord.RunStatus.SUCCESS : RunRecord.RunStatus.FAILED)
                .failure(failure)
                .detailsJson(details(task, arm, "check", corr))
                .build());
    }

    private void round(String task, String arm, int r, Double cpuS) {
        runs.add(base(task, arm, "r" + r)
                .round(r)
                .pipelineLabel("native")
                .status(cpuS == null ? RunRecord.RunStatus.FAILED : RunRecord.RunStatus.SUCCESS)
                .failure(cpuS == null ? patchFailed() : null)
                .primary("command_cpu_s", cpuS, cpuS == null ? null : "measured")
                .workload("{\"argv\":[\"./run\"]}")
                .detailsJson(details(task, arm, "r" + r, ""))
                .metrics(cpuS == null ? List.of() : List.of(new Metric("command_cpu_s", cpuS, "s", Better.LOWER),
                        new Metric("tok_s", 500 / cpuS, "tok/s", Better.HIGHER)))
                .build());
    }
}
