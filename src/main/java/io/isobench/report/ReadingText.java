package io.isobench.report;

import io.isobench.analysis.Comparison;
import io.isobench.analysis.Stopping;
import io.isobench.analysis.SweepAnalysis;
import io.isobench.analysis.TaskAnalysis;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * How a task's verdicts were read, in the words every renderer shares (the Markdown report, the one-session report, the
 * HTML pages): the level of an interval (a 95 % CI with fixed rounds, a repeated CI at an adaptive look), an ordinal
 * comparison's sign test at the grid's resolution (no interval), the A/A check, the margin, how many rounds a task took
 * and why it stopped, and a session's rounds against its design's maximum (docs/statistics.md §6, §17, §19).
 */
final class ReadingText {

    private ReadingText() {
    }

    /** The task's comparisons keep no interval: an ordinal metric (a sweep's capacity), decided by the sign test. */
    static boolean ordinal(TaskAnalysis ta) {
        return ta.humanVsBaseline().variance() == Comparison.Variance.ORDINAL;
    }

    /**
     * The level of the task's intervals, from the look they were read at: {@code 95 % CI} (fixed rounds),
     * {@code 99.9 % repeated CI} (an adaptive look); null for an ordinal metric. Every comparison of a task is read at
     * the same look.
     */
    static String level(TaskAnalysis ta) {
        return ordinal(ta) ? null : level(ta.humanVsBaseline(), ta.stopping().adaptive());
    }

    /** {@code 95 % CI} or {@code 99.9 % repeated CI}. */
    static String level(Comparison c, boolean repeated) {
        return percent(c.read().ciConfidence()) + " %" + (repeated ? " repeated CI" : " CI");
    }

    /**
     * A coverage as a percent with as many decimals as it needs not to read 100 (at least one, trailing zeros
     * dropped): 0.95 → 95, 0.979 → 97.9, 0.9986 → 99.9, 0.99996 → 99.996.
     */
    static String percent(double coverage) {
        BigDecimal p = BigDecimal.valueOf(coverage * 100);
        for (int d = 1; d < 6; d++) {
            BigDecimal r = p.setScale(d, RoundingMode.HALF_UP);
            if (r.compareTo(BigDecimal.valueOf(100)) < 0 || coverage >= 1) {
                return plain(r);
            }
        }
        return plain(p.setScale(6, RoundingMode.HALF_UP));
    }

    /** The column head of a task's speedups: {@code speedup vs baseline [95 % CI]}, or the sign test's. */
    static String speedupHeader(String vs, TaskAnalysis ta) {
        return "speedup vs " + vs + (ordinal(ta) ? " (sign test, no CI)" : " [" + level(ta) + "]");
    }

    /**
     * The rule of an ordinal task: {@code sign test at the grid's resolution (grid 1, 2, 4, 8 req/s), no interval}.
     */
    static String ordinalRule(SweepAnalysis s) {
        List<String> points = new ArrayList<>();
        s.axis().points().forEach(p -> points.add(Svg.num(p)));
        return "sign test at the grid's resolution (grid " + String.join(", ", points) + " " + s.axis().unit()
                + "), no interval";
    }

    /**
     * What the task's intervals are: {@code 95 % CI (fixed rounds)}, {@code 99.9 % repeated CI (the look after round
     * 4)}, or an ordinal task's rule ({@link #ordinalRule}; {@code sweep} null: without its grid).
     */
    static String intervals(TaskAnalysis ta, SweepAnalysis sweep) {
        if (ordinal(ta)) {
            return sweep == null ? "none: sign test" : ordinalRule(sweep);
        }
        return level(ta) + (ta.stopping().adaptive() ? " (the look after round " + ta.stopping().lookRounds() + ")"
                : " (fixed rounds)");
    }

    /** The margin the verdicts used: {@code ±2 % (the minimum effect; the A/A band never widens it)}. */
    static String margin(TaskAnalysis ta) {
        return "±" + marginPct(ta.humanVsBaseline()) + " % (the minimum effect; the A/A band never widens it)";
    }

    private static String marginPct(Comparison c) {
        return plain(BigDecimal.valueOf(c.marginPct()).setScale(2, RoundingMode.HALF_UP));
    }

    /** A table cell of the A/A check: {@code 0.4 %, stable}, {@code 3.2 %, unstable}, or "not measured". */
    static String aaShort(TaskAnalysis ta) {
        if (ta.aa() == null) {
            return "not measured (no A/A arm)";
        }
        return band(ta) + ", " + (ta.noiseBand().unstable() ? "unstable" : state(ta.aa()));
    }

    /**
     * The A/A check in one line: {@code A/A band 0.4 %, stable (A/A: equivalent within ±2 %)}; unstable with its
     * numbers: {@code A/A band 3.2 %, unstable: every verdict of the task is inconclusive (A/A: worse, speedup 0.968×
     * [0.960, 0.976] 95 % CI)}.
     */
    static String aaCheck(TaskAnalysis ta) {
        Comparison aa = ta.aa();
        if (aa == null) {
            return "A/A check not measured (no A/A arm)";
        }
        String band = "A/A band " + band(ta);
        if (ta.noiseBand().unstable()) {
            return band + ", unstable: every verdict of the task is inconclusive (A/A: " + aa.verdictShown()
                    + ", speedup " + speedup(aa, ta) + ")";
        }
        return band + ", " + state(aa) + " (A/A: " + aa.verdictShown() + ")";
    }

    private static String band(TaskAnalysis ta) {
        Double b = ta.noiseBand().bandPct();
        return b == null ? "—" : String.format(Locale.ROOT, "%.1f %%", b);
    }

    /** What an A/A comparison that is not better or worse says about the machine. */
    private static String state(Comparison aa) {
        return switch (aa.verdict()) {
            case EQUIVALENT -> "stable";
            case INCONCLUSIVE -> "no instability detected";
            default -> "not checked";
        };
    }

    /** A speedup with its interval and level: {@code 1.250× [1.240, 1.260] 95 % CI}, {@code 2.000× (sign test)}. */
    static String speedup(Comparison c, TaskAnalysis ta) {
        if (c.speedup() == null) {
            return "—";
        }
        if (c.variance() == Comparison.Variance.ORDINAL) {
            return String.format(Locale.ROOT, "%.3f× (sign test, no interval)", c.speedup());
        }
        if (c.ciLowSpeedup() == null || c.ciHighSpeedup() == null) {
            return String.format(Locale.ROOT, "%.3f× (no interval)", c.speedup());
        }
        return String.format(Locale.ROOT, "%.3f× [%.3f, %.3f] %s", c.speedup(), c.ciLowSpeedup(), c.ciHighSpeedup(),
                level(c, ta.stopping().adaptive()));
    }

    /**
     * The verdict as shown, split after its label: {@code ["equivalent", " within ±2 %"]},
     * {@code ["inconclusive", ": wide CI"]}, {@code ["better", ""]} (the label is emphasised, the rest is not).
     */
    static String[] verdict(Comparison c) {
        String label = c.verdict().label();
        String shown = c.verdictShown();
        return shown.startsWith(label) ? new String[] {label, shown.substring(label.length())}
                : new String[] {shown, ""};
    }

    /** Per task: {@code Rounds: stopped after round 4 of up to 8: every gating comparison decided (…)}. */
    static String rounds(Stopping s) {
        return "Rounds: " + s.describe();
    }

    /** A table cell: {@code 5 (fixed)}, {@code 4 of up to 8: every gating comparison decided}. */
    static String roundsShort(Stopping s) {
        if (!s.adaptive()) {
            return s.roundsRun() + " (fixed)";
        }
        if (s.reason() == Stopping.Reason.RUNNING) {
            return s.roundsRun() + " of up to " + s.maxRounds() + " so far";
        }
        return s.lookRounds() + " of up to " + s.maxRounds() + ": " + s.reason().label();
    }

    /**
     * A session's rounds over its tasks with statistics (one design per session): {@code fixed rounds: 5 per task (3
     * tasks)}; {@code adaptive rounds: 3 tasks took 3, 4 and 8 rounds (15 of up to 24; 9 saved against running every
     * task to 8)}. A session stored before designs were recorded reads as fixed.
     */
    static String roundsSummary(List<TaskAnalysis> tasks) {
        List<Stopping> s = tasks.stream().filter(Objects::nonNull).map(TaskAnalysis::stopping).toList();
        if (s.isEmpty()) {
            return "no task with statistics";
        }
        List<Integer> took = new ArrayList<>();
        int look = 0;
        int max = 0;
        int upTo = 0;
        int saved = 0;
        long running = 0;
        for (Stopping x : s) {
            took.add(x.adaptive() ? x.lookRounds() : x.roundsRun());
            look += x.lookRounds();
            max += x.maxRounds();
            upTo = Math.max(upTo, x.maxRounds());
            saved += x.roundsSaved();
            running += x.reason() == Stopping.Reason.RUNNING ? 1 : 0;
        }
        String n = s.size() + " task" + (s.size() == 1 ? "" : "s");
        if (s.stream().noneMatch(Stopping::adaptive)) {
            return took.stream().distinct().count() == 1
                    ? "fixed rounds: " + took.get(0) + " per task (" + n + ")"
                    : "fixed rounds: " + n + " ran " + and(took) + " rounds";
        }
        String text = String.format(Locale.ROOT, "adaptive rounds: %s took %s round%s (%d of up to %d; %d saved against"
                + " running every task to %d)", n, and(took), took.size() == 1 && took.get(0) == 1 ? "" : "s", look,
                max, saved, upTo);
        return running == 0 ? text : text + "; " + running + " still running";
    }

    /** The session's design in words (its tasks share it): the adaptive design's looks and rule; null when fixed. */
    static String design(List<TaskAnalysis> tasks) {
        return tasks.stream().filter(Objects::nonNull).map(TaskAnalysis::stopping).filter(Stopping::adaptive)
                .findFirst().map(x -> x.design().describe()).orElse(null);
    }

    /** The rounds of a session with its design: the summary, then the adaptive design's rule. */
    static String roundsOfSession(List<TaskAnalysis> tasks) {
        String d = design(tasks);
        return roundsSummary(tasks) + (d == null ? "" : ". Design: " + d);
    }

    /** {@code 3, 4 and 8}. */
    private static String and(List<Integer> v) {
        List<String> s = v.stream().map(String::valueOf).toList();
        return s.size() == 1 ? s.get(0) : String.join(", ", s.subList(0, s.size() - 1)) + " and " + s.get(s.size() - 1);
    }

    private static String plain(BigDecimal v) {
        return v.stripTrailingZeros().toPlainString();
    }
}
