package io.isobench.report;

import io.isobench.parse.FailureCategory;
import io.isobench.store.SourceRecord;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static io.isobench.report.Md.code;
import static io.isobench.report.Md.firstLine;
import static io.isobench.report.Md.fmt1;
import static io.isobench.report.Md.wtl;

/**
 * The Markdown report (issue "Foundation" point 7): executive summary, per agent the comparable 3-way table
 * (same-run only) and, apart, the rows that are not comparable with the reason; win/tie/loss with the band stated;
 * agent failures counted as outcomes; failures by category with retryability and evidence; a to-do list; caveats;
 * an agent comparison on shared commits.
 *
 * <p>Renders a {@link ReportModel} (the native sessions after the imported data); the model's rows are spooled to
 * temporary files and copied here, so memory stays bounded on stores with millions of runs.
 */
public final class MarkdownReport {

    private MarkdownReport() {
    }

    /** Writes the report of the model to {@code out}. */
    public static void write(ReportModel model, Writer out) {
        try {
            new Renderer(model, out).render();
            writeNativeSessions(model, out);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the report: " + e.getMessage(), e);
        }
    }

    /** Native sessions (rows with rounds: the verdicts of DESIGN §6), after the legacy sections; none → nothing. */
    private static void writeNativeSessions(ReportModel model, Writer out) throws IOException {
        for (NativeSession s : model.sessions()) {
            StringBuilder sb = new StringBuilder("\n");
            SessionReport.section(s, model.betweenSessions(), sb);
            SessionReport.environments(s, sb);
            SessionReport.skipped(s.record() == null ? null : s.record().suiteJson(), sb);
            out.write(sb.toString());
        }
        if (!model.sessions().isEmpty()) {
            StringBuilder sb = new StringBuilder("\n");
            SessionReport.leaderboard(model.leaderboard(), sb, "##");
            SpreadSection.markdown(model.betweenSessions(), sb, "##");
            AttemptSection.markdown(model.attemptScores(), sb, "##");
            out.write(sb.toString());
        }
        if (!model.histories().isEmpty()) {
            StringBuilder sb = new StringBuilder("\n");
            HistorySection.markdown(model.histories(), sb);
            out.write(sb.toString());
        }
        out.flush();
    }

    /** Turns the collected model into Markdown. */
    private static final class Renderer {
        private final ReportModel model;
        private final ReportScope options;
        private final LegacyModel m;
        private final Writer out;

        Renderer(ReportModel model, Writer out) {
            this.model = model;
            this.options = model.scope();
            this.m = model.legacy();
            this.out = out;
        }

        void render() throws IOException {
            String band = fmt1(options.bandPct());
            line("# isobench report");
            line("");
            line("Generated " + options.generatedAt().truncatedTo(ChronoUnit.SECONDS) + " from `" + model.storeName()
                    + "`. Improvements are in percent, positive = better (lower-is-better: (B − X)/B × 100; "
                    + "higher-is-better: (X − B)/B × 100; agent vs human uses the human value as B).");
            line("");
            if (importedOrEmpty()) {
                line("**Method.** Imported ISO-Bench rows are single runs (one run per arm): win/tie/loss uses a "
                        + "stated ±" + band + " % band on the improvement (the final ISO-Bench analysis used ±5 %). "
                        + "Only `complete_3way_same_run` rows (three arms measured in one invocation, same model and "
                        + "workload) are counted in headline numbers; `same_run_3_values_delta_undefined` rows are "
                        + "shown but not counted; cross-run rows are listed apart as not comparable.");
                line("");
            }
            line("**Between sessions.** " + model.betweenSessions().statement());
            line("");
            summary(band);
            for (LegacyModel.AgentSection a : m.agents().values()) {
                agent(a, band);
            }
            agentComparison();
            corrections();
            failures();
            todo();
            caveats();
            out.flush();
        }

        private void summary(String band) throws IOException {
            line("## Executive summary");
            line("");
            if (!model.sessions().isEmpty()) {
                line("Native sessions (paired, interleaved rounds; each session's section below has its tasks):");
                line("");
                for (NativeSession s : model.sessions()) {
                    line("- Session " + s.sessionId() + ": " + SessionReport.rounds(s.analysis()) + ".");
                }
                line("");
            }
            if (!model.sessions().isEmpty()) {
                nativeSummary();
            }
            if (!model.histories().isEmpty()) {
                line(HistorySection.summary(model.histories()));
                line("");
            }
            if (m.agents().isEmpty()) {
                line(model.sessions().isEmpty() ? "No 3-way data in this store. Import results first: `isobench "
                        + "import legacy <dir>` or `isobench import hf <file>`, or measure: `isobench run SUITE`."
                        : "No imported legacy data in this store: its native sessions are summarised above and "
                        + "reported below.");
                line("");
                return;
            }
            line(LegacyModel.summaryTable(band).markdownHeader());
            for (LegacyModel.AgentSection a : m.agents().values()) {
                line(Rows.markdown(a.summaryRow()));
            }
            line("");
            line("Win/tie/loss count only comparable rows. \"Agent failures\" are outcomes: the agent arm failed "
                    + "(crash, no metrics, patch problem…) on a commit where at least one other arm produced a value.");
            line("");
        }

        /**
         * What the native sessions measured, one row per task: the primary metric with its unit and the verdicts
         * vs the baseline (the per-session sections below have the numbers).
         */
        private void nativeSummary() throws IOException {
            Rows.Table table = Rows.Table.of(Rows.Column.text("session"), Rows.Column.text("task"),
                    Rows.Column.text("measured"), Rows.Column.text("human vs baseline"),
                    Rows.Column.text("agents vs baseline"));
            line(table.markdownHeader());
            for (NativeSession s : model.sessions()) {
                for (NativeTask t : s.tasks()) {
                    line(Rows.markdown(NativeSummary.row(s.sessionId(), t)));
                }
            }
            line("");
        }

        /** Whether the store has imported data, or nothing at all: the single-run method and caveat apply. */
        private boolean importedOrEmpty() {
            return !m.agents().isEmpty() || model.sessions().isEmpty();
        }

        private void agent(LegacyModel.AgentSection a, String band) throws IOException {
            line("## Agent: " + Md.text(a.agent()));
            line("");
            line("### Comparable 3-way rows (same run)");
            line("");
            if (a.count("complete_3way_same_run") == 0) {
                line("None.");
            } else {
                rows(LegacyModel.comparableTable(band), a.comparable());
            }
            line("");
            sectionIfAny(a.undefinedDelta(), "### Same-run rows with an undefined Δ (shown, not counted)",
                    LegacyModel.UNDEFINED_TABLE);
            sectionIfAny(a.withIssues(), "### Same-run rows with issues (not counted)", LegacyModel.ISSUES_TABLE);
            sectionIfAny(a.crossRun(), "### Cross-run rows — not comparable", LegacyModel.CROSS_RUN_TABLE);
            sectionIfAny(a.incomplete(), "### Incomplete and no-metrics commits", LegacyModel.INCOMPLETE_TABLE);
            if (!a.agentFailureCategories().isEmpty()) {
                line("### Agent failures (outcomes)");
                line("");
                line("| category | commits |");
                line("|---|---:|");
                for (Map.Entry<String, Integer> e : a.agentFailureCategories().entrySet()) {
                    line("| " + Md.text(e.getKey()) + " | " + e.getValue() + " |");
                }
                line("");
            }
        }

        private void sectionIfAny(Spool spool, String title, Rows.Table table) throws IOException {
            if (spool.lines() == 0) {
                return;
            }
            line(title);
            line("");
            rows(table, spool);
            line("");
        }

        /** A table: its header, then the spooled rows. */
        private void rows(Rows.Table table, Spool spool) throws IOException {
            line(table.markdownHeader());
            spool.forEach(r -> line(Rows.markdown(r)));
        }

        private void agentComparison() throws IOException {
            if (m.agents().size() < 2) {
                return;
            }
            line("## Agent comparison on shared commits");
            line("");
            if (m.shared().lines() == 0) {
                line("No commit has a comparable row for two or more agents.");
                line("");
                return;
            }
            line("Agent Δ % vs baseline on commits where at least two agents have a comparable (same-run) row; "
                    + "empty = no comparable row for that agent.");
            line("");
            rows(m.sharedTable(), m.shared());
            line("");
        }

        private void corrections() throws IOException {
            if (m.corrections().lines() == 0) {
                return;
            }
            line("## Corrections to published numbers");
            line("");
            line("Where the old system published an improvement (a result file's `*_improvement` fields, a rerun's "
                    + "analysis, a row of the published HF table) that isobench does not reproduce for the same commit, "
                    + "agent and comparison: both numbers (percent, positive = better) and why they differ. Published "
                    + "and recomputed figures within ±" + Corrections.TOLERANCE_PP + " points agree. A published "
                    + "figure on the row's own metric is compared first; a figure published both in a source file and "
                    + "in the HF table is one row naming both.");
            line("");
            rows(LegacyModel.CORRECTIONS_TABLE, m.corrections());
            line("");
        }

        private void failures() throws IOException {
            line("## Failures by category");
            line("");
            if (model.failures().isEmpty()) {
                line("No failed runs.");
                line("");
                return;
            }
            line("Final attempts only, as `isobench runs` lists them: " + m.superseded() + " run(s) of superseded"
                    + " attempts are not counted (`--all-attempts` lists them); agent attempts have their own section.");
            line("");
            line("Every failed run has exactly one category (DESIGN.md §7). Retry: `yes` = retry as is; "
                    + "`after_cleanup`, `fix_recipe`, `maybe` = fixable; `no` = needs a new build, token or command.");
            line("");
            if (!model.sessions().isEmpty()) {
                line("Counting: " + FailureCounts.RULE + ".");
                line("");
            }
            line("| category | runs | baseline | human | agent | no arm | retry | fixable | example evidence | example commits |");
            line("|---|---:|---:|---:|---:|---:|---|---|---|---|");
            for (var f : model.failures()) {
                FailureCategory c = category(f.category());
                line("| " + Md.text(f.category()) + " | " + f.runs() + " | " + f.baselineRuns() + " | " + f.humanRuns() + " | "
                        + f.agentRuns() + " | " + f.noArmRuns() + " | " + (c == null ? "?" : c.retry().label()) + " | "
                        + (c == null ? "?" : c.fixable() ? "yes" : "no") + " | " + code(firstLine(f.exampleEvidence()))
                        + " | " + commits(f.exampleCommits(), f.moreCommits()) + " |");
            }
            line("");
        }

        private void todo() throws IOException {
            line("## To-do list");
            line("");
            List<Rows.Row> nativeRows = NativeTodo.rows(model.tasks());
            if (!nativeRows.isEmpty()) {
                line("Native sessions: what to fix, rerun or measure next, per task and arm (from the failure category,"
                        + " an undecided verdict, a task without an agent arm; agent outcomes are results, not to-dos).");
                line("");
                line(NativeTodo.TABLE.markdownHeader());
                for (Rows.Row r : nativeRows) {
                    line(Rows.markdown(r));
                }
                line("");
            }
            if (m.todo().lines() == 0) {
                if (nativeRows.isEmpty()) {
                    line(model.sessions().isEmpty() ? "Nothing to rerun: every commit has a comparable 3-way row."
                            : "Nothing to do: every arm ran, every verdict is decided and every task has an agent arm"
                            + (m.agents().isEmpty() ? "." : "; every imported commit has a comparable 3-way row."));
                    line("");
                } else if (!m.agents().isEmpty()) {
                    line("Imported legacy data: nothing to rerun, every commit has a comparable 3-way row.");
                    line("");
                }
                return;
            }
            line("What to rerun or rebuild, and why (from the failure category of the missing arm, or the reason the "
                    + "row is not comparable).");
            line("");
            rows(LegacyModel.TODO_TABLE, m.todo());
            line("");
        }

        private void caveats() throws IOException {
            line("## Caveats");
            line("");
            List<String> c = new ArrayList<>();
            if (m.modelMismatch() > 0) {
                c.add(m.modelMismatch() + " row(s) compare arms that ran different models (model substitution): "
                        + "never counted as comparable.");
            }
            if (m.workloadMismatch() > 0) {
                c.add(m.workloadMismatch() + " row(s) compare arms with different workloads (requests or input "
                        + "tokens differ): never counted as comparable.");
            }
            if (m.substituted() > 0) {
                c.add(m.substituted() + " run(s) used a substitute model instead of the task's model; they are kept "
                        + "as single-version runs and never compared with the real model.");
            }
            if (m.singleVersion() > 0) {
                c.add(m.singleVersion() + " single-version run(s) (old `results/docker/<c8>_result.json`, often a "
                        + "substitute model such as opt-125m) are stored but not used in 3-way rows.");
            }
            if (m.truncated() > 0) {
                c.add(m.truncated() + " run(s) have truncated raw text in the source (the old system kept the first "
                        + "3,000 or the last 5,000–10,000 characters); a metric line cut by the truncation is not "
                        + "trusted, and such values fall back to the stored JSON (origin `json`).");
            }
            if (m.correctedStatus() > 0) {
                c.add(m.correctedStatus() + " run(s) had a wrong stored status (e.g. `error` although the raw "
                        + "output holds a valid metric line); isobench uses what the output shows.");
            }
            if (m.superseded() > 0) {
                c.add(m.superseded() + " run(s) of attempts a later attempt of the same commit superseded (progress"
                        + " logs) are stored but neither counted nor used in tables (`isobench runs --all-attempts`"
                        + " lists them).");
            }
            long recovered = m.sources().stream().filter(s -> "recovered".equals(s.outcome())).count();
            if (recovered > 0) {
                c.add(recovered + " file(s) were not valid JSON and were recovered (imported, flagged, not used as "
                        + "3-way sources): " + joinPaths(m.sources(), "recovered") + ".");
            }
            long refused = m.sources().stream().filter(s -> "refused".equals(s.outcome())).count();
            if (refused > 0) {
                c.add(refused + " file(s) were refused: " + joinPaths(m.sources(), "refused") + ".");
            }
            if (importedOrEmpty()) {
                c.add("Single runs carry no noise estimate: a ±" + fmt1(options.bandPct()) + " % band is a "
                        + "convention, not a confidence interval. Native isobench sessions (repeated, interleaved "
                        + "rounds) report verdicts over paired rounds (better / equivalent / worse / inconclusive), "
                        + "each interval with its level, and an A/A check (the baseline started again) instead.");
            }
            if (c.isEmpty()) {
                line("None: no imported data (the native sessions' intervals, margins and A/A checks are in their"
                        + " sections).");
            }
            for (String s : c) {
                line("- " + s);
            }
            line("");
        }

        private static String commits(List<String> examples, boolean more) {
            List<String> c = new ArrayList<>();
            for (String commit : examples) {
                c.add(Md.code(commit));
            }
            return String.join(", ", c) + (more ? ", …" : "");
        }

        private static String joinPaths(List<SourceRecord> sources, String outcome) {
            List<String> p = new ArrayList<>();
            for (SourceRecord s : sources) {
                if (outcome.equals(s.outcome())) {
                    p.add("`" + s.path() + "`" + (s.reason() == null ? "" : " (" + s.reason() + ")"));
                }
            }
            return String.join("; ", p);
        }

        private static FailureCategory category(String name) {
            try {
                return FailureCategory.valueOf(name);
            } catch (IllegalArgumentException | NullPointerException e) {
                return null;
            }
        }

        private void line(String s) throws IOException {
            out.write(s);
            out.write('\n');
        }
    }
}
