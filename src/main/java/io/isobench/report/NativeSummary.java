package io.isobench.report;

import io.isobench.analysis.AgentOutcome;
import io.isobench.analysis.TaskAnalysis;
import io.isobench.report.Rows.Cell;
import io.isobench.report.Rows.Row;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The executive summary's row of a native task: what was measured (the mode as shown, the primary metric with its unit
 * and direction, {@link NativeTask#modeShown()}) and the verdicts vs the baseline as the task's section shows them.
 */
final class NativeSummary {

    private NativeSummary() {
    }

    static Row row(String sessionId, NativeTask t) {
        TaskAnalysis ta = t.result().analysis();
        String measured = t.modeShown() + ": " + t.metricShown()
                + (ta == null ? "" : ", " + ta.better().name().toLowerCase(Locale.ROOT) + " is better");
        List<String> agents = new ArrayList<>();
        if (ta != null) {
            for (AgentOutcome o : ta.agents()) {
                agents.add(o.agentName() + ": " + o.vsBaseline().verdictShown());
            }
        }
        return Row.of(Cell.text(sessionId), Cell.of(new Rows.Link(t.result().taskId(), t.page())),
                Cell.text(measured), Cell.text(ta == null ? "no statistics (the baseline or the human has no valid runs)"
                        : ta.humanVsBaseline().verdictShown()),
                Cell.text(agents.isEmpty() ? "no agent arm" : String.join("; ", agents)));
    }
}
