package io.isobench.report;

import io.isobench.analysis.MedianCi;
import io.isobench.store.TrackChange;
import io.isobench.store.TrackCommit;
import io.isobench.store.TrackRecord;

import java.util.List;
import java.util.Locale;
import java.util.Map;

import static io.isobench.report.Md.text;

/**
 * The Markdown report's "Engine history" section ({@code isobench track}): per tracked task and track the range, what
 * was measured, the change rows (confirmed first in words: only they are changes; rejected and candidate rows with
 * their numbers), the bisected first commit and the confirming session, then the series per commit. Every stored text
 * passes {@link Md#text} (subjects are untrusted).
 */
final class HistorySection {

    /** What a reader must know before reading a change row. */
    static final String RULE = "Only confirmed rows are changes: a change point the detector found in the series "
            + "(E-divisive means on log values, docs/statistics.md §21) is a candidate until a paired session of the "
            + "commit against the earlier measured commit (A/A arm, adaptive rounds) confirms it in the same direction;"
            + " rejected candidates are listed with their numbers.";

    private HistorySection() {
    }

    /** Appends the section (nothing when the store has no track). */
    static void markdown(Map<String, List<HistoryModel.Track>> histories, StringBuilder b) {
        if (histories.isEmpty()) {
            return;
        }
        b.append("## Engine history (isobench track)\n\n").append(RULE).append(" The series per commit is the median"
                + " of its runs with a 95 % interval (seeded percentile bootstrap of the median).\n\n");
        for (Map.Entry<String, List<HistoryModel.Track>> e : histories.entrySet()) {
            b.append("### Task ").append(text(e.getKey())).append("\n\n");
            for (HistoryModel.Track t : e.getValue()) {
                track(b, t);
            }
        }
    }

    /** The executive summary's line: tracked tasks and their confirmed changes, pointing at the section. */
    static String summary(Map<String, List<HistoryModel.Track>> histories) {
        long tracks = histories.values().stream().mapToLong(List::size).sum();
        long confirmed = histories.values().stream().flatMap(List::stream).mapToLong(t -> t.confirmed().size()).sum();
        long rows = histories.values().stream().flatMap(List::stream).mapToLong(t -> t.changes().size()).sum();
        return String.format(Locale.ROOT, "Engine history (isobench track): %d track(s) of %d task(s), %d confirmed"
                + " change(s) (%d other change row(s): rejected or not yet confirmed); section *Engine history* below.",
                tracks, histories.size(), confirmed, rows - confirmed);
    }

    private static void track(StringBuilder b, HistoryModel.Track t) {
        TrackRecord r = t.record();
        b.append("#### Track ").append(text(HistoryModel.shortRange(r.range()))).append("\n\n");
        b.append("Track `").append(code(r.trackId())).append("` (").append(text(r.status())).append("), range `")
                .append(code(r.range())).append("` of ")
                .append(text(r.repo())).append(", metric `").append(code(r.metric())).append('`')
                .append(r.better() == null ? "" : " (" + text(r.better()) + " is better)").append(". ")
                .append(text(measured(t))).append(" Series session `").append(code(r.sessionId())).append("`. ")
                .append(text(counts(t))).append("\n\n");
        if (!t.changes().isEmpty()) {
            b.append("| status | direction | change | 95 % CI | commit | parent | first commit | confirming session |"
                    + " evidence |\n|---|---|---|---|---|---|---|---|---|\n");
            for (TrackChange c : t.changes()) {
                b.append("| ").append(text(c.status())).append(" | ").append(text(c.direction())).append(" | ")
                        .append(HistoryChart.pctText(c.changePct())).append(" | ")
                        .append(c.ciLowPct() == null && c.ciHighPct() == null ? "—"
                                : "[" + HistoryChart.pctText(c.ciLowPct()) + ", " + HistoryChart.pctText(c.ciHighPct())
                                + "]").append(" | ")
                        .append(commit(t, c.commitId())).append(" | ").append(commit(t, c.parentCommit())).append(" | ")
                        .append(c.firstCommit() == null || c.firstCommit().isBlank() ? "—" : commit(t, c.firstCommit()))
                        .append(bisect(c))
                        .append(" | ").append(c.sessionId() == null ? "—" : "`" + code(c.sessionId()) + "`")
                        .append(" | ").append(c.evidence() == null ? "—" : text(HistoryChanges.text(c.evidence())))
                        .append(" |\n");
            }
            b.append('\n');
        }
        b.append("| # | commit | subject | state | runs | median | 95 % interval |\n|---|---|---|---|---|---|---|\n");
        for (HistoryModel.Point p : t.points()) {
            MedianCi ci = p.ci();
            b.append("| ").append(p.commit().position()).append(" | `").append(code(HistoryModel.shortId(
                            p.commit().commitId()))).append("` | ").append(text(HistoryChanges.text(p.commit().subject())))
                    .append(" | ").append(text(HistoryChart.state(p))).append(" | ")
                    .append(ci == null ? p.failedRuns() > 0 ? "0 ok, " + p.failedRuns() + " failed" : "—"
                            : ci.n() + (p.failedRuns() > 0 ? " ok, " + p.failedRuns() + " failed" : ""))
                    .append(" | ").append(ci == null ? "—" : HistoryChart.value(ci.median())).append(" | ")
                    .append(ci == null ? "—" : HistoryChart.value(ci.low()) + " – " + HistoryChart.value(ci.high())).append(" |\n");
        }
        b.append('\n');
    }

    /** What the track measured: its commits, every N-th, K runs each, the anchor. */
    static String measured(HistoryModel.Track t) {
        TrackRecord r = t.record();
        long selected = t.points().stream().filter(p -> p.commit().selected()).count();
        long measured = t.points().stream().filter(p -> p.ci() != null).count();
        long notBuilt = t.points().stream().filter(HistoryModel.Point::notBuilt).count();
        String every = r.every() <= 1 ? "every commit" : "every " + ordinal(r.every()) + " commit from the first, and the last";
        return String.format(Locale.ROOT, "%d commits in the range, %d selected (%s), %d runs each; %d measured, %d"
                        + " not built; anchor %s.", t.points().size(), selected, every, r.runsPerCommit(), measured,
                notBuilt, r.anchorCommit() == null ? "none" : HistoryModel.shortId(r.anchorCommit()));
    }

    /** 2nd, 3rd, 11th, 21st. */
    static String ordinal(int n) {
        int tens = n % 100;
        String suffix = tens >= 11 && tens <= 13 ? "th" : switch (n % 10) {
            case 1 -> "st";
            case 2 -> "nd";
            case 3 -> "rd";
            default -> "th";
        };
        return n + suffix;
    }

    /** The change rows counted by status. */
    static String counts(HistoryModel.Track t) {
        long confirmed = t.changes().stream().filter(c -> "confirmed".equals(c.status())).count();
        long rejected = t.changes().stream().filter(c -> "rejected".equals(c.status())).count();
        long candidates = t.changes().size() - confirmed - rejected;
        return String.format(Locale.ROOT, "%d confirmed change(s), %d rejected candidate(s), %d candidate(s) not yet"
                + " confirmed.", confirmed, rejected, candidates);
    }

    /** A change's bisect in words after its first commit ({@link HistoryBisect#describe}), or nothing. */
    private static String bisect(TrackChange c) {
        HistoryBisect bi = HistoryBisect.parse(c.bisectJson());
        return bi == null ? "" : " (bisect: " + text(HistoryChanges.text(bi.describe())) + ")";
    }

    /** A commit as its short id in code and its subject. */
    private static String commit(HistoryModel.Track t, String id) {
        if (id == null || id.isBlank()) {
            return "—";
        }
        TrackCommit c = t.commit(id);
        return "`" + code(HistoryModel.shortId(id)) + "`" + (c == null || c.subject() == null ? ""
                : " " + text(HistoryChanges.text(c.subject())));
    }

    /** Text for inside backticks: no backtick, no line break. */
    private static String code(String s) {
        return s == null ? "" : s.replace("`", "'").replace("\r", " ").replace("\n", " ").replace("|", "\\|");
    }
}
