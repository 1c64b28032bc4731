package io.isobench.report;

import com.fasterxml.jackson.databind.JsonNode;
import io.isobench.analysis.AgentAttempts;
import io.isobench.analysis.AttemptScores;
import io.isobench.analysis.Leaderboard;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import static io.isobench.report.Html.esc;
import static io.isobench.report.Html.td;
import static io.isobench.report.Html.th;

/**
 * The attempts of agents (docs/statistics.md §18, docs/agents.md): the "Attempts" table beside the agent leaderboard
 * (Markdown and the HTML overview: K, tasks, Opt@K, mean-of-K, Opt@k for k &lt; K, best-of-K, the sensitivity line)
 * and, on a task page, each attempt collapsed with its usage, versions, hashes and trajectory. Shown only when some
 * agent has an arm {@code NAME@k} or a stored attempt ({@link AttemptScores#shown()}).
 */
final class AttemptSection {

    private AttemptSection() {
    }

    /** The header cells of the table (Markdown and HTML). */
    static final List<String> HEADERS = List.of("agent", "K", "valid tasks", "Opt@K", "mean-of-K (Opt@1 estimate)",
            "Opt@k, 1 < k < K (unbiased)", "best-of-K: geomean speedup vs baseline",
            "best attempts: better / equivalent / worse / inconclusive / failed / incorrect",
            "Opt@K at fraction 0.90 / 1.00");

    /** One row's cells. */
    static List<String> cells(AttemptScores.AgentScore a) {
        List<String> c = new ArrayList<>();
        c.add(a.agent());
        c.add(String.valueOf(a.k()));
        c.add(a.notValid() == 0 ? String.valueOf(a.tasks()) : a.tasks() + " (" + a.notValid() + " not valid)");
        c.add(rate(a.optAtK(), a.tasks()));
        c.add(a.tasks() == 0 ? "—" : String.format(Locale.ROOT, "%.3f", a.meanOfK()));
        StringBuilder small = new StringBuilder();
        for (int k = 2; k < a.k(); k++) {
            small.append(small.isEmpty() ? "" : "; ").append(String.format(Locale.ROOT, "Opt@%d %.3f", k,
                    a.optAtSmallK().get(k - 1)));
        }
        c.add(small.isEmpty() ? "—" : small.toString());
        AttemptScores.Best b = a.best();
        c.add(b.geomeanSpeedup() == null ? "—" : String.format(Locale.ROOT, "%.3f× (%d task%s)",
                b.geomeanSpeedup(), b.speedTasks(), b.speedTasks() == 1 ? "" : "s"));
        c.add(Leaderboard.AgentRow.counts(b.verdicts()));
        c.add(rate(a.optAtKByFraction().get(0), a.tasks()) + " / " + rate(a.optAtKByFraction().get(1), a.tasks()));
        return c;
    }

    private static String rate(int k, int n) {
        return n == 0 ? "—" : String.format(Locale.ROOT, "%d/%d (%.0f %%)", k, n, 100.0 * k / n);
    }

    /** The rule with the fraction filled in. */
    static String rule(AttemptScores s) {
        return String.format(Locale.ROOT, AttemptScores.RULE, String.format(Locale.ROOT, "%.2f", s.fraction()));
    }

    /** The Markdown section; nothing when the scores are not shown. */
    static void markdown(AttemptScores s, StringBuilder sb, String heading) {
        if (!s.shown()) {
            return;
        }
        sb.append(heading).append(" Attempts per agent (Opt@K, mean-of-K, best-of-K; replay-valid tasks only)\n\n");
        if (s.agents().isEmpty()) {
            sb.append("No agent attempts on a measured task.\n\n");
            return;
        }
        sb.append("| ").append(String.join(" | ", HEADERS)).append(" |\n|");
        sb.append("---|".repeat(HEADERS.size())).append('\n');
        for (AttemptScores.AgentScore a : s.agents()) {
            sb.append("| ").append(String.join(" | ", cells(a))).append(" |\n");
        }
        sb.append("\nSensitivity: ").append(s.sensitivity().line()).append(".\n\nRule: ").append(rule(s))
                .append(" (docs/statistics.md §18).\n\n");
    }

    /** The HTML section for the overview; empty when the scores are not shown. */
    static String html(AttemptScores s) {
        if (!s.shown()) {
            return "";
        }
        StringBuilder b = new StringBuilder("<h2 id=\"attempts\">Attempts per agent (Opt@K, mean-of-K, best-of-K)</h2>\n");
        b.append("<p class=\"note\">").append(esc("Rule: " + rule(s) + " (docs/statistics.md §18).")).append("</p>\n");
        if (s.agents().isEmpty()) {
            return b.append("<p>No agent attempts on a measured task.</p>\n").toString();
        }
        b.append("<table id=\"attempt-scores\">\n").append(th(HEADERS.toArray(String[]::new)));
        for (AttemptScores.AgentScore a : s.agents()) {
            b.append("<tr data-agent=\"").append(esc(a.agent())).append("\">");
            for (String c : cells(a)) {
                b.append(td(c));
            }
            b.append("</tr>\n");
        }
        b.append("</table>\n<p id=\"attempt-sensitivity\">").append(esc("Sensitivity: " + s.sensitivity().line() + "."))
                .append("</p>\n");
        return b.toString();
    }

    /**
     * A task page's attempts: one collapsed {@code <details>} per attempt (closed by default) with its outcome, usage,
     * versions, hashes and normalised trajectory; {@code measuredPatch} and {@code measuredAttempt}: per arm label the
     * patch the task measured and the stored attempt its runs named (the attempt the arm measured says so:
     * {@link AgentAttempts#measuredBy}).
     */
    static void taskHtml(StringBuilder b, List<AgentAttempts.Attempt> attempts,
                         Map<String, AttemptTrajectory> trajectories, Map<String, String> measuredPatch,
                         Map<String, String> measuredAttempt) {
        if (attempts.isEmpty()) {
            return;
        }
        b.append("<h2 id=\"attempts\">Agent attempts</h2>\n<p class=\"note\">Each attempt of <code>isobench agents run"
                + "</code> at this task (the latest of each agent and attempt number). Trajectories are the agent's"
                + " own text, shown escaped; tool results are summaries (the raw output is stored whole).</p>\n");
        attemptsHtml(b, attempts, trajectories, measuredPatch, measuredAttempt);
    }

    /** Each attempt as a {@code <details>} block: its facts, then its trajectory's steps. */
    static void attemptsHtml(StringBuilder b, List<AgentAttempts.Attempt> attempts,
                             Map<String, AttemptTrajectory> trajectories, Map<String, String> measuredPatch,
                             Map<String, String> measuredAttempt) {
        for (AgentAttempts.Attempt a : attempts) {
            String patch = a.text("patch_sha256");
            String arm = a.arm().label();
            boolean measured = AgentAttempts.measuredBy(a, measuredAttempt.get(arm), measuredPatch.get(arm));
            b.append("<details class=\"attempt\" data-attempt=\"").append(esc(arm)).append("\"><summary>")
                    .append(esc(a.agent() + " attempt " + a.attempt() + ": " + nz(a.status())
                            + (measured ? " — measured as " + arm : "")))
                    .append("</summary>\n<dl class=\"attempt-facts\">\n");
            fact(b, "status", nz(a.status()));
            fact(b, "detail", nz(a.text("detail")));
            fact(b, "turns", count(a.count("turns")));
            fact(b, "tokens in / out", count(a.count("tokens_in")) + " / " + count(a.count("tokens_out")));
            fact(b, "cost", a.number("cost_usd") == null ? "unknown"
                    : String.format(Locale.ROOT, "%.4f USD", a.number("cost_usd")));
            fact(b, "wall", a.number("wall_s") == null ? "—" : String.format(Locale.ROOT, "%.1f s", a.number("wall_s")));
            fact(b, "adapter / CLI version", nz(a.text("adapter")) + " / " + nz(a.text("cli_version")));
            fact(b, "executor", nz(a.text("executor")));
            if (a.count("gpus") != null && a.count("gpus") > 0) {
                fact(b, "GPUs", gpuLine(a.section()));
            }
            fact(b, "model", nz(a.text("model")));
            fact(b, "hints", nz(a.text("hints")));
            fact(b, "prompt sha256", short12(a.text("prompt_sha256")));
            fact(b, "patch sha256", patch == null ? "none (empty patch)" : short12(patch)
                    + (a.count("patch_lines") == null ? "" : " (" + a.count("patch_lines") + " lines)"));
            b.append("</dl>\n");
            String sha = a.text("trajectory_sha256");
            AttemptTrajectory t = sha == null ? null : trajectories.get(sha);
            if (t == null) {
                b.append("<p>No trajectory stored.</p>\n");
            } else if (t.unreadable() != null) {
                b.append("<p>Trajectory unreadable: ").append(esc(t.unreadable())).append("</p>\n");
            } else {
                steps(b, t);
            }
            b.append("</details>\n");
        }
    }

    /**
     * An attempt's GPUs and their telemetry in one line: {@code 1 × NVIDIA H100 80GB HBM3 (GPU 1, device-nodes); 30
     * samples: power 512.3 W mean, 700.0 W max, energy 1234.5 J, SM clock 1980 MHz, utilisation 85.0%}.
     */
    static String gpuLine(JsonNode d) {
        List<String> models = new ArrayList<>();
        d.path("gpu_models").forEach(m -> models.add(m.isNull() ? "unknown model" : m.asText()));
        List<String> ids = new ArrayList<>();
        d.path("gpu_ids").forEach(i -> ids.add(i.asText()));
        String who = models.stream().distinct().count() == 1
                ? models.size() + " × " + models.get(0) : String.join(", ", models);
        StringBuilder s = new StringBuilder(who).append(" (GPU ").append(String.join(",", ids)).append(", ")
                .append(d.path("gpu_mode").asText("?")).append(")");
        JsonNode t = d.path("gpu_telemetry");
        if (!t.path("available").asBoolean(false)) {
            return s.append("; no telemetry: ").append(t.path("reason").asText("not sampled")).toString();
        }
        s.append(String.format(Locale.ROOT, "; %d samples", t.path("gpu_samples").asInt()));
        List<String> parts = new ArrayList<>();
        if (t.has("gpu_power_w_mean")) {
            parts.add(String.format(Locale.ROOT, "power %.1f W mean, %.1f W max", t.path("gpu_power_w_mean").asDouble(),
                    t.path("gpu_power_w_max").asDouble()));
            parts.add(String.format(Locale.ROOT, "energy %.1f J", t.path("gpu_energy_j").asDouble()));
        }
        if (t.has("gpu_sm_clock_mhz_mean")) {
            parts.add(String.format(Locale.ROOT, "SM clock %.0f MHz", t.path("gpu_sm_clock_mhz_mean").asDouble()));
        }
        if (t.has("gpu_util_pct_mean")) {
            parts.add(String.format(Locale.ROOT, "utilisation %.1f%%", t.path("gpu_util_pct_mean").asDouble()));
        }
        return parts.isEmpty() ? s.toString() : s.append(": ").append(String.join(", ", parts)).toString();
    }

    static void steps(StringBuilder b, AttemptTrajectory t) {
        b.append("<ol class=\"trajectory\">\n");
        for (AttemptTrajectory.Step s : t.steps()) {
            b.append("<li><strong>").append(esc(s.source())).append("</strong>");
            if (s.tokensIn() != null || s.tokensOut() != null) {
                b.append(" <span class=\"note\">").append(esc("tokens " + count(s.tokensIn()) + " in / "
                        + count(s.tokensOut()) + " out")).append("</span>");
            }
            if (s.costUsd() != null) {
                b.append(" <span class=\"note\">").append(esc(String.format(Locale.ROOT, "%.4f USD", s.costUsd())))
                        .append("</span>");
            }
            if (s.reasoning() != null && !s.reasoning().isEmpty()) {
                b.append("<p class=\"note\">reasoning</p><pre>").append(esc(s.reasoning())).append("</pre>");
            }
            if (!s.message().isEmpty()) {
                b.append("<pre>").append(esc(s.message())).append("</pre>");
            }
            for (AttemptTrajectory.ToolCall c : s.calls()) {
                b.append("<p>tool <code>").append(esc(c.name())).append("</code></p><pre>").append(esc(c.arguments()))
                        .append("</pre>");
                b.append(c.result() == null ? "<p class=\"note\">no result</p>"
                        : "<p class=\"note\">result</p><pre>" + esc(c.result()) + "</pre>");
            }
            for (String r : s.results()) {
                b.append("<p class=\"note\">observation</p><pre>").append(esc(r)).append("</pre>");
            }
            b.append("</li>\n");
        }
        b.append("</ol>\n");
    }

    private static void fact(StringBuilder b, String name, String value) {
        b.append("<dt>").append(esc(name)).append("</dt><dd>").append(esc(value)).append("</dd>\n");
    }

    private static String count(Long v) {
        return v == null ? "—" : v.toString();
    }

    private static String short12(String sha) {
        return sha == null ? "—" : sha.length() > 12 ? sha.substring(0, 12) : sha;
    }

    private static String nz(String s) {
        return s == null ? "—" : s;
    }
}
