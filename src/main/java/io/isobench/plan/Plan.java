package io.isobench.plan;

import io.isobench.Arm;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.isobench.guard.Secrets;
import io.isobench.parse.MetricRule;
import io.isobench.parse.Readout;
import io.isobench.task.ArtifactSpec;
import io.isobench.task.RoundsPlan;
import io.isobench.task.Sweep;
import io.isobench.task.TaskSpec;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * What a session will run (DESIGN §4): tasks × arms × rounds, interleaved per round in the seeded random order of
 * {@link RoundOrder}, the correctness checks first. Pure data; {@link #toText()} and {@link #toJson()} are what
 * {@code isobench run --dry-run} prints, and the session stores the JSON beside its results.
 *
 * @param header  the suite and its schedule
 * @param arms    every (task, arm) environment
 * @param jobs    the jobs in execution order
 * @param order   per round and task, the order its arms run in
 * @param skipped tasks not run, with the reason
 * @param setup   steps run once before the environments (a bundle's clone, the suite's {@code setup:} commands)
 * @param pilots  per {@code sweep: auto} task whose points are not decided yet, the baseline's measured job its pilots
 *                run from ({@link AutoSweep#pilotJob}; the session's pilot phase runs them before round 1, then
 *                plans again with the points); such a task has no rounds in this plan
 */
public record Plan(Header header, List<ArmSpec> arms, List<Job> jobs, List<RoundEntry> order,
                   List<SkippedTask> skipped, List<SetupStep> setup, List<Job> pilots) {

    public static final String FORMAT_ID = "isobench-plan/2";

    /**
     * The suite and its schedule.
     *
     * @param suite      suite name
     * @param repo       the engine repository (local path)
     * @param rounds     measured rounds planned (an adaptive plan: its maximum; tasks may stop earlier)
     * @param seed       seed of the per-round order
     * @param aa         every round measures the A/A arm ({@code baseline-aa})
     * @param roundsPlan fixed or adaptive, and the adaptive design's settings
     */
    public record Header(String suite, Path repo, int rounds, long seed, boolean aa,
                         RoundsPlan roundsPlan) {
        public Header {
            roundsPlan = roundsPlan == null ? RoundsPlan.fixed(Math.max(1, rounds)) : roundsPlan;
        }
    }

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
        setup = setup == null ? List.of() : List.copyOf(setup);
        pilots = pilots == null ? List.of() : List.copyOf(pilots);
    }

    /** The one line {@code --dry-run} prints for a {@code sweep: auto} task before its pilots. */
    public static String pilotLine(Job template, Sweep sweep) {
        return template.taskId() + ": points decided by pilots against the baseline before round 1: rule "
                + AutoSweep.ruleText(AutoSweep.settingsOf(sweep), sweep.minGoodFraction());
    }

    private String pilotText(Job j) {
        return pilotLine(j, j.sweepPoint().sweep());
    }

    public String suite() {
        return header.suite();
    }

    public Path repo() {
        return header.repo();
    }

    public int rounds() {
        return header.rounds();
    }

    public long seed() {
        return header.seed();
    }

    public boolean aa() {
        return header.aa();
    }

    public long measuredJobs() {
        return jobs.stream().filter(j -> j.kind() == Job.Kind.MEASURE).count();
    }

    /** The arm spec of {@code arm} at {@code taskId}. */
    public Optional<ArmSpec> arm(String taskId, Arm arm) {
        return arms.stream().filter(a -> a.taskId().equals(taskId) && a.arm().equals(arm)).findFirst();
    }

    /** The plan as a JSON-ready map (stable key order). */
    public Map<String, Object> toMap() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("format", FORMAT_ID);
        m.put("suite", suite());
        m.put("repo", repo() == null ? null : repo().toString());
        m.put("rounds", rounds());
        RoundsPlan rp = header.roundsPlan();
        if (rp.adaptive()) {
            Map<String, Object> rm = new LinkedHashMap<>();
            rm.put("design", "adaptive");
            rm.put("min_rounds", rp.minRounds());
            rm.put("max_rounds", rp.maxRounds());
            rm.put("spending", rp.spending());
            rm.put("futility_power", rp.futilityPower());
            rm.put("gating", rp.gating());
            m.put("rounds_plan", rm);
        }
        m.put("seed", seed());
        m.put("aa", aa());
        m.put("order_rule", "per round: tasks in a random order, each task's arms back to back in a random order"
                + " (java.util.SplittableRandom(seed), Fisher-Yates)");
        if (!setup.isEmpty()) {
            List<Map<String, Object>> steps = new ArrayList<>();
            for (SetupStep st : setup) {
                Map<String, Object> sm = new LinkedHashMap<>();
                sm.put("what", st.what());
                sm.put("argv", st.argv());
                sm.put("cwd", st.cwd().toString());
                sm.put("creates", st.creates() == null ? null : st.creates().toString());
                steps.add(sm);
            }
            m.put("setup", steps);
        }
        List<Map<String, Object>> armList = new ArrayList<>();
        for (ArmSpec a : arms) {
            Map<String, Object> am = new LinkedHashMap<>();
            am.put("task", a.taskId());
            am.put("arm", a.label());
            am.put("commit", a.commitRef());
            am.put("patch", a.patch() == null ? null : a.patch().toString());
            if (a.attemptRun() != null) {
                am.put("attempt_run", a.attemptRun()); // the stored attempt the patch is (run --attempts-of)
            }
            am.put("worktree", a.worktree().toString());
            if (!a.recipes().isEmpty()) {
                am.put("recipes", a.recipes());
            }
            if (!a.build().isEmpty()) {
                am.put("build", Secrets.argv(a.build()));
            }
            if (a.artifact() != null) {
                Map<String, Object> art = new LinkedHashMap<>(a.artifact().toMap());
                art.put("install", a.artifact().installArgv("{file}", a.worktree(), "python3"));
                art.put("env", a.artifact().variables(a.worktree(), "$PATH", "$PYTHONPATH"));
                am.put("artifact", art);
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
            jm.put("arm", j.arm().label());
            jm.put("round", j.round());
            jm.put("kind", j.kind().name().toLowerCase(Locale.ROOT));
            jm.put("mode", j.mode().label());
            jm.put(j.serving() ? "server_argv" : "argv", Secrets.argv(j.argv()));
            switch (j.spec()) {
                case JobSpec.Measure ms -> {
                    if (j.serving()) {
                        jm.put("client", Secrets.argv(ms.client().argv()));
                        jm.put("warmup_requests", ms.warmupRequests());
                        if (ms.point() != null) {
                            Map<String, Object> pm = new LinkedHashMap<>();
                            pm.put(ms.point().sweep().kind().label(), ms.point().value());
                            pm.put("index", ms.point().index());
                            jm.put("sweep_point", pm);
                        }
                    }
                }
                case JobSpec.Check c -> jm.put("check", probesMap(c.probes()));
                case JobSpec.Accuracy a -> {
                    Map<String, Object> am = accuracyMap(a.settings());
                    am.put("suite_dir", a.suiteDir());
                    jm.put("accuracy", am);
                }
            }
            jm.put("env", new TreeMap<>(Secrets.env(j.env())));
            jm.put("cwd", j.cwd().toString());
            Map<String, Object> t = new LinkedHashMap<>();
            if (j.serving()) {
                t.put("server_start_s", j.limits().serverStartS());
            }
            t.put("run_s", j.limits().runS());
            jm.put("timeouts", t);
            jm.put("gpus", j.gpus());
            if (j.readout() != null) {
                jm.put("readout", readoutMap(j.readout()));
            }
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
        if (!pilots.isEmpty()) {
            List<Map<String, Object>> pl = new ArrayList<>();
            for (Job j : pilots) {
                Map<String, Object> pm = new LinkedHashMap<>();
                pm.put("task", j.taskId());
                pm.put("arm", j.arm().label());
                pm.put("server_argv", Secrets.argv(j.argv()));
                pm.put("client", Secrets.argv(j.client().argv()));
                pm.put("rule", pilotText(j));
                pl.add(pm);
            }
            m.put("sweep_pilots", pl);
        }
        return m;
    }

    private static Map<String, Object> probesMap(JobSpec.Probes p) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("probe", p.via().label());
        m.put("repeat", p.repeat());
        if (p.via() == JobSpec.Via.COMMAND) {
            return m;
        }
        m.put("model", p.model());
        m.put("num_prompts", p.numPrompts());
        m.put("max_tokens", p.maxTokens());
        m.put("tolerance", p.tolerance());
        m.put("logprobs", p.logprobs());
        return m;
    }

    private static Map<String, Object> accuracyMap(TaskSpec.Accuracy a) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("score", a.scoreRegex() != null ? "regex " + a.scoreRegex() : "json_path " + a.jsonPath());
        m.put("higher_is_better", a.higherIsBetter());
        m.put("tolerance_abs", a.toleranceAbs());
        m.put("tolerance_rel", a.toleranceRel());
        return m;
    }

    /** A check's probe settings, one line of the text plan. */
    private static String probesLine(JobSpec.Probes p) {
        return String.format(Locale.ROOT, "%d prompt(s) x %d token(s) of %s, tolerance %s%s, %s%s", p.numPrompts(),
                p.maxTokens(), p.model(), p.tolerance(), p.logprobs() ? ", logprobs" : "",
                p.offline() ? "offline probe command" : "server", p.repeat() ? ", repeat" : "");
    }

    private static Map<String, Object> readoutMap(Readout r) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("primary", r.primary());
        List<Map<String, Object>> rules = new ArrayList<>();
        for (MetricRule mr : r.metrics()) {
            Map<String, Object> rm = new LinkedHashMap<>();
            rm.put("name", mr.name());
            rm.put("read", mr.read().describe());
            rm.put("unit", mr.unit());
            rm.put("better", mr.better().label());
            rules.add(rm);
        }
        m.put("metrics", rules);
        if (r.output() != null) {
            m.put("output", r.output().describe());
        }
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
        RoundsPlan rp = header.roundsPlan();
        sb.append(String.format(Locale.ROOT, "plan: suite %s, %d task(s), %d arm(s), %s, seed %d, %s job(s),"
                        + " A/A arm %s%n", suite(), arms.stream().map(ArmSpec::taskId).distinct().count(), arms.size(),
                rp.adaptive() ? "up to " + rounds() + " round(s)" : rounds() + " round(s)", seed(),
                rp.adaptive() ? "up to " + jobs.size() : Integer.toString(jobs.size()), aa() ? "on" : "off"));
        if (rp.adaptive()) {
            sb.append("  rounds: ").append(rp.describe()).append('\n');
        }
        for (SetupStep st : setup) {
            sb.append("  setup ").append(st.what()).append(": ").append(String.join(" ", st.argv()))
                    .append(st.creates() == null ? "" : "   (skipped when " + st.creates() + " exists)").append('\n');
        }
        for (ArmSpec a : arms) {
            sb.append(String.format(Locale.ROOT, "  env %-12s %-16s commit %s%s -> %s%n", a.taskId(), a.label(),
                    a.commitRef(), a.patch() == null ? "" : " + patch " + a.patch(), a.worktree()));
            if (a.artifact() != null) {
                ArtifactSpec.Resolved r = a.artifact();
                sb.append("       artifact ").append(r.type().label()).append(' ').append(r.packageName())
                        .append(" version ").append(r.version()).append(" from ").append(r.source())
                        .append(r.sha256() == null ? "" : " sha256 " + r.sha256()).append(", verify ")
                        .append(r.verify().label()).append(r.check().isEmpty() ? ""
                                : ", check " + String.join(" ", r.check())).append('\n');
                List<String> install = r.installArgv("{file}", a.worktree(), "python3");
                sb.append("       install ").append(install.isEmpty() ? "copy {file} to " + a.worktree().resolve("bin")
                        .resolve(r.packageName()) : String.join(" ", install)).append('\n');
                sb.append("       arm env ").append(r.variables(a.worktree(), "$PATH", "$PYTHONPATH")).append('\n');
            }
            if (!a.recipes().isEmpty()) {
                sb.append("       recipes ").append(String.join(", ", a.recipes())).append('\n');
            }
            if (!a.build().isEmpty()) {
                sb.append("       build ").append(String.join(" ", Secrets.argv(a.build()))).append('\n');
            }
        }
        for (Job j : jobs) {
            sb.append(String.format(Locale.ROOT, "%4d %-28s %-7s %-10s gpus=%d timeout=%ds%s%n", j.index() + 1,
                    j.jobId(), j.kind().name().toLowerCase(Locale.ROOT), j.mode(), j.gpus(), j.limits().runS(),
                    j.serving() ? " start<=" + j.limits().serverStartS() + "s warmup=" + j.warmupRequests() : ""));
            sb.append("       cwd  ").append(j.cwd()).append('\n');
            sb.append("       argv ").append(String.join(" ", Secrets.argv(j.argv()))).append('\n');
            switch (j.spec()) {
                case JobSpec.Measure ms -> {
                    if (j.serving()) {
                        sb.append("       client ").append(String.join(" ", Secrets.argv(ms.client().argv()))).append('\n');
                    }
                }
                case JobSpec.Check c -> {
                    if (c.probes().via() != JobSpec.Via.COMMAND) {
                        sb.append("       probes ").append(probesLine(c.probes())).append('\n');
                    }
                }
                case JobSpec.Accuracy a -> sb.append("       accuracy ").append(accuracyMap(a.settings())).append('\n');
            }
            if (!j.env().isEmpty()) {
                sb.append("       env  ").append(new TreeMap<>(Secrets.env(j.env()))).append('\n');
            }
            if (j.readout() != null && (j.kind() == Job.Kind.MEASURE || j.readout().output() != null)) {
                sb.append("       reads primary ").append(j.readout().primary());
                for (MetricRule mr : j.readout().metrics()) {
                    sb.append("; ").append(mr.name()).append(" (").append(mr.unit()).append(", ")
                            .append(mr.better().label()).append(") from ").append(mr.read().describe());
                }
                if (j.readout().output() != null) {
                    sb.append("; text from ").append(j.readout().output().describe());
                }
                sb.append('\n');
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
        for (Job j : pilots) {
            sb.append("sweep auto ").append(pilotText(j)).append('\n');
        }
        for (SkippedTask s : skipped) {
            sb.append("skipped ").append(s.taskId()).append(": ").append(s.category()).append(" — ")
                    .append(s.reason()).append('\n');
        }
        return sb.toString();
    }
}
