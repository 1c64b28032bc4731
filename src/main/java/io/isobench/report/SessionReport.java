package io.isobench.report;

import io.isobench.Arm;

import io.isobench.analysis.AgentOutcome;
import io.isobench.analysis.ArmSummary;
import io.isobench.analysis.BetweenSessions;
import io.isobench.analysis.Comparison;
import io.isobench.analysis.Leaderboard;
import io.isobench.analysis.MedianCi;
import io.isobench.analysis.RoundExclusion;
import io.isobench.analysis.SessionAnalysis;
import io.isobench.analysis.TaskAnalysis;
import io.isobench.analysis.Verdict;
import io.isobench.store.RunDetails;
import io.isobench.store.SessionRecord;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The Markdown section for a native session (docs/statistics.md, DESIGN §10): the hardware fingerprint; the rounds the
 * session's tasks took against its design's maximum; per task the A/A check, the margin, how many rounds it took and
 * why it stopped, replay validity and per arm n, median, CV, the paired speedup vs baseline and vs human with its
 * interval labelled with its level (or the sign test of an ordinal metric, no interval), the verdict as shown
 * ({@link Comparison#verdictShown()}: better / equivalent within ±margin / worse / inconclusive with its reason / failed
 * / incorrect), opt_base/opt_human; the rounds excluded with their reasons; the correctness gates with the rule that
 * decided and the calibrated floor; agent outcomes (PATCH_FAILED, EMPTY_PATCH, SERVER_CRASHED, OUTPUT_MISMATCH…)
 * counted apart; the leaderboard.
 */
public final class SessionReport {

    private SessionReport() {
    }

    /**
     * A whole report for one session: the model of {@link ReportScope#session} (its one session; the store lacking
     * it, the analysis of no runs).
     */
    public static void write(ReportModel model, Writer out) {
        if (model.scope().sessionId() == null || model.sessions().size() != 1) {
            throw new IllegalArgumentException("a session report needs the model of one session (ReportScope.session)");
        }
        NativeSession ns = model.sessions().get(0);
        SessionAnalysis a = ns.analysis();
        SessionRecord s = ns.record();
        String sessionId = model.scope().sessionId();
        StringBuilder sb = new StringBuilder();
        sb.append("# isobench report — session ").append(sessionId).append("\n\n");
        if (s != null) {
            sb.append(String.format(Locale.ROOT, "Machine: %s (%s), GPU: %s. Started %s, ended %s, plan seed %s.%n%n",
                    s.host(), s.cpu(), s.gpu(), s.startedAt(), s.endedAt() == null ? "—" : s.endedAt(), s.seed()));
            sb.append(hardware(s)).append("\n\n");
        }
        sb.append("**Between sessions.** ").append(model.betweenSessions().statement()).append("\n\n");
        section(ns, model.betweenSessions(), sb);
        leaderboard(model.leaderboard(), sb, "###");
        SpreadSection.markdown(model.betweenSessions(), sb, "###");
        AttemptSection.markdown(model.attemptScores(), sb, "###");
        environments(ns, sb);
        if (s != null) {
            skipped(s.suiteJson(), sb);
        }
        try {
            out.write(sb.toString());
            out.flush();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * The native-session section (headings at level 2); each task's comparisons measured in other sessions too get
     * their line from {@code between}.
     */
    static void section(NativeSession session, BetweenSessions between, StringBuilder sb) {
        SessionAnalysis a = session.analysis();
        Map<String, NativeTask> byId = new HashMap<>();
        session.tasks().forEach(t -> byId.put(t.result().taskId(), t));
        sb.append("## Native session ").append(a.sessionId()).append("\n\n");
        sb.append("Method: ").append(a.config().describe()).append("\n\n");
        sb.append("Rounds: ").append(rounds(a)).append(".\n\n");
        sb.append("| task | mode | metric | replay | A/A check | human vs baseline | agents vs baseline | rounds |"
                + " excluded rounds | hardware |\n");
        sb.append("|---|---|---|---|---|---|---|---|---|---|\n");
        for (SessionAnalysis.TaskResult t : a.tasks()) {
            TaskAnalysis ta = t.analysis();
            StringBuilder verdicts = new StringBuilder();
            if (ta != null) {
                for (AgentOutcome o : ta.agents()) {
                    verdicts.append(o.agentName()).append(": ")
                            .append(o.vsBaseline().verdictShown()).append("; ");
                }
            }
            NativeTask nt = byId.get(t.taskId());
            sb.append(String.format(Locale.ROOT, "| %s | %s | `%s` | %s | %s | %s | %s | %s | %s | %s |%n", t.taskId(),
                    nt == null ? t.mode() : nt.modeShown(), ta == null ? "—" : ta.metric(), ta == null ? "—" : ta.replayValidity().label(),
                    ta == null ? "—" : ReadingText.aaShort(ta), ta == null ? "—" : ta.humanVsBaseline().verdictShown(),
                    verdicts.isEmpty() ? "—" : verdicts.substring(0, verdicts.length() - 2),
                    ta == null ? "—" : ReadingText.roundsShort(ta.stopping()),
                    ta == null ? "—" : Integer.toString(ta.exclusions().size()),
                    t.hardware() == null ? "—" : "`" + t.hardware() + "`"));
        }
        sb.append('\n');
        for (SessionAnalysis.TaskResult t : a.tasks()) {
            task(t, byId.get(t.taskId()), between.ofTask(t.taskId(), t.commit(), t.hardware()), sb);
        }
        sb.append("### Agent outcomes (counted apart from the measurements)\n\n");
        sb.append("| task | arm | outcome | runs |\n|---|---|---|---|\n");
        boolean any = false;
        for (SessionAnalysis.TaskResult t : a.tasks()) {
            for (Map.Entry<Arm, Map<String, Integer>> e : t.outcomes().entrySet()) {
                for (Map.Entry<String, Integer> c : e.getValue().entrySet()) {
                    sb.append(String.format(Locale.ROOT, "| %s | %s | `%s` | %s |%n", t.taskId(), e.getKey().label(),
                            c.getKey(), outcomeRuns(c.getKey(), c.getValue())));
                    any = true;
                }
            }
            for (Map.Entry<Arm, List<String>> f : t.findings().entrySet()) {
                for (String s : f.getValue()) {
                    sb.append(String.format(Locale.ROOT, "| %s | %s | `SUSPICIOUS_PATCH` (review: %s) | — |%n",
                            t.taskId(), f.getKey().label(), s));
                    any = true;
                }
            }
        }
        if (!any) {
            sb.append("| — | — | none | 0 |\n");
        }
        sb.append('\n');
        agentSummary(a, sb);
    }

    /**
     * The rounds a session's tasks took against its design's maximum, with the adaptive design's rule:
     * {@code adaptive rounds: 3 tasks took 3, 4 and 8 rounds (15 of up to 24; 9 saved …)}, {@code fixed rounds: 5 per
     * task (3 tasks)}.
     */
    static String rounds(SessionAnalysis a) {
        return ReadingText.roundsOfSession(a.tasks().stream().map(SessionAnalysis.TaskResult::analysis).toList());
    }

    /** The hardware fingerprint recorded with the session (machine JSON), one line. */
    static String hardware(SessionRecord s) {
        try {
            com.fasterxml.jackson.databind.JsonNode m = new com.fasterxml.jackson.databind.ObjectMapper()
                    .readTree(s.machineJson() == null ? "{}" : s.machineJson());
            com.fasterxml.jackson.databind.JsonNode h = m.path("hardware");
            if (!h.isObject()) {
                return "Hardware fingerprint: not recorded (cluster executors: the nodes are not fingerprinted).";
            }
            StringBuilder b = new StringBuilder("Hardware fingerprint `").append(m.path("hardware_id").asText())
                    .append("`: ");
            List<String> parts = new ArrayList<>();
            h.fields().forEachRemaining(e -> parts.add(e.getKey() + " " + (e.getValue().isNull() ? "—"
                    : e.getValue().asText())));
            b.append(String.join(", ", parts)).append('.');
            if (m.path("arms_at_once").asBoolean(false)) {
                b.append(" Arms of one task were allowed to run at the same time (--allow-cross-gpu).");
            }
            return b.toString();
        } catch (IOException e) {
            return "Hardware fingerprint: unreadable machine record.";
        }
    }

    /**
     * The agent leaderboard (docs/statistics.md, "Leaderboards"): replay-valid tasks only, one entry per task per
     * hardware, verdicts kept apart, failed and incorrect arms never in a speedup median, expected false wins.
     */
    static void leaderboard(Leaderboard board, StringBuilder sb, String heading) {
        sb.append(heading).append(" Agent leaderboard (replay-valid tasks only)\n\n");
        if (board.agents().isEmpty()) {
            sb.append("No agent arms.\n\n");
            return;
        }
        sb.append("| agent | tasks | valid tasks | vs baseline: better / equivalent / worse / inconclusive / failed /"
                + " incorrect | false wins expected by chance | vs human: better / equivalent / worse / inconclusive /"
                + " failed / incorrect | opt_base | opt_human | median speedup vs baseline [95 % bootstrap CI over tasks]"
                + " |\n");
        sb.append("|---|---|---|---|---|---|---|---|---|\n");
        for (Leaderboard.AgentRow r : board.agents()) {
            sb.append(String.format(Locale.ROOT, "| %s | %d | %d | %s | %.2f (of %d tests) | %s | %s | %s | %s |%n",
                    r.agentName(), r.tasks(), r.validTasks(),
                    Leaderboard.AgentRow.counts(r.vsBaseline()), r.expectedFalseWins(),
                    r.speedTests(), Leaderboard.AgentRow.counts(r.vsHuman()),
                    ratio(r.optBase(), r.validTasks()), ratio(r.optHuman(), r.validTasks()),
                    medianText(r.speedupVsBaseline())));
        }
        sb.append('\n').append("Rule: ").append(Leaderboard.RULE).append(". ").append(
                Leaderboard.FALSE_WINS).append('.');
        if (board.dropped() > 0) {
            sb.append(" ").append(board.dropped()).append(" older measurement(s) of the same task on the same hardware"
                    + " are not counted.");
        }
        sb.append("\n\n");
    }

    private static String ratio(int k, int n) {
        return n == 0 ? "—" : String.format(Locale.ROOT, "%d/%d", k, n);
    }

    static String medianText(MedianCi m) {
        if (m == null) {
            return "—";
        }
        return m.n() == 1 ? String.format(Locale.ROOT, "%.3f× (1 task)", m.median())
                : String.format(Locale.ROOT, "%.3f× [%.3f, %.3f] (%d tasks)", m.median(), m.low(), m.high(), m.n());
    }

    /**
     * Per agent over the session's tasks (replay-valid or not): every patch counted in exactly one outcome column
     * (precedence: did not apply, incorrect, crashed or failed to run, then its verdict vs baseline: better,
     * equivalent, worse, inconclusive); "suspicious" is counted beside them.
     */
    static void agentSummary(SessionAnalysis a, StringBuilder sb) {
        Map<String, int[]> counts = new LinkedHashMap<>();
        for (SessionAnalysis.TaskResult t : a.tasks()) {
            for (Arm agent : t.agentArms()) {
                String arm = agent.label();
                int[] c = counts.computeIfAbsent(agent.agentName(), k -> new int[10]);
                c[0]++;
                Map<String, Integer> oc = t.outcomes().getOrDefault(agent, Map.of());
                boolean notApplied = oc.containsKey("PATCH_FAILED") || oc.containsKey("EMPTY_PATCH");
                AgentOutcome o = t.analysis() == null ? null : t.analysis().agent(arm).orElse(null);
                if (notApplied) {
                    c[9]++;
                } else if (t.incorrect().contains(agent)) {
                    c[5]++;
                } else if (o == null || o.vsBaseline().verdict() == Verdict.FAILED) {
                    c[8]++;
                } else {
                    switch (o.vsBaseline().verdict()) {
                        case BETTER -> c[1]++;
                        case EQUIVALENT -> c[2]++;
                        case WORSE -> c[3]++;
                        default -> c[4]++;
                    }
                }
                if (t.findings().containsKey(agent)) {
                    c[6]++;
                }
            }
        }
        sb.append("### Agent summary (every patch of the session)\n\n");
        if (counts.isEmpty()) {
            sb.append("No agent arms in this session.\n\n");
            return;
        }
        sb.append("| agent | patches | better than baseline | equivalent | worse | inconclusive | incorrect (correctness,"
                + " accuracy or review gate) | suspicious patch (review findings) | crashed / failed to run |"
                + " did not apply / empty |\n|---|---|---|---|---|---|---|---|---|---|\n");
        for (Map.Entry<String, int[]> e : counts.entrySet()) {
            int[] c = e.getValue();
            sb.append(String.format(Locale.ROOT, "| %s | %d | %d | %d | %d | %d | %d | %d | %d | %d |%n", e.getKey(),
                    c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[8], c[9]));
        }
        sb.append("\nAn incorrect patch is never counted as faster, whatever its speed; it is counted apart from"
                + " crashes and patches that did not apply. Verdicts here include tasks whose replay is not valid; the"
                + " leaderboard counts replay-valid tasks only.\n\n");
    }

    /**
     * Per task and arm: the output gate (what it compared, as the check recorded it: greedy probes or the task's own
     * command), exact-match rates, accuracy and patch-review findings.
     */
    static void correctness(SessionAnalysis.TaskResult t, NativeTask nt, StringBuilder sb) {
        if (t.correctness().isEmpty() && t.findings().isEmpty()) {
            return;
        }
        NativeTask.CheckSettings check = nt == null ? null : nt.extra().check;
        sb.append("Correctness and integrity:\n\n");
        if (check != null) {
            sb.append("Compared: ").append(check.describe()).append(".\n\n");
        }
        if (!t.calibration().isEmpty()) {
            Object batch = t.calibration().getOrDefault("batch_size", "8");
            sb.append("Tolerance calibration (the baseline's probes in two starts of its server or command, at batch"
                    + " size 1").append(batch == null || "null".equals(String.valueOf(batch)) ? ""
                            : " and " + (batch instanceof Double d ? String.valueOf(d.intValue()) : batch))
                    .append("): ");
            List<String> parts = new ArrayList<>();
            t.calibration().forEach((k, v) -> parts.add(k.replace('_', ' ') + " " + (v instanceof Double d
                    ? String.format(Locale.ROOT, "%.3g", d) : v)));
            sb.append(cell(String.join(", ", parts))).append(".\n\n");
        }
        sb.append("| arm | correctness | rule | exact match vs baseline | vs human | first divergence (char) | accuracy |"
                + " integrity findings | why |\n|---|---|---|---|---|---|---|---|---|\n");
        for (Arm typed : t.armOrder()) {
            if (typed.equals(Arm.BASELINE_AA)) {
                continue; // the baseline's code: its second check is the calibration above
            }
            String arm = typed.label();
            SessionAnalysis.ArmCorrectness c = t.correctness(typed);
            List<String> f = t.findings().getOrDefault(typed, List.of());
            String acc = c.accuracyOutcome() == null ? "—" : c.accuracyOutcome()
                    + (c.accuracyScore() == null ? "" : String.format(Locale.ROOT, " (%.4g)", c.accuracyScore()));
            String why = !c.gateFailures().isEmpty() ? String.join("; ", c.gateFailures())
                    : c.reason() == null ? "—" : c.reason();
            why = check == null ? why : check.reword(why);
            sb.append(String.format(Locale.ROOT, "| %s | %s | %s | %s | %s | %s | %s | %s | %s |%n", arm,
                    t.incorrect().contains(typed) ? "**incorrect**: " + c.label() : c.label(),
                    c.rule() == null ? "—" : c.rule(), rate(c.exactMatchVsBaseline()),
                    rate(c.exactMatchVsHuman()), c.firstDivergenceChar() == null ? "—"
                            : String.format(Locale.ROOT, "%.0f", c.firstDivergenceChar()), acc,
                    f.isEmpty() ? "—" : "`SUSPICIOUS_PATCH`: " + cell(String.join("; ", f)), cell(why)));
        }
        sb.append('\n');
    }

    /**
     * An arm's outcome count in one session: the runs, or {@code 1 (arm not prepared: recorded on 4 jobs)} for a
     * preparation failure ({@link FailureCounts}).
     */
    static String outcomeRuns(String category, int runs) {
        return FailureCounts.isPrepare(category) && runs > 1
                ? "1 (arm not prepared: recorded on " + runs + " jobs)" : Integer.toString(runs);
    }

    private static String rate(Double r) {
        return r == null ? "—" : String.format(Locale.ROOT, "%.0f %%", r * 100);
    }

    /** A table cell of text from runs and reviews: no raw HTML (entities), no cell break. */
    private static String cell(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("|", "\\|")
                .replace("\n", " ");
    }

    private static void task(SessionAnalysis.TaskResult t, NativeTask nt, List<BetweenSessions.Group> between,
                             StringBuilder sb) {
        TaskAnalysis ta = t.analysis();
        sb.append("### Task ").append(t.taskId()).append(" (").append(nt == null || nt.extra().declared == null
                        ? t.mode() : nt.modeShown() + ": " + nt.metricShown()).append(", commit ")
                .append(t.commit() == null ? "?" : t.commit().substring(0, Math.min(12, t.commit().length())))
                .append(")\n\n");
        if (ta == null) {
            sb.append("No statistics: the baseline or human arm has no runs.\n\n");
            correctness(t, nt, sb);
            return;
        }
        sb.append(String.format(Locale.ROOT,
                "Metric `%s` (%s is better). %s. Margin %s. %s. Replay: **%s** (human vs baseline %s). Hardware `%s`.%n%n",
                ta.metric(), ta.better().name().toLowerCase(Locale.ROOT), ReadingText.aaCheck(ta),
                ReadingText.margin(ta), ReadingText.rounds(ta.stopping()), ta.replayValidity().label(),
                ta.humanVsBaseline().verdictShown(), t.hardware() == null ? "not recorded" : t.hardware()));
        if (t.sweep() != null && ReadingText.ordinal(ta)) {
            sb.append("Capacity verdicts: ").append(ReadingText.ordinalRule(t.sweep())).append(".\n\n");
        }
        if (t.resolution() != null) {
            sb.append(t.resolution().coarse() ? "**Resolution**: " : "Resolution: ")
                    .append(t.resolution().describe(ta.config())).append(".\n\n");
        }
        sb.append("| arm | runs | n | median | CV | ").append(ReadingText.speedupHeader("baseline", ta))
                .append(" | pairs | p (MWU) | verdict | ").append(ReadingText.speedupHeader("human", ta))
                .append(" | verdict | opt_base | opt_human | outcomes |\n");
        sb.append("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
        for (Arm typed : t.armOrder()) {
            String arm = typed.label();
            ArmSummary s = ta.summaries().get(typed);
            ArmRow row = ArmRow.of(t, ta, typed);
            Comparison vb = row.vsBaseline();
            Comparison vh = row.vsHuman();
            String ob = row.optBase();
            String oh = row.optHuman();
            String outs = row.outcomes();
            sb.append(String.format(Locale.ROOT, "| %s | %d | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |%n",
                    arm, t.runs().getOrDefault(typed, 0), s == null ? "0" : Integer.toString(s.n()),
                    s == null ? "—" : num(s.median()), s == null ? "—" : pct(s.cvPct()),
                    speedup(vb), pairs(vb), p(vb), verdict(vb), speedup(vh), verdict(vh), ob, oh,
                    outs.isEmpty() ? "—" : outs));
        }
        if (ta.exclusions().isEmpty()) {
            sb.append("\nExcluded rounds: none (every successful run did the baseline's work, lost no request and ran on"
                    + " the task's hardware).\n");
        } else {
            sb.append(ta.exclusions().stream().allMatch(RoundExclusion::excluded)
                    ? "\nExcluded rounds (kept out of every comparison):\n\n"
                    : "\nExcluded rounds (kept out of every comparison) and flagged ones (`[flagged, still counted]`: "
                    + "GPU clocks differed, shown, still counted):\n\n");
            for (RoundExclusion e : ta.exclusions()) {
                sb.append("- ").append(cell(e.oneLine())).append('\n');
            }
        }
        FidelitySection.markdown(nt, sb);
        sb.append("\nWhy, per comparison: ").append(cell(ta.humanVsBaseline().arm() + " vs baseline: "
                + ta.humanVsBaseline().reason()));
        for (AgentOutcome o : ta.agents()) {
            sb.append("; ").append(cell(o.agent() + " vs baseline: " + o.vsBaseline().reason()));
        }
        sb.append(".\n");
        SpreadSection.taskMarkdown(between, sb);
        SecondarySection.markdown(t, sb);
        sb.append('\n');
        SweepReport.markdown(t, sb);
        correctness(t, nt, sb);
    }

    /**
     * What the arm table (Markdown and HTML) shows for one arm beyond its summary: the comparisons, opt_base /
     * opt_human ("—" for baseline and human) and the outcome counts with SUSPICIOUS_PATCH where the review found
     * something.
     */
    record ArmRow(Comparison vsBaseline, Comparison vsHuman, String optBase, String optHuman, String outcomes) {
        static ArmRow of(SessionAnalysis.TaskResult t, TaskAnalysis ta, Arm typed) {
            String arm = typed.label();
            Comparison vb = null;
            Comparison vh = null;
            String ob = "—";
            String oh = "—";
            if (typed.equals(Arm.HUMAN)) {
                vb = ta.humanVsBaseline();
            } else if (typed.equals(Arm.BASELINE_AA)) {
                vb = ta.aa();
            } else if (typed.kind() == Arm.Kind.AGENT) {
                AgentOutcome o = ta.agent(arm).orElse(null);
                if (o != null) {
                    vb = o.vsBaseline();
                    vh = o.vsHuman();
                    ob = yesNo(o.optBase());
                    oh = yesNo(o.optHuman());
                }
            }
            StringBuilder outs = new StringBuilder();
            t.outcomes().getOrDefault(typed, Map.of()).forEach((k, v) ->
                    outs.append(outs.isEmpty() ? "" : ", ").append(k).append(" ×").append(outcomeRuns(k, v)));
            if (t.findings().containsKey(typed)) {
                outs.append(outs.isEmpty() ? "" : ", ").append("SUSPICIOUS_PATCH");
            }
            return new ArmRow(vb, vh, ob, oh, outs.toString());
        }
    }

    /**
     * Per arm environment: its build step (status, time, exit code, log artifact) and the fix recipes applied, as
     * recorded on the arm's runs (DESIGN §3). Nothing when no arm of the session had a build step or a recipe.
     */
    static void environments(NativeSession session, StringBuilder sb) {
        Map<String, RunDetails> byArm = session.environments();
        boolean any = byArm.values().stream().anyMatch(x -> x.has("build") || (x.section("recipes").isArray()
                && !x.section("recipes").isEmpty()));
        if (!any) {
            return;
        }
        List<String> keys = new ArrayList<>(byArm.keySet());
        sb.append("### Environments (build step and fix recipes)\n\n");
        sb.append("| task | arm | build | recipes |\n|---|---|---|---|\n");
        for (String k : keys) {
            RunDetails x = byArm.get(k);
            com.fasterxml.jackson.databind.JsonNode b = x.section("build");
            String build = "—";
            if (b.isObject()) {
                build = String.format(Locale.ROOT, "%s in %.1f s%s (`%s`, log %s)", b.path("status").asText(),
                        b.path("duration_ms").asDouble() / 1000,
                        b.path("exit_code").isNull() ? "" : ", exit " + b.path("exit_code").asInt(),
                        String.join(" ", listOf(b.path("argv"))).replace("|", "\\|"),
                        b.path("log_sha256").isTextual() ? b.path("log_sha256").asText().substring(0, 12) : "—");
            }
            StringBuilder rec = new StringBuilder();
            for (com.fasterxml.jackson.databind.JsonNode r : x.section("recipes")) {
                rec.append(rec.isEmpty() ? "" : "; ").append(r.path("name").asText()).append(" (")
                        .append(r.path("kind").asText()).append("): ").append(r.path("ok").asBoolean() ? "ok" : "FAILED")
                        .append(" — ").append(r.path("detail").asText().replace("|", "\\|"));
            }
            int bar = k.indexOf('|');
            sb.append(String.format(Locale.ROOT, "| %s | %s | %s | %s |%n", k.substring(0, bar), k.substring(bar + 1),
                    build, rec.isEmpty() ? "—" : rec));
        }
        sb.append('\n');
    }

    private static List<String> listOf(com.fasterxml.jackson.databind.JsonNode arr) {
        List<String> out = new ArrayList<>();
        arr.forEach(n -> out.add(n.asText()));
        return out;
    }

    /** Tasks the plan did not run (perf_command lint), from the plan stored on the session. */
    static void skipped(String planJson, StringBuilder sb) {
        if (planJson == null) {
            return;
        }
        try {
            com.fasterxml.jackson.databind.JsonNode sk = new com.fasterxml.jackson.databind.ObjectMapper().readTree(planJson)
                    .path("skipped");
            if (!sk.isArray() || sk.isEmpty()) {
                return;
            }
            sb.append("### Tasks not run\n\n| task | category | reason |\n|---|---|---|\n");
            for (com.fasterxml.jackson.databind.JsonNode n : sk) {
                sb.append(String.format(Locale.ROOT, "| %s | `%s` | %s |%n", n.path("task").asText(),
                        n.path("category").asText(), n.path("reason").asText().replace("|", "\\|")));
            }
            sb.append('\n');
        } catch (IOException e) {
            // not a plan: nothing to add
        }
    }

    /**
     * A speedup with its interval, {@code 1.412× [1.398, 1.426]} (the table's head names the level); an ordinal
     * metric's with none, {@code 2.000× (sign test)}.
     */
    static String speedup(Comparison c) {
        if (c == null || c.speedup() == null) {
            return "—";
        }
        if (c.variance() == Comparison.Variance.ORDINAL) {
            return String.format(Locale.ROOT, "%.3f× (sign test)", c.speedup());
        }
        return String.format(Locale.ROOT, "%.3f× [%s, %s]", c.speedup(), c.ciLowSpeedup() == null ? "—"
                : String.format(Locale.ROOT, "%.3f", c.ciLowSpeedup()), c.ciHighSpeedup() == null ? "—"
                : String.format(Locale.ROOT, "%.3f", c.ciHighSpeedup()));
    }

    static String p(Comparison c) {
        return c == null || c.pValue() == null ? "—" : String.format(Locale.ROOT, "%.3g", c.pValue());
    }

    /** The verdict as shown, its label in bold: {@code **equivalent** within ±2 %}, {@code **inconclusive**: wide CI}. */
    static String verdict(Comparison c) {
        if (c == null) {
            return "—";
        }
        String[] v = ReadingText.verdict(c);
        return "**" + v[0] + "**" + v[1];
    }

    static String pairs(Comparison c) {
        if (c == null) {
            return "—";
        }
        return c.pairs() + (c.pairsDropped() + c.roundsExcluded() == 0 ? ""
                : String.format(Locale.ROOT, " (%d dropped, %d excluded)", c.pairsDropped(), c.roundsExcluded()));
    }

    static String num(Double v) {
        return v == null ? "—" : String.format(Locale.ROOT, "%.2f", v);
    }

    static String pct(Double v) {
        return v == null ? "—" : String.format(Locale.ROOT, "%.1f %%", v);
    }

    /** yes / no, or "—" when undefined (opt_base and opt_human exist on replay-valid tasks only). */
    static String yesNo(Boolean b) {
        return b == null ? "—" : b ? "yes" : "no";
    }
}
