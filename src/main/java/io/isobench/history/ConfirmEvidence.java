package io.isobench.history;

import io.isobench.analysis.Comparison;
import io.isobench.analysis.Stopping;
import io.isobench.analysis.TaskAnalysis;
import io.isobench.track.Bisect;
import io.isobench.track.Confirmation;
import io.isobench.track.Direction;

import java.util.Locale;

/**
 * The {@code evidence} line of a decided change (one line, the contract column of {@code isobench changes}): the
 * confirming session's verdict, the metric's change later vs earlier commit with the look's interval, the A/A band,
 * the rounds read, and the verdict's reason — e.g. {@code better: -14.93 % [-16.02, -13.82] (99.9 % repeated CI),
 * A/A ±0.41 %, 3 rounds (adaptive, up to 8); <reason>}; or the failure that decided nothing.
 */
final class ConfirmEvidence {

    private ConfirmEvidence() {
    }

    /** The line of a measured session. */
    static String of(TaskAnalysis analysis) {
        Comparison c = analysis.humanVsBaseline();
        Confirmation.Outcome o = Confirmation.decide(Direction.NONE, analysis);
        StringBuilder b = new StringBuilder(c.verdictShown()).append(": ");
        if (Double.isNaN(o.changePct())) {
            b.append("no estimate");
        } else {
            b.append(pct(o.changePct()));
            if (!Double.isNaN(o.ciLowPct()) && !Double.isNaN(o.ciHighPct())) {
                b.append(String.format(Locale.ROOT, " [%.2f, %.2f] (%s)", o.ciLowPct(), o.ciHighPct(),
                        c.read().ciText()));
            }
        }
        Double band = analysis.noiseBand().bandPct();
        b.append(band == null ? ", no A/A arm" : String.format(Locale.ROOT, ", A/A ±%.2f %%%s", band,
                analysis.noiseBand().unstable() ? " (unstable)" : ""));
        b.append(", ").append(rounds(analysis.stopping()));
        if (c.reason() != null && !c.reason().isBlank()) {
            b.append("; ").append(c.reason());
        }
        return oneLine(b.toString());
    }

    /**
     * A bisect step's line: its session's line ({@link ConfirmResult#evidence}: the first session's within it when
     * there were two), then how it was read against the confirmed change — e.g. {@code ...; clean: estimate +0.41 %
     * (1 session) short of the midpoint +4.88 % of the change +10.00 %}. A skipped step's line is the failure alone.
     */
    static String step(ConfirmResult r, double changePct, Bisect.Answer answer) {
        if (answer == Bisect.Answer.SKIP || r.state() != ConfirmResult.State.MEASURED) {
            return r.evidence();
        }
        int n = r.analyses().size();
        return oneLine(r.evidence() + String.format(Locale.ROOT, "; %s: estimate %s (%d session%s) %s the midpoint %s"
                + " of the change %s", answer == Bisect.Answer.CARRIES ? "carries" : "clean",
                pct(Confirmation.pooledChangePct(r.analyses())), n, n == 1 ? "" : "s",
                answer == Bisect.Answer.CARRIES ? "beyond" : "short of", pct(Confirmation.midpointPct(changePct)),
                pct(changePct)));
    }

    /** The line of a session that compared nothing. */
    static String failed(ConfirmResult.State state, String failure) {
        String what = state == ConfirmResult.State.LATER_NOT_BUILT ? "not built" : "failed";
        return oneLine(what + ": " + (failure == null || failure.isBlank() ? "no comparison" : failure));
    }

    static String pct(double v) {
        return String.format(Locale.ROOT, "%+.2f %%", v);
    }

    private static String rounds(Stopping s) {
        int n = s.lookRounds();
        String r = n + " round" + (n == 1 ? "" : "s");
        return s.adaptive() ? r + " (adaptive, up to " + s.maxRounds() + ")" : r + " (fixed)";
    }

    /** Newlines and tabs as spaces, runs of spaces as one: the evidence is one CSV/table cell. */
    static String oneLine(String s) {
        return s.replaceAll("[\\s\\u0085\\u2028\\u2029]+", " ").strip();
    }
}
