package io.isobench.plan;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.isobench.guard.Secrets;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * What a session will run (DESIGN §4): tasks × arms × rounds, interleaved per round in the seeded random order of
 * {@link RoundOrder}, the correctness checks first. Pure data; {@link #toText()} and {@link #toJson()} are what
 * {@code isobench run --dry-run} prints, and the session stores the JSON beside its results.
 *
 * @param suite   suite name
 * @param repo    the engine repository (local path)
 * @param rounds  measured rounds
 * @param seed    seed of the per-round order
 * @param aa      every round measures the A/A arm ({@code baseline-aa})
 * @param arms    every (task, arm) environment
 * @param jobs    the jobs in execution order
 * @param order   per round and task, the order its arms run in
 * @param skipped tasks not run, with the reason
 */
public record Plan(String suite, Path repo, int rounds, long seed, boolean aa, List<ArmSpec> arms, List<Job> jobs,
                   List<RoundEntry> order, List<SkippedTask> skipped) {

    public static final String FORMAT_ID = "isobench-plan/2";

    /** The arms of one task in one round, in the order they run (round 0-based). */
    public record RoundEntry(int round, String taskId, List<String> arms) {
        public RoundEntry {
            arms = List.copyOf(arms);
        }
    }

    public Plan {
        arms = List.copyOf(arms);
        jobs = List.copyOf(jobs);
        order = List.copyOf(order);
        skipped = List.copyOf(skipped);
    }

    public long measuredJobs() {
        return jobs.stream().filter(j -> j.kind() == Job.Kind.MEASURE).count();
    }

    public java.util.Optional<ArmSpec> arm(String taskId, String arm) {
        return arms.stream().filter(a -> a.taskId().equals(taskId) && a.arm().equals(arm)).findFirst();
    }

    /** The plan as a JSON-ready map (stable key order). */
    public Map<String, Object> toMap() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("format", FORMAT_ID);
        m.put("suite", suite);
        m.put("repo", repo == null ? null : repo.toString());
        m.put("rounds", rounds);
        m.put("seed", seed);
        m.put("aa", aa);
        m.put("order_rule", "per round: tasks in a random order, each task's arms back to back in a random order"
                + " (java.util.SplittableRandom(seed), Fisher-Yates)");
        List<Map<String, Object>> armList = new ArrayList<>();
        for (ArmSpec a : arms) {
            Map<String, Object> am = new LinkedHashMap<>();
            am.put("task", a.taskId());
            am.put("arm", a.arm());
            am.put("commit", a.commitRef());
            am.put("patch", a.patch() == null ? null : a.patch().toString());
            am.put("worktree", a.worktree().toString());
            if (!a.recipes().isEmpty()) {
                am.put("recipes", a.recipes());
            }
            if (!a.build().isEmpty()) {
                am.put("build", Secrets.argv(a.build()));
            }
            armList.add(am);
        }
        m.put("arms", armList);
        List<Map<String, Object>> jobList = new ArrayList<>();
        for (Job j : jobs) {
            Map<String, Object> jm = new LinkedHashMap<>();
            jm.put("index", j.index());
            jm.put("id", j.jobId());
            jm.put("task", j.taskId());
            jm.put("arm", j.arm());
            jm.put("round", j.round());
            jm.put("kind", j.kind().name().toLowerCase(Locale.ROOT));
            jm.put("mode", j.mode());
            jm.put(j.serving() ? "server_argv" : "argv", Secrets.argv(j.argv()));
            if (j.serving()) {
                jm.put("client", Secrets.argv(j.client()));
                jm.put("warmup_requests", j.warmupRequests());
            }
            jm.put("env", new java.util.TreeMap<>(Secrets.env(j.env())));
            jm.put("cwd", j.cwd().toString());
            Map<String, Object> t = new LinkedHashMap<>();
            if (j.serving()) {
                t.put("server_start_s", j.serverStartS());
            }
            t.put("run_s", j.runTimeoutS());
            jm.put("timeouts", t);
            jm.put("gpus", j.gpus());
            jobList.add(jm);
        }
        m.put("jobs", jobList);
        List<Map<String, Object>> orderList = new ArrayList<>();
        for (RoundEntry e : order) {
            Map<String, Object> om = new LinkedHashMap<>();
            om.put("round", e.round());
            om.put("task", e.taskId());
            om.put("arms", e.arms());
            orderList.add(om);
        }
        m.put("order", orderList);
        List<Map<String, Object>> sk = new ArrayList<>();
        for (SkippedTask s : skipped) {
            sk.add(new LinkedHashMap<>(Map.of("task", s.taskId(), "category", s.category(), "reason", s.reason())));
        }
        m.put("skipped", sk);
        return m;
    }

    public String toJson() {
        try {
            return new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValueAsString(toMap()) + "\n";
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    public String toText() {
        StringBuilder sb = new StringBuilder();
        sb.append(String.format(Locale.ROOT, "plan: suite %s, %d task(s), %d arm(s), %d round(s), seed %d, %d job(s),"
                        + " A/A arm %s%n", suite, arms.stream().map(ArmSpec::taskId).distinct().count(), arms.size(),
                rounds, seed, jobs.size(), aa ? "on" : "off"));
        for (ArmSpec a : arms) {
            sb.append(String.format(Locale.ROOT, "  env %-12s %-16s commit %s%s -> %s%n", a.taskId(), a.arm(),
                    a.commitRef(), a.patch() == null ? "" : " + patch " + a.patch(), a.worktree()));
            if (!a.recipes().isEmpty()) {
                sb.append("       recipes ").append(String.join(", ", a.recipes())).append('\n');
            }
            if (!a.build().isEmpty()) {
                sb.append("       build ").append(String.join(" ", Secrets.argv(a.build()))).append('\n');
            }
        }
        for (Job j : jobs) {
            sb.append(String.format(Locale.ROOT, "%4d %-28s %-7s %-10s gpus=%d timeout=%ds%s%n", j.index() + 1,
                    j.jobId(), j.kind().name().toLowerCase(Locale.ROOT), j.mode(), j.gpus(), j.runTimeoutS(),
                    j.serving() ? " start<=" + j.serverStartS() + "s warmup=" + j.warmupRequests() : ""));
            sb.append("       cwd  ").append(j.cwd()).append('\n');
            sb.append("       argv ").append(String.join(" ", Secrets.argv(j.argv()))).append('\n');
            if (j.serving() && j.kind() == Job.Kind.MEASURE) {
                sb.append("       client ").append(String.join(" ", Secrets.argv(j.client()))).append('\n');
            }
            if (!j.env().isEmpty()) {
                sb.append("       env  ").append(new java.util.TreeMap<>(Secrets.env(j.env()))).append('\n');
            }
        }
        if (!order.isEmpty()) {
            sb.append("order (per round: tasks in a random order, each task's arms back to back in a random order):\n");
            int r = -1;
            StringBuilder line = new StringBuilder();
            for (RoundEntry e : order) {
                if (e.round() != r) {
                    if (r >= 0) {
                        sb.append(line).append('\n');
                    }
                    r = e.round();
                    line = new StringBuilder(String.format(Locale.ROOT, "  round %d:", r + 1));
                } else {
                    line.append(';');
                }
                line.append(' ').append(e.taskId()).append(": ").append(String.join(", ", e.arms()));
            }
            sb.append(line).append('\n');
        }
        for (SkippedTask s : skipped) {
            sb.append("skipped ").append(s.taskId()).append(": ").append(s.category()).append(" — ")
                    .append(s.reason()).append('\n');
        }
        return sb.toString();
    }
}
