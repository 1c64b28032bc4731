package io.isobench.harbor;

import io.isobench.Arm;
import io.isobench.IsobenchException;
import io.isobench.analysis.AgentOutcome;
import io.isobench.analysis.Comparison;
import io.isobench.analysis.ReplayValidity;
import io.isobench.analysis.SessionAnalysis;
import io.isobench.analysis.TaskAnalysis;
import io.isobench.analysis.Verdict;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A session's verdicts as data (docs/harbor.md, "Verdicts as JSON"): per task the replay validity, human vs baseline
 * and the A/A arm, per agent arm its verdicts vs baseline and human, opt_base/opt_human, its correctness gate and its
 * failure outcomes — the same {@link SessionAnalysis} every report reads, never recomputed. And the flat numbers Harbor
 * reads as a reward ({@link #reward}): {@code reward} is 1 exactly when the agent's verdict vs baseline is
 * {@code better}.
 */
public final class SessionVerdicts {

    private SessionVerdicts() {
    }

    /** The session's verdicts, tasks narrowed to {@code taskId} and agent arms to {@code agent} when not null. */
    public static Map<String, Object> of(SessionAnalysis a, String taskId, String agent) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("session", a.sessionId());
        List<Object> tasks = new ArrayList<>();
        for (SessionAnalysis.TaskResult t : tasks(a, taskId)) {
            tasks.add(task(t, agent));
        }
        m.put("tasks", tasks);
        return m;
    }

    private static List<SessionAnalysis.TaskResult> tasks(SessionAnalysis a, String taskId) {
        List<SessionAnalysis.TaskResult> out = a.tasks().stream()
                .filter(t -> taskId == null || t.taskId().equals(taskId)).toList();
        if (taskId != null && out.isEmpty()) {
            throw new IsobenchException.BadInput("--task " + taskId + ": session " + a.sessionId() + " measured no"
                    + " such task (fix: one of " + a.tasks().stream().map(SessionAnalysis.TaskResult::taskId)
                    .toList() + ")");
        }
        return out;
    }

    private static Map<String, Object> task(SessionAnalysis.TaskResult t, String agent) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("task", t.taskId());
        m.put("commit", t.commit());
        m.put("hardware", t.hardware());
        TaskAnalysis an = t.analysis();
        m.put("metric", an == null ? null : an.metric());
        m.put("better", an == null ? null : an.better().label());
        m.put("unit", t.unit());
        m.put("rounds", an == null ? null : an.stopping().lookRounds());
        m.put("replay_validity", an == null ? null : an.replayValidity().label());
        m.put("human_vs_baseline", an == null ? null : comparison(an.humanVsBaseline()));
        m.put("aa", an == null || an.aa() == null ? null : comparison(an.aa()));
        List<Object> agents = new ArrayList<>();
        for (Arm arm : t.agentArms()) {
            if (!named(arm, agent)) {
                continue;
            }
            Map<String, Object> am = new LinkedHashMap<>();
            am.put("agent", arm.label());
            AgentOutcome o = an == null ? null : an.agent(arm.label()).orElse(null);
            am.put("vs_baseline", o == null ? null : comparison(o.vsBaseline()));
            am.put("vs_human", o == null ? null : comparison(o.vsHuman()));
            am.put("opt_base", o == null ? null : o.optBase());
            am.put("opt_human", o == null ? null : o.optHuman());
            SessionAnalysis.ArmCorrectness c = t.correctness(arm);
            am.put("correctness", c.outcome());
            am.put("gate_failures", c.gateFailures());
            am.put("review_failing", c.reviewFailing());
            am.put("outcomes", t.outcomes().getOrDefault(arm, Map.of()));
            am.put("runs", t.runs().getOrDefault(arm, 0));
            agents.add(am);
        }
        m.put("agents", agents);
        return m;
    }

    private static Map<String, Object> comparison(Comparison c) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("verdict", c.verdict().label());
        m.put("verdict_text", c.verdictText());
        m.put("speedup", c.speedup());
        m.put("ci_low", c.ciLowSpeedup());
        m.put("ci_high", c.ciHighSpeedup());
        m.put("margin_pct", c.marginPct());
        m.put("rounds", c.read().rounds());
        m.put("reason", c.reason());
        return m;
    }

    /**
     * Harbor's reward for one agent arm of one task (docs/harbor.md, "Reward"): numbers only, a key left out when its
     * value is undefined (never null). {@code reward} 1 iff the verdict vs baseline is {@code better}; {@code correct}
     * 0 iff it is {@code incorrect}; {@code applied} 0 iff it is {@code failed}; {@code replay_valid} 1 iff human vs
     * baseline is {@code better}; {@code opt_base}/{@code opt_human} only on a replay-valid task.
     */
    public static Map<String, Number> reward(SessionAnalysis a, String taskId, String agent) {
        List<SessionAnalysis.TaskResult> ts = tasks(a, taskId);
        if (ts.size() != 1) {
            throw new IsobenchException.BadInput("a reward is for one task: session " + a.sessionId() + " has "
                    + ts.size() + " (fix: --task ID)");
        }
        SessionAnalysis.TaskResult t = ts.getFirst();
        List<Arm> arms = t.agentArms().stream().filter(x -> named(x, agent)).toList();
        if (arms.size() != 1) {
            throw new IsobenchException.BadInput("a reward is for one agent arm: task " + t.taskId() + " has "
                    + t.agentArms().stream().map(Arm::label).toList() + " (fix: --agent NAME)");
        }
        Arm arm = arms.getFirst();
        Map<String, Number> r = new LinkedHashMap<>();
        TaskAnalysis an = t.analysis();
        AgentOutcome o = an == null ? null : an.agent(arm.label()).orElse(null);
        Verdict v = o == null ? Verdict.FAILED : o.vsBaseline().verdict();
        r.put("reward", v == Verdict.BETTER ? 1 : 0);
        r.put("correct", v == Verdict.INCORRECT || t.incorrect().contains(arm) ? 0 : 1);
        r.put("applied", v == Verdict.FAILED ? 0 : 1);
        if (o != null) {
            put(r, "speedup_vs_baseline", o.vsBaseline().speedup());
            put(r, "ci_low", o.vsBaseline().ciLowSpeedup());
            put(r, "ci_high", o.vsBaseline().ciHighSpeedup());
            put(r, "speedup_vs_human", o.vsHuman().speedup());
        }
        boolean valid = an != null && an.replayValidity() == ReplayValidity.VALID;
        r.put("replay_valid", valid ? 1 : 0);
        if (valid && o != null) {
            r.put("opt_base", Boolean.TRUE.equals(o.optBase()) ? 1 : 0);
            r.put("opt_human", Boolean.TRUE.equals(o.optHuman()) ? 1 : 0);
        }
        if (an != null) {
            r.put("rounds", an.stopping().lookRounds());
        }
        return r;
    }

    private static void put(Map<String, Number> r, String key, Double v) {
        if (v != null && !v.isNaN() && !v.isInfinite()) {
            r.put(key, v);
        }
    }

    /** Whether {@code arm} is the agent arm named {@code agent} ({@code NAME} or {@code agent:NAME}; null: any). */
    private static boolean named(Arm arm, String agent) {
        return agent == null || arm.label().equals(agent) || arm.label().equals(Arm.ofStored("agent:" + agent).label());
    }
}
