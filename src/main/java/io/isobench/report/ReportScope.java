package io.isobench.report;

import io.isobench.analysis.SingleRunRule;

import java.time.Instant;

/**
 * What a report covers and how its single runs are judged: the content options of a {@link ReportModel}, the same for
 * every renderer.
 *
 * @param agent       only this agent (null: every agent in the store)
 * @param bandPct     single-run win/tie/loss band in percent (DESIGN.md §12: ±5 %)
 * @param generatedAt timestamp printed in the header
 * @param sessionId   one native session only, unfiltered and without imported data (null: the whole store)
 */
public record ReportScope(String agent, double bandPct, Instant generatedAt, String sessionId) {

    public ReportScope {
        if (!(bandPct >= 0)) {
            throw new IllegalArgumentException("bandPct (" + bandPct + ") must be >= 0");
        }
        generatedAt = generatedAt == null ? Instant.now() : generatedAt;
    }

    /** The whole store, one agent ({@code agent} null: every agent). */
    public ReportScope(String agent, double bandPct, Instant generatedAt) {
        this(agent, bandPct, generatedAt, null);
    }

    /** The whole store, every agent, the default band, generated now. */
    public static ReportScope defaults() {
        return new ReportScope(null, SingleRunRule.DEFAULT_BAND_PCT, Instant.now());
    }

    /** One native session ({@link SessionReport}). */
    public static ReportScope session(String sessionId) {
        return new ReportScope(null, SingleRunRule.DEFAULT_BAND_PCT, Instant.now(), sessionId);
    }
}
