package io.isobench.report;

import io.isobench.store.RunDetails;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.function.Function;

import static io.isobench.report.Html.esc;
import static io.isobench.report.Html.td;
import static io.isobench.report.Html.th;

/**
 * A task's load fidelity per run (docs/loadgen.md, "Schedule fidelity" and "Client self-check"; docs/report.md): for
 * each run whose client measured it, the schedule lag p50 / p99 / max, the share of late requests, the delivered
 * against the configured request rate and mean concurrency against the cap, and the client's check of itself — a
 * saturated client marked {@code CLIENT_SATURATED} with its reasons (its round is excluded: docs/statistics.md). The
 * Markdown and the HTML task page show the same cells ({@link #rows}); a task with no such run shows no section, so
 * reports of older stores are unchanged.
 */
final class FidelitySection {

    /** The columns, in order. */
    static final List<String> HEADER = List.of("round", "arm", "schedule lag p50 / p99 / max (ms)", "late",
            "rate delivered / configured (req/s)", "concurrency mean / cap", "client I/O CPU / loop lag p99",
            "client check");

    /** The mark of a saturated client's run (the exclusion's cause, upper case as a failure category reads). */
    static final String SATURATED = "CLIENT_SATURATED";

    private FidelitySection() {
    }

    /**
     * One run's fidelity as its details record it.
     *
     * @param arm      arm label
     * @param round    the measured round, 0-based
     * @param schedule its schedule fidelity; null without an arrival schedule
     * @param client   its client's check of itself; null when not recorded
     * @param replaced earlier attempts of the run measured again because their client was saturated
     */
    record RunFidelity(String arm, int round, RunDetails.Schedule schedule, RunDetails.ClientCheck client,
                       int replaced) {
    }

    /** The rows' cells, in {@link #HEADER} order: by round, then in {@code armOrder} order. */
    static List<List<String>> rows(List<RunFidelity> runs, List<String> armOrder) {
        List<RunFidelity> sorted = new ArrayList<>(runs);
        sorted.sort(Comparator.comparingInt(RunFidelity::round).thenComparingInt(r -> {
            int i = armOrder.indexOf(r.arm());
            return i < 0 ? Integer.MAX_VALUE : i;
        }));
        List<List<String>> out = new ArrayList<>();
        for (RunFidelity r : sorted) {
            RunDetails.Schedule s = r.schedule();
            RunDetails.ClientCheck c = r.client();
            List<String> row = new ArrayList<>(HEADER.size());
            row.add(Integer.toString(r.round() + 1));
            row.add(r.arm());
            row.add(s == null ? "— (no arrival schedule)"
                    : num(s.lagMsP50()) + " / " + num(s.lagMsP99()) + " / " + num(s.lagMsMax()));
            row.add(s == null || s.latePct() == null ? "—" : String.format(Locale.ROOT, "%.1f %% (> %s ms)",
                    s.latePct(), num(s.lateThresholdMs())));
            row.add(s == null ? "—" : num(s.deliveredRateRps()) + " / " + (s.configuredRateRps() == null ? "—"
                    : num(s.configuredRateRps())));
            row.add(s == null ? "—" : num(s.deliveredConcurrencyMean()) + " / " + (s.configuredMaxConcurrency() == null
                    ? "none" : s.configuredMaxConcurrency().toString()));
            row.add(c == null ? "—" : (c.cpuBusyPct() == null || c.cpuBusyPct() < 0 ? "—" : String.format(Locale.ROOT, "%.0f %%",
                    c.cpuBusyPct())) + " / " + (c.loopLagMsP99() == null ? "—" : num(c.loopLagMsP99()) + " ms"));
            String again = r.replaced() == 0 ? "" : String.format(Locale.ROOT, " (measured again: %d earlier attempt%s"
                    + " saturated)", r.replaced(), r.replaced() == 1 ? "" : "s");
            row.add((c == null ? "not recorded" : c.saturated() ? SATURATED + (c.reasons().isEmpty() ? ""
                    : ": " + String.join("; ", c.reasons())) : "ok") + again);
            out.add(row);
        }
        return out;
    }

    /** The Markdown table under a task, after its excluded rounds; nothing when no run recorded its fidelity. */
    static void markdown(NativeTask t, StringBuilder sb) {
        if (t == null || t.extra().fidelity.isEmpty()) {
            return;
        }
        List<List<String>> rows = rows(t.extra().fidelity, armOrder(t));
        sb.append("\nLoad fidelity per run (docs/loadgen.md: the schedule kept, and the client not the bottleneck; a ")
                .append(SATURATED).append(" run's round is excluded):\n\n");
        sb.append("| ").append(String.join(" | ", HEADER)).append(" |\n|");
        HEADER.forEach(h -> sb.append("---|"));
        sb.append('\n');
        for (List<String> row : rows) {
            sb.append("| ").append(String.join(" | ", row.stream().map(FidelitySection::cell).toList()))
                    .append(" |\n");
        }
    }

    /** The HTML section of the task page, after its excluded rounds; nothing when no run recorded its fidelity. */
    static void html(NativeTask t, StringBuilder b, Function<String, String> colour) {
        if (t.extra().fidelity.isEmpty()) {
            return;
        }
        b.append("<h2 id=\"load-fidelity\">Load fidelity per run</h2>\n<p>The schedule kept and the client not the "
                + "bottleneck (docs/loadgen.md, \"Schedule fidelity\" and \"Client self-check\"); a ")
                .append(SATURATED).append(" run's round is excluded from the verdicts.</p>\n");
        b.append("<table id=\"load-fidelity-table\">\n").append(th(HEADER.toArray(String[]::new)));
        for (List<String> row : rows(t.extra().fidelity, armOrder(t))) {
            b.append("<tr>").append(td(row.get(0))).append("<td>").append(Html.armLabel(row.get(1),
                    colour.apply(row.get(1)))).append("</td>");
            for (int i = 2; i < row.size() - 1; i++) {
                b.append(td(row.get(i)));
            }
            String check = row.get(row.size() - 1);
            b.append(check.startsWith(SATURATED) ? "<td><strong>" + esc(SATURATED) + "</strong>"
                    + esc(check.substring(SATURATED.length())) + "</td>" : td(check)).append("</tr>\n");
        }
        b.append("</table>\n");
    }

    private static List<String> armOrder(NativeTask t) {
        return t.result().armOrder().stream().map(a -> a.label()).toList();
    }

    /** A number as the tables show it: 3 significant digits at most, no exponent; "—" when null. */
    static String num(Double v) {
        if (v == null || !Double.isFinite(v)) {
            return "—";
        }
        double a = Math.abs(v);
        String f = a >= 100 ? "%.0f" : a >= 10 ? "%.1f" : "%.2f";
        return String.format(Locale.ROOT, f, v);
    }

    /** A Markdown cell: no cell break, no raw HTML. */
    private static String cell(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("|", "\\|")
                .replace("\n", " ");
    }
}
