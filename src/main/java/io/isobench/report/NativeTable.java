package io.isobench.report;

import io.isobench.Arm;
import io.isobench.analysis.AgentOutcome;
import io.isobench.analysis.ArmSummary;
import io.isobench.analysis.SessionAnalysis;
import io.isobench.analysis.TaskAnalysis;
import io.isobench.legacy.ThreeWayRow;
import io.isobench.parse.MetricDictionary;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Consumer;

/**
 * 3-way rows of native sessions for {@code isobench table --agent NAME}: one row per (session, task) where the
 * agent has an arm; values are the medians of the measured rounds; {@code pipeline} {@code native},
 * {@code comparability} {@code native_session}; {@code issues} carries the session, n and the verdicts with CIs.
 * Legacy rows are not touched ({@link AgentTable} puts them first).
 */
final class NativeTable {

    static final String COMPARABILITY = "native_session";

    private NativeTable() {
    }

    /** The rows of one analysed session: one per task where {@code agent} has an arm and the task has statistics. */
    static void rows(SessionAnalysis a, String agent, Consumer<ThreeWayRow> sink) {
        Arm wanted = Arm.agent(agent);
        for (SessionAnalysis.TaskResult t : a.tasks()) {
            if (!t.armOrder().contains(wanted) || t.analysis() == null) {
                continue;
            }
            sink.accept(row(a.sessionId(), t, wanted));
        }
    }

    static ThreeWayRow row(String sessionId, SessionAnalysis.TaskResult t, Arm arm) {
        TaskAnalysis ta = t.analysis();
        Double b = median(ta.summaries().get(Arm.BASELINE));
        Double h = median(ta.summaries().get(Arm.HUMAN));
        Double x = median(ta.summaries().get(arm));
        AgentOutcome o = ta.agent(arm.label()).orElse(null);
        List<String> issues = new ArrayList<>();
        issues.add("session=" + sessionId);
        issues.add("task=" + t.taskId());
        issues.add(String.format(Locale.ROOT, "n=%d/%d/%d", n(ta.summaries().get(Arm.BASELINE)),
                n(ta.summaries().get(Arm.HUMAN)), n(ta.summaries().get(arm))));
        issues.add("human_vs_baseline=" + ta.humanVsBaseline().verdict().label());
        if (o != null) {
            issues.add("agent_vs_baseline=" + o.vsBaseline().verdict().label() + " " + SessionReport.speedup(o.vsBaseline()));
            issues.add("agent_vs_human=" + o.vsHuman().verdict().label() + " " + SessionReport.speedup(o.vsHuman()));
        }
        issues.add("replay=" + ta.replayValidity().label());
        for (Map.Entry<String, Integer> e : t.outcomes().getOrDefault(arm, Map.of()).entrySet()) {
            issues.add(e.getKey() + "x" + e.getValue());
        }
        SessionAnalysis.ArmCorrectness c = t.correctness(arm);
        issues.add("correctness=" + (t.incorrect().contains(arm) ? "incorrect:" : "") + c.label());
        if (c.exactMatchVsBaseline() != null) {
            issues.add(String.format(Locale.ROOT, "exact_match_vs_baseline=%.4f", c.exactMatchVsBaseline()));
        }
        if (c.exactMatchVsHuman() != null) {
            issues.add(String.format(Locale.ROOT, "exact_match_vs_human=%.4f", c.exactMatchVsHuman()));
        }
        if (c.accuracyOutcome() != null) {
            issues.add("accuracy=" + c.accuracyOutcome() + (c.accuracyScore() == null ? ""
                    : String.format(Locale.ROOT, ":%.4g", c.accuracyScore())));
        }
        List<String> findings = t.findings().getOrDefault(arm, List.of());
        if (!findings.isEmpty()) {
            issues.add("SUSPICIOUS_PATCH=" + findings.size() + " finding(s): "
                    + String.join(" / ", findings.stream().map(f -> f.replace(";", ",")).toList()));
        }
        // an arm known incorrect is that, measured or not (a patch the review rejected is never measured)
        String status = t.incorrect().contains(arm) ? "incorrect" : b == null || h == null || x == null
                ? "incomplete" : "ok";
        String commit = t.commit() == null ? t.taskId() : t.commit().substring(0, Math.min(8, t.commit().length()));
        return ThreeWayRow.builder(commit, status).pipeline("native")
                .metric(t.mode(), ta.metric(), t.unit(), ta.better().name().toLowerCase(Locale.ROOT))
                .values(text(b), text(h), text(x))
                .deltas(MetricDictionary.improvementPct(ta.better(), b, h),
                        MetricDictionary.improvementPct(ta.better(), b, x),
                        MetricDictionary.improvementPct(ta.better(), h, x))
                .comparability(COMPARABILITY).issues(String.join("; ", issues))
                .origins(Arrays.asList("measured", "measured", "measured")).build();
    }

    private static Double median(ArmSummary s) {
        return s == null ? null : s.median();
    }

    private static int n(ArmSummary s) {
        return s == null ? 0 : s.n();
    }

    private static String text(Double v) {
        return v == null ? null : BigDecimal.valueOf(v).setScale(4, RoundingMode.HALF_EVEN).stripTrailingZeros()
                .toPlainString();
    }
}
