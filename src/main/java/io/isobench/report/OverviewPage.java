package io.isobench.report;

import io.isobench.Arm;

import io.isobench.analysis.AgentOutcome;
import io.isobench.analysis.ArmSummary;
import io.isobench.analysis.BetweenSessions;
import io.isobench.analysis.Comparison;
import io.isobench.analysis.Leaderboard;
import io.isobench.analysis.SessionAnalysis;
import io.isobench.analysis.TaskAnalysis;
import io.isobench.store.SessionRecord;

import java.io.IOException;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

import static io.isobench.report.Html.esc;
import static io.isobench.report.Html.fmt;
import static io.isobench.report.Html.td;
import static io.isobench.report.Html.th;

/**
 * {@code index.html}: the benchmark receipt, the agent leaderboard, patch outcomes, the per-task speedups, replay-valid
 * and low-signal tasks apart, the imported-data summary and a pointer to the failures.
 */
final class OverviewPage extends HtmlPage {

    OverviewPage(HtmlContext context) {
        super(context);
    }

    private final TaskListPage taskList = new TaskListPage(context);

    void write() throws IOException {
        StringBuilder b = new StringBuilder("<h1>isobench report</h1>\n");
        b.append(receipt());
        if (!tasks.isEmpty()) {
            nativeLeaderboard(b);
        } else {
            b.append("<h2 id=\"native\">Native sessions</h2>\n<p>No native session in this store (run "
                    + "<code>isobench run</code> or <code>isobench demo</code>).</p>\n");
        }
        b.append("<h2 id=\"legacy\">Imported legacy data (single runs)</h2>\n");
        if (m.agents().isEmpty()) {
            b.append("<p>No imported 3-way data in this store.</p>\n");
        } else {
            new LegacyPages(context).summary(b);
            b.append("<p>Rows per agent, cross-run rows (not comparable) and the agent comparison: "
                    + "<a href=\"legacy.html\">imported legacy data</a>.</p>\n");
        }
        history(b);
        AttemptsPage.overview(b, model.unmeasuredAttempts());
        b.append("<h2 id=\"failures\">Failures</h2>\n<p>")
                .append(model.failures().stream().mapToLong(f -> f.runs()).sum())
                .append(" failed run(s) in ").append(model.failures().size())
                .append(" categories; to-do list: <a href=\"failures.html\">failures</a>.</p>\n");
        site.page("index.html", "isobench report — overview", b.toString());
    }

    /** The tracked tasks (isobench track), each linked to its history page; nothing when the store has none. */
    private void history(StringBuilder b) {
        if (model.histories().isEmpty()) {
            return;
        }
        b.append("<h2 id=\"history\">Engine history</h2>\n<p class=\"note\">").append(esc(HistorySection.RULE))
                .append("</p>\n<ul>\n");
        Map<String, String> pages = HistoryPage.pages(model);
        model.histories().forEach((task, tracks) -> {
            long confirmed = tracks.stream().mapToLong(t -> t.confirmed().size()).sum();
            long rows = tracks.stream().mapToLong(t -> t.changes().size()).sum();
            b.append("<li><a href=\"").append(pages.get(task)).append("\">").append(esc(task)).append("</a>: ")
                    .append(esc(fmt("%d track(s), %d confirmed change(s), %d other change row(s)", tracks.size(),
                            confirmed, rows - confirmed))).append("</li>\n");
        });
        b.append("</ul>\n");
    }

    private String receipt() {
        StringBuilder b = new StringBuilder("<section class=\"receipt\" id=\"receipt\"><h2>Benchmark receipt</h2><dl>\n");
        b.append("<dt>Generated</dt><dd>").append(esc(options.generatedAt().truncatedTo(ChronoUnit.SECONDS)
                .toString())).append(" from <code>").append(esc(model.storeName())).append("</code></dd>\n");
        Set<String> machines = new LinkedHashSet<>();
        Set<String> hardware = new LinkedHashSet<>();
        List<Double> floors = new ArrayList<>();
        int unstable = 0;
        for (NativeTask t : tasks) {
            SessionRecord s = t.session();
            machines.add(s.host() + " (" + s.cpu() + ", GPU: " + s.gpu() + ")");
            hardware.add(SessionReport.hardware(s));
            TaskAnalysis ta = t.result().analysis();
            if (ta != null && ta.noiseBand().bandPct() != null) {
                floors.add(ta.noiseBand().bandPct());
                unstable += ta.noiseBand().unstable() ? 1 : 0;
            }
        }
        if (!tasks.isEmpty()) {
            b.append("<dt>Machine</dt><dd>").append(esc(String.join("; ", machines))).append("</dd>\n");
            b.append("<dt>Rounds</dt><dd id=\"rounds\">Interleaved: every round runs every arm of a task.");
            for (NativeSession s : model.sessions()) {
                b.append("<br/>").append(esc("session " + s.sessionId() + ": " + SessionReport.rounds(s.analysis())));
            }
            b.append("</dd>\n");
            b.append("<dt>Statistical rule</dt><dd>").append(esc(config.shortText())).append("</dd>\n");
            b.append("<dt>A/A check</dt><dd id=\"aa-check\">");
            if (floors.isEmpty()) {
                b.append("not measured (no A/A arm)");
            } else {
                double lo = floors.stream().mapToDouble(Double::doubleValue).min().orElse(0);
                double hi = floors.stream().mapToDouble(Double::doubleValue).max().orElse(0);
                b.append(esc(fmt("the A/A arm (baseline-aa, the baseline started again in every round) paired with "
                        + "the baseline: band |A/A speedup − 1| %.1f %% to %.1f %% across %d task(s); unstable (A/A "
                        + "itself better or worse, every verdict of the task inconclusive) in %d. The band is a check: "
                        + "the margin is the minimum effect, ±%s %%, never widened by it", lo, hi, floors.size(),
                        unstable, Svg.num(config.minEffectPct()))));
            }
            b.append("</dd>\n");
            b.append("<dt>Hardware</dt><dd id=\"hardware\">").append(esc(String.join("; ", hardware)))
                    .append("</dd>\n");
        }
        b.append("<dt>Between sessions</dt><dd id=\"between-sessions-statement\">")
                .append(esc(model.betweenSessions().statement()));
        if (!model.betweenSessions().groups().isEmpty()) {
            b.append(" <a href=\"#between-sessions\">The spread per comparison</a>.");
        }
        b.append("</dd>\n");
        if (!m.agents().isEmpty()) {
            b.append("<dt>Imported single runs</dt><dd>").append(esc("one run per arm, no noise estimate: "
                    + "win/tie/loss on the improvement with a stated ±" + band() + " % band; only "
                    + "complete_3way_same_run rows count")).append("</dd>\n");
        }
        b.append("<dt>Colours</dt><dd>");
        b.append(Html.armLabel("baseline", Html.BASELINE)).append(" · ").append(Html.armLabel("human", Html.HUMAN));
        colours.agents().forEach((n, c) -> b.append(" · ").append(Html.armLabel("agent:" + n, c)));
        b.append(" (Okabe-Ito palette, safe for colour-blind readers; labels always written)</dd>\n");
        return b.append("</dl></section>\n").toString();
    }

    /**
     * The agent leaderboard ({@link Leaderboard}: replay-valid tasks only, one entry per task
     * per hardware, verdicts apart, failed and incorrect arms never in a speedup median, false wins expected by
     * chance), then patch outcomes over every task, then the per-task speedups.
     */
    private void nativeLeaderboard(StringBuilder b) {
        Leaderboard board = model.leaderboard();
        b.append("<h2 id=\"native\">Agent leaderboard (native sessions)</h2>\n");
        b.append("<p class=\"note\">").append(esc("Rule: " + Leaderboard.RULE + "."))
                .append(" Verdicts: better / worse when the ").append(esc(fmt("%.0f %%", config.confidence() * 100)))
                .append(" CI of the paired speedup (a repeated CI at the look an adaptive task stopped at) excludes"
                        + " 1 and the estimate lies beyond the margin (the minimum effect, ±")
                .append(esc(Svg.num(config.minEffectPct()))).append(" %); equivalent when the TOST interval lies "
                        + "inside ±margin (shown with it: equivalent within ±").append(esc(Svg.num(config.minEffectPct())))
                .append(" %); a sweep's capacity by the sign test at the grid's resolution, with no interval; an "
                        + "unstable A/A check makes every verdict of its task inconclusive; otherwise inconclusive, "
                        + "with the reason; fewer than ").append(config.minPairedRounds())
                .append(" valid paired rounds is inconclusive. ").append(esc(Leaderboard.FALSE_WINS)).append(". "
                        + "Median speedup: over the agent's valid tasks with a verdict about speed, with a "
                        + "percentile-bootstrap CI over tasks.");
        if (board.dropped() > 0) {
            b.append(" ").append(board.dropped()).append(" older measurement(s) of a task on the same hardware are "
                    + "not counted.");
        }
        b.append("</p>\n<table id=\"leaderboard\">\n");
        b.append(th("agent", "tasks", "valid tasks",
                "vs baseline: better / equivalent / worse / inconclusive / failed / incorrect",
                "false wins expected by chance",
                "vs human: better / equivalent / worse / inconclusive / failed / incorrect", "opt_base",
                "opt_human", "median speedup vs baseline", "median speedup vs human"));
        for (Leaderboard.AgentRow a : board.agents()) {
            b.append("<tr data-agent=\"").append(esc(a.agent())).append("\"><td>")
                    .append(Html.armLabel(a.agent(), colours.of(a.agent()))).append("</td>")
                    .append(td(a.tasks())).append(td(a.validTasks()))
                    .append("<td data-key=\"vs-baseline\">")
                    .append(esc(Leaderboard.AgentRow.counts(a.vsBaseline()))).append("</td>")
                    .append(td(fmt("%.2f of %d tests", a.expectedFalseWins(), a.speedTests())))
                    .append("<td data-key=\"vs-human\">")
                    .append(esc(Leaderboard.AgentRow.counts(a.vsHuman()))).append("</td>")
                    .append(td(rate(a.optBase(), a.validTasks()))).append(td(rate(a.optHuman(), a.validTasks())))
                    .append(td(SessionReport.medianText(a.speedupVsBaseline())))
                    .append(td(SessionReport.medianText(a.speedupVsHuman()))).append("</tr>\n");
        }
        b.append("</table>\n");
        betweenSessions(b);
        b.append(AttemptSection.html(model.attemptScores()));
        List<String> names = new ArrayList<>();
        long[][] v = new long[board.agents().size()][];
        int i = 0;
        for (Leaderboard.AgentRow a : board.agents()) {
            names.add(a.agent());
            v[i] = new long[Leaderboard.ORDER.size()];
            for (int k = 0; k < v[i].length; k++) {
                v[i][k] = a.vsHuman().getOrDefault(Leaderboard.ORDER.get(k), 0);
            }
            i++;
        }
        b.append(Svg.stacked("Verdicts vs human per agent (replay-valid tasks)", "tasks (count)", "agent", names,
                List.of(new Svg.Stack("better", Html.WIN), new Svg.Stack("equivalent", Html.EQUIVALENT),
                        new Svg.Stack("worse", Html.LOSS), new Svg.Stack("inconclusive", Html.INCONCLUSIVE),
                        new Svg.Stack("failed", Html.FAILED), new Svg.Stack("incorrect", Html.INCORRECT)), v));
        patchOutcomes(b);
        List<Svg.Interval> iv = new ArrayList<>();
        int total = 0;
        for (NativeTask t : tasks) {
            TaskAnalysis ta = t.result().analysis();
            if (ta == null) {
                continue;
            }
            for (AgentOutcome o : ta.agents()) {
                total++;
                if (iv.size() < HtmlReport.CHART_ROWS) {
                    Comparison c = o.vsBaseline();
                    String level = ReadingText.level(ta);
                    iv.add(new Svg.Interval(o.agent() + " · " + t.result().taskId(), colours.of(o.agent()),
                            c.speedup(), c.ciLowSpeedup(), c.ciHighSpeedup(), c.verdictShown()
                            + (level == null ? "; sign test, no interval" : "; " + level)));
                }
            }
        }
        b.append("<h3>Agent speedup vs baseline per task, with its CI (paired rounds)</h3>\n<p class=\"note\">"
                + "Whiskers: the 95 % CI with fixed rounds, the repeated CI of the look an adaptive task stopped at "
                + "(each mark's title names its level); a sweep's capacity has no interval (sign test).</p>\n");
        if (total > iv.size()) {
            b.append("<p class=\"note\">First ").append(iv.size()).append(" of ").append(total)
                    .append(" (agent, task) pairs; every task is on the <a href=\"tasks.html\">task list</a>.</p>\n");
        }
        b.append(Svg.intervals("Agent speedup vs baseline per task (× , log scale)", iv, null));
        // low-signal tasks apart
        List<NativeTask> low = new ArrayList<>();
        List<NativeTask> valid = new ArrayList<>();
        for (NativeTask t : tasks) {
            TaskAnalysis ta = t.result().analysis();
            if (ta == null || !"valid".equals(ta.replayValidity().label())) {
                low.add(t);
            } else {
                valid.add(t);
            }
        }
        b.append("<h2 id=\"tasks\">Tasks</h2>\n");
        b.append(valid.isEmpty() ? "<p>None with a detected human speedup.</p>\n"
                : taskList.table(valid, HtmlReport.CHART_ROWS * 2, "tasks-valid"));
        b.append("<h2 id=\"low-signal\">Tasks whose replay is not valid (shown apart)</h2>\n");
        b.append("<p class=\"note\">The human commit was not measured better than its parent here "
                + "(<code>low_signal</code>: equivalent, inconclusive, failed; <code>reversed</code>: worse): "
                + "agent verdicts on these tasks are not counted in the leaderboard.</p>\n");
        b.append(low.isEmpty() ? "<p>None.</p>\n" : taskList.table(low, HtmlReport.CHART_ROWS * 2, "tasks-low"));
    }

    /**
     * Beside the leaderboard (which counts one session per task and hardware): how the comparisons measured in two or
     * more sessions disagree ({@link SpreadSection}); nothing when none was.
     */
    private void betweenSessions(StringBuilder b) {
        BetweenSessions between = model.betweenSessions();
        if (between.groups().isEmpty()) {
            return;
        }
        b.append("<h3 id=\"between-sessions\">Between sessions (same task, same hardware)</h3>\n<p class=\"note\">")
                .append(esc("The leaderboard counts the latest session of each task; here every session of a "
                        + "comparison measured more than once, with the spread between them. "
                        + SpreadSection.method(between))).append("</p>\n");
        b.append(SpreadSection.html(between.groups(), "between-sessions-table", null));
    }

    private static String rate(int k, int n) {
        return n == 0 ? "—" : fmt("%d/%d (%.0f %%)", k, n, 100.0 * k / n);
    }

    /** What happened to each agent's patches over every native task, valid or not. */
    private void patchOutcomes(StringBuilder b) {
        Map<String, PatchRow> rows = new TreeMap<>();
        for (NativeTask t : tasks) {
            for (Arm arm : t.result().agentArms()) {
                rows.computeIfAbsent(arm.label(), k -> new PatchRow(arm)).add(t.result()); // in label order
            }
        }
        b.append("<h3>Patch outcomes (every task)</h3>\n<p class=\"note\">Counts are tasks, replay-valid or not. "
                + "<em>Applied</em>: no PATCH_FAILED or EMPTY_PATCH; <em>crashed</em>: SERVER_CRASHED or CUDA_ERROR "
                + "in a round; <em>incorrect</em>: failed the correctness, accuracy or review gate; "
                + "<em>measured</em>: at least one valid round.</p>\n<table id=\"patch-outcomes\">\n");
        b.append(th("agent", "tasks", "applied", "crashed", "incorrect", "measured"));
        for (PatchRow a : rows.values()) {
            String label = a.arm.label();
            b.append("<tr data-agent=\"").append(esc(label)).append("\"><td>")
                    .append(Html.armLabel(label, colours.of(label))).append("</td>").append(td(a.tasks))
                    .append(td(a.applied)).append(td(a.crashed)).append(td(a.incorrect)).append(td(a.measured))
                    .append("</tr>\n");
        }
        b.append("</table>\n");
    }

    /** Per-agent patch outcomes over every native task of the overview (replay-valid or not). */
    private static final class PatchRow {
        final Arm arm;
        int tasks;
        int applied;
        int crashed;
        int incorrect;
        int measured;

        PatchRow(Arm arm) {
            this.arm = arm;
        }

        void add(SessionAnalysis.TaskResult r) {
            tasks++;
            Map<String, Integer> oc = r.outcomes().getOrDefault(arm, Map.of());
            if (!oc.containsKey("PATCH_FAILED") && !oc.containsKey("EMPTY_PATCH")) {
                applied++;
            }
            if (oc.containsKey("SERVER_CRASHED") || oc.containsKey("CUDA_ERROR")) {
                crashed++;
            }
            if (r.incorrect().contains(arm)) {
                incorrect++;
            }
            TaskAnalysis ta = r.analysis();
            ArmSummary s = ta == null ? null : ta.summaries().get(arm);
            if (s != null && s.n() > 0) {
                measured++;
            }
        }
    }
}
