package io.isobench.report;

import io.isobench.Arm;

import io.isobench.analysis.AgentOutcome;
import io.isobench.analysis.ArmSummary;
import io.isobench.analysis.BetweenSessions;
import io.isobench.analysis.Comparison;
import io.isobench.analysis.RoundExclusion;
import io.isobench.analysis.SessionAnalysis;
import io.isobench.analysis.TaskAnalysis;
import io.isobench.parse.Better;
import io.isobench.parse.FailureCategory;
import io.isobench.parse.Metric;
import io.isobench.parse.MetricDictionary;
import io.isobench.report.NativeTask.RunFailure;
import io.isobench.report.NativeTask.TaskExtra;

import java.io.IOException;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

import static io.isobench.report.Html.esc;
import static io.isobench.report.Html.fmt;
import static io.isobench.report.Html.nz;
import static io.isobench.report.Html.td;
import static io.isobench.report.Html.th;

/**
 * {@code task-S-T.html}: one native task — statistics, charts, arm table, deltas, excluded rounds, the load fidelity
 * per run, samples, other metrics, fingerprint, environment and provenance, failures with their logs, patch integrity.
 */
final class TaskPage extends HtmlPage {

    TaskPage(HtmlContext context) {
        super(context);
    }

    void write(NativeTask t) throws IOException {
        SessionAnalysis.TaskResult r = t.result();
        TaskAnalysis ta = r.analysis();
        TaskExtra x = t.extra();
        StringBuilder b = new StringBuilder();
        b.append("<h1>Task ").append(esc(r.taskId())).append(" <span class=\"note\">session ")
                .append(esc(t.session().sessionId())).append("</span></h1>\n");
        b.append("<p><a href=\"tasks.html\">← all tasks</a></p>\n");
        b.append("<section class=\"receipt\"><dl>\n");
        b.append("<dt>Mode</dt><dd>").append(esc(t.modeShown())).append("</dd>\n");
        b.append("<dt>Commit</dt><dd><code>").append(esc(nz(r.commit()))).append("</code></dd>\n");
        if (ta == null) {
            b.append("</dl></section>\n<p>No statistics: the baseline or human arm has no runs.</p>\n");
        } else {
            String unit = nz(r.unit());
            b.append("<dt>Metric</dt><dd><code>").append(esc(ta.metric())).append("</code> (")
                    .append(esc(unit)).append(", ").append(esc(ta.better().name().toLowerCase(Locale.ROOT)))
                    .append(" is better)</dd>\n");
            b.append("<dt>A/A check</dt><dd id=\"noise-floor\">").append(esc(ReadingText.aaCheck(ta)))
                    .append("</dd>\n");
            b.append("<dt>Margin</dt><dd id=\"margin\">").append(esc(ReadingText.margin(ta))).append("</dd>\n");
            b.append("<dt>Rounds</dt><dd id=\"rounds\">").append(esc(ta.stopping().describe())).append("</dd>\n");
            if (r.resolution() != null) {
                b.append("<dt>Resolution</dt><dd id=\"resolution\">").append(r.resolution().coarse() ? "<strong>" : "")
                        .append(esc(r.resolution().describe(ta.config()))).append(r.resolution().coarse() ? "</strong>"
                        : "").append("</dd>\n");
            }
            b.append("<dt>Intervals</dt><dd id=\"interval-level\">").append(esc(ReadingText.intervals(ta, r.sweep())))
                    .append("</dd>\n");
            b.append("<dt>Replay</dt><dd>").append(esc(ta.replayValidity().label()))
                    .append(" (human vs baseline ").append(Html.verdict(ta.humanVsBaseline()))
                    .append(")</dd>\n");
            b.append("<dt>Hardware</dt><dd id=\"task-hardware\"><code>").append(esc(r.hardware() == null
                    ? "not recorded" : r.hardware())).append("</code></dd>\n");
            b.append("<dt>Method</dt><dd>").append(esc(config.shortText())).append("</dd>\n");
            b.append("</dl></section>\n");
            if (r.sweep() != null) {
                // a load sweep: its curves and capacities; the rounds' primary values mix the load points
                SweepReport.html(b, r, colours::of);
            } else {
                charts(b, t, ta, unit);
            }
            armTable(b, t, ta);
            deltas(b, ta);
            betweenSessions(b, t);
            SecondarySection.html(r, b);
            exclusions(b, ta);
            FidelitySection.html(t, b, colours::of);
            if (r.sweep() == null) {
                rounds(b, t);
                otherMetrics(b, t, ta.metric());
            }
        }
        b.append("<h2 id=\"fingerprint\">Workload fingerprint</h2>\n");
        if (x.workloads.isEmpty()) {
            b.append("<p>None recorded.</p>\n");
        } else {
            for (String w : x.workloads) {
                b.append("<p><code>").append(esc(w)).append("</code></p>\n");
            }
            if (x.workloads.size() > 1) {
                b.append("<p class=\"badge b-nc\">workloads differ between runs</p>\n");
            }
        }
        b.append("<h2 id=\"environment\">Environment and provenance</h2>\n<table>\n")
                .append(th("arm", "engine / env / model", "argv", "patch sha256"));
        for (Arm typed : r.armOrder()) {
            String arm = typed.label();
            b.append("<tr><td>").append(Html.armLabel(arm, colours.of(arm))).append("</td>")
                    .append(td(x.env.get(arm))).append("<td><code>").append(esc(nz(x.argv.get(arm))))
                    .append("</code></td><td><code>").append(esc(nz(x.patch.get(arm)))).append("</code></td></tr>\n");
        }
        b.append("</table>\n<p>Session <code>").append(esc(t.session().sessionId())).append("</code>, plan seed ")
                .append(esc(String.valueOf(t.session().seed()))).append(", machine ")
                .append(esc(t.session().host() + " (" + t.session().cpu() + ", GPU: " + t.session().gpu() + ")"))
                .append(". Intended commit <code>").append(esc(nz(x.intended))).append("</code>, verified <code>")
                .append(esc(nz(x.verified))).append("</code>. Rounds ran ").append(esc(x.first == null ? "—"
                        : x.first.truncatedTo(ChronoUnit.SECONDS).toString())).append(" to ")
                .append(esc(x.last == null ? "—" : x.last.truncatedTo(ChronoUnit.SECONDS).toString()))
                .append(".</p>\n");
        AttemptSection.taskHtml(b, model.attempts().ofTask(r.taskId()), model.trajectories(), x.patch,
                x.attemptRun);
        failuresOfTask(b, t);
        b.append("<h2 id=\"integrity\">Patch integrity</h2>\n");
        if (r.findings().isEmpty()) {
            b.append("<p>No findings.</p>\n");
        } else {
            b.append("<table>\n").append(th("arm", "finding"));
            r.findings().forEach((arm, list) -> list.forEach(f -> b.append("<tr><td>")
                    .append(Html.armLabel(arm.label(), colours.of(arm.label())))
                    .append("</td><td><code>SUSPICIOUS_PATCH</code> "
                            + "(review: ").append(esc(f)).append(")</td></tr>\n")));
            b.append("</table>\n");
        }
        site.page(t.page(), "Task " + r.taskId() + " — " + t.session().sessionId(), b.toString());
    }

    private void charts(StringBuilder b, NativeTask t, TaskAnalysis ta, String unit) {
        List<Svg.Series> series = new ArrayList<>();
        for (Arm typed : t.result().armOrder()) {
            String arm = typed.label();
            TreeMap<Integer, Double> s = t.extra().samples.getOrDefault(arm, new TreeMap<>());
            double[] v = s.values().stream().mapToDouble(Double::doubleValue).toArray();
            ArmSummary sum = ta.summaries().get(typed);
            series.add(new Svg.Series(arm, colours.of(arm), v, sum == null ? null : sum.median()));
        }
        ArmSummary base = ta.summaries().get(Arm.BASELINE);
        b.append("<h2 id=\"rounds-chart\">Rounds per arm</h2>\n<p class=\"note\">A dot per measured round, a bar at "
                + "the median; the shaded band is the A/A band around the baseline median.</p>\n");
        b.append(Svg.strip(ta.metric() + " per round and arm", ta.metric() + " (" + unit + ", "
                        + ta.better().name().toLowerCase(Locale.ROOT) + " is better)", series,
                base == null ? null : base.median(), ta.noiseBand().bandPct()));
        List<Svg.Interval> iv = new ArrayList<>();
        Comparison hb = ta.humanVsBaseline();
        iv.add(interval("human vs baseline", "human", hb));
        for (AgentOutcome o : ta.agents()) {
            iv.add(interval(o.agent() + " vs baseline", o.agent(), o.vsBaseline()));
        }
        for (AgentOutcome o : ta.agents()) {
            iv.add(interval(o.agent() + " vs human", o.agent(), o.vsHuman()));
        }
        b.append("<h2 id=\"speedups\">Speedups with their CI (paired rounds)</h2>\n<p class=\"note\">Square: the "
                + "geometric mean of the per-round ratios against the same round's baseline, oriented so &gt; 1 is "
                + "better; whiskers: the ").append(esc(ReadingText.level(ta))).append(" (a t interval from the arm's "
                + "own paired rounds); grey band: ±margin, the minimum effect (the A/A band never widens it), "
                + "symmetric in log space.</p>\n");
        b.append(Svg.intervals("Speedups of task " + t.result().taskId(), iv, hb.marginPct()));
    }

    /** Every other metric the rounds produced: samples per arm and round, the median; no verdicts. */
    private void otherMetrics(StringBuilder b, NativeTask t, String primary) {
        Map<String, Map<String, TreeMap<Integer, Double>>> all = t.extra().metrics;
        if (all.keySet().stream().allMatch(primary::equals)) {
            return;
        }
        b.append("<h2 id=\"other-metrics\">Other metrics</h2>\n<p class=\"note\">Every metric the measured rounds "
                + "produced (up to ").append(NativeTask.MAX_METRICS).append("): a dot per round, a bar at the median. "
                + "Descriptive only: verdicts and CIs are computed for the primary metric <code>")
                .append(esc(primary)).append("</code>.</p>\n");
        for (Map.Entry<String, Map<String, TreeMap<Integer, Double>>> m : all.entrySet()) {
            if (m.getKey().equals(primary)) {
                continue;
            }
            Metric info = t.extra().metricInfo.get(m.getKey());
            List<Svg.Series> series = new ArrayList<>();
            for (Arm typed : t.result().armOrder()) {
                String arm = typed.label();
                double[] v = m.getValue().getOrDefault(arm, new TreeMap<>()).values().stream()
                        .mapToDouble(Double::doubleValue).toArray();
                series.add(new Svg.Series(arm, colours.of(arm), v, v.length == 0 ? null : ArmSummary.of(v).median()));
            }
            String unit = info == null || info.unit() == null ? MetricDictionary.lookup(m.getKey()).unit() : info.unit();
            String better = info == null || info.better() == null || info.better() == Better.NONE
                    ? "" : ", " + info.better().label() + " is better";
            b.append(Svg.strip(m.getKey() + " per round and arm", m.getKey() + " (" + nz(unit) + better + ")",
                    series, null, null));
        }
    }

    private Svg.Interval interval(String label, String arm, Comparison c) {
        return new Svg.Interval(label, colours.of(arm), c.speedup(), c.ciLowSpeedup(), c.ciHighSpeedup(),
                c.verdictShown());
    }

    /** The Markdown report's task table, cell for cell. */
    private void armTable(StringBuilder b, NativeTask t, TaskAnalysis ta) {
        SessionAnalysis.TaskResult r = t.result();
        b.append("<h2 id=\"arms\">Arms</h2>\n<table id=\"arm-table\">\n");
        b.append(th("arm", "runs", "n", "median", "CV", ReadingText.speedupHeader("baseline", ta), "pairs", "p (MWU)",
                "verdict", ReadingText.speedupHeader("human", ta), "p (MWU)", "verdict", "opt_base", "opt_human",
                "outcomes"));
        for (Arm typed : r.armOrder()) {
            String arm = typed.label();
            ArmSummary s = ta.summaries().get(typed);
            SessionReport.ArmRow row = SessionReport.ArmRow.of(r, ta, typed);
            Comparison vb = row.vsBaseline();
            Comparison vh = row.vsHuman();
            String ob = row.optBase();
            String oh = row.optHuman();
            String outs = row.outcomes();
            String a = esc(arm);
            b.append("<tr data-arm=\"").append(a).append("\"><td>").append(Html.armLabel(arm, colours.of(arm)))
                    .append("</td>").append(td(r.runs().getOrDefault(typed, 0)))
                    .append(td(s == null ? "0" : Integer.toString(s.n())))
                    .append(cell("median", s == null ? "—" : SessionReport.num(s.median())))
                    .append(td(s == null ? "—" : SessionReport.pct(s.cvPct())))
                    .append(cell("speedup-vs-baseline", SessionReport.speedup(vb)))
                    .append(td(SessionReport.pairs(vb)))
                    .append(td(SessionReport.p(vb)))
                    .append("<td data-key=\"verdict-vs-baseline\">").append(Html.verdict(vb)).append("</td>")
                    .append(cell("speedup-vs-human", SessionReport.speedup(vh)))
                    .append(td(SessionReport.p(vh)))
                    .append("<td data-key=\"verdict-vs-human\">").append(Html.verdict(vh)).append("</td>")
                    .append(td(ob)).append(td(oh)).append(td(outs.isEmpty() ? "—" : outs.toString()))
                    .append("</tr>\n");
        }
        b.append("</table>\n");
    }

    private static String cell(String key, String text) {
        return "<td class=\"num\" data-key=\"" + key + "\">" + esc(text) + "</td>";
    }

    private void deltas(StringBuilder b, TaskAnalysis ta) {
        b.append("<h2 id=\"deltas\">3-way deltas</h2>\n<p class=\"note\">Δ % = the paired estimate as an "
                + "improvement, positive = better. Better/worse: the CI excludes 1 and the estimate lies beyond "
                + "the margin; equivalent: the TOST interval lies inside ±margin; an ordinal metric (a sweep's "
                + "capacity) keeps no interval and is decided by the sign test at the grid's resolution; when the A/A "
                + "comparison is itself better or worse, every verdict of the task is inconclusive (A/A unstable); "
                + "otherwise inconclusive.</p>\n");
        b.append("<table id=\"deltas-table\">\n").append(th("comparison", "Δ %", "margin %", "pairs",
                "variance", "interval", "verdict", "why"));
        String level = ReadingText.level(ta);
        List<Comparison> cs = new ArrayList<>();
        if (ta.aa() != null) {
            cs.add(ta.aa());
        }
        cs.add(ta.humanVsBaseline());
        for (AgentOutcome o : ta.agents()) {
            cs.add(o.vsBaseline());
            cs.add(o.vsHuman());
        }
        for (Comparison c : cs) {
            b.append("<tr><td>").append(esc(c.arm() + " vs " + c.reference())).append("</td>")
                    .append(td(Md.pct(c.deltaPct()))).append(td(fmt("%.2f", c.marginPct())))
                    .append(td(SessionReport.pairs(c))).append(td(c.variance().label()))
                    .append(td(c.variance() == Comparison.Variance.ORDINAL ? "none: sign test"
                            : c.ciLowSpeedup() == null ? "—" : level))
                    .append("<td>").append(Html.verdict(c)).append("</td>")
                    .append(td(c.reason())).append("</tr>\n");
        }
        b.append("</table>\n");
    }

    /**
     * What this session's intervals do not cover: the sentence, and the task's comparisons measured in other sessions
     * on the same hardware with the spread between them (this session in bold).
     */
    private void betweenSessions(StringBuilder b, NativeTask t) {
        SessionAnalysis.TaskResult r = t.result();
        List<BetweenSessions.Group> groups = model.betweenSessions().ofTask(r.taskId(), r.commit(), r.hardware());
        b.append("<h2 id=\"between-sessions\">Between sessions</h2>\n<p class=\"note\">");
        if (groups.isEmpty()) {
            b.append(esc("The intervals above describe this session only and do not cover session-to-session "
                    + "variation: no other session measured this task on the same hardware.")).append("</p>\n");
            return;
        }
        b.append(esc("The intervals above describe this session only; these sessions measured the same comparisons on"
                + " the same hardware. " + SpreadSection.method(model.betweenSessions()))).append("</p>\n");
        b.append(SpreadSection.html(groups, "between-sessions-table", t.session().sessionId()));
    }

    /** The rounds kept out of every comparison, with the reason. */
    private void exclusions(StringBuilder b, TaskAnalysis ta) {
        b.append("<h2 id=\"excluded\">Excluded rounds</h2>\n");
        if (ta.exclusions().isEmpty()) {
            b.append("<p>None: every successful run did the baseline's work, lost no request and ran on the task's "
                    + "hardware.</p>\n");
            return;
        }
        b.append("<table id=\"excluded-rounds\">\n").append(th("round", "arm", "cause", "what differed"));
        for (RoundExclusion e : ta.exclusions()) {
            b.append("<tr>").append(td(e.round() + 1)).append("<td>").append(Html.armLabel(e.arm(),
                    colours.of(e.arm()))).append("</td>").append(td(e.excluded() ? e.cause().label()
                    : e.cause().label() + " (flagged, still counted)")).append(td(nz(e.detail())))
                    .append("</tr>\n");
        }
        b.append("</table>\n");
    }

    private void rounds(StringBuilder b, NativeTask t) {
        int max = 0;
        for (TreeMap<Integer, Double> v : t.extra().samples.values()) {
            max = Math.max(max, v.isEmpty() ? 0 : v.lastKey() + 1);
        }
        b.append("<h2 id=\"samples\">Samples per round</h2>\n<table>\n<tr><th scope=\"col\">round</th>");
        for (Arm typed : t.result().armOrder()) {
            String arm = typed.label();
            b.append("<th scope=\"col\">").append(Html.armLabel(arm, colours.of(arm))).append("</th>");
        }
        b.append("</tr>\n");
        for (int round = 0; round < max; round++) {
            b.append("<tr>").append(td(round + 1));
            for (Arm typed : t.result().armOrder()) {
                String arm = typed.label();
                Double v = t.extra().samples.getOrDefault(arm, new TreeMap<>()).get(round);
                b.append(td(v == null ? "—" : SessionReport.num(v)));
            }
            b.append("</tr>\n");
        }
        b.append("</table>\n");
    }

    private void failuresOfTask(StringBuilder b, NativeTask t) {
        b.append("<h2 id=\"task-failures\">Failures</h2>\n");
        List<RunFailure> fs = t.extra().failures;
        if (fs.isEmpty()) {
            b.append("<p>No failed round.</p>\n");
            return;
        }
        b.append("<table>\n").append(th("arm", "round", "category", "retry", "detail and evidence", "log"));
        for (RunFailure f : fs) {
            FailureCategory c = Html.category(f.category());
            b.append("<tr><td>").append(Html.armLabel(f.arm(), colours.of(f.arm()))).append("</td>")
                    .append(td(f.round() + 1)).append("<td><code>").append(esc(f.category())).append("</code>")
                    .append(c != null && c.agentOutcome() ? " <span class=\"note\">(agent outcome)</span>" : "")
                    .append("</td>").append(td(c == null ? "?" : c.retry().label())).append("<td>")
                    .append(esc(nz(f.detail())));
            if (f.evidence() != null && !f.evidence().isBlank()) {
                b.append("<pre class=\"evidence\">").append(esc(f.evidence())).append("</pre>");
            }
            String log = f.logArtifact() == null ? null : context.logFiles().get(f.logArtifact());
            b.append("</td><td>").append(log == null ? "—"
                    : "<a href=\"" + esc(log) + "\">full log</a>").append("</td></tr>\n");
        }
        b.append("</table>\n");
    }
}
