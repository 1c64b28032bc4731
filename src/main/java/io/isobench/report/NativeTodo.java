package io.isobench.report;

import io.isobench.Arm;

import io.isobench.analysis.AgentOutcome;
import io.isobench.analysis.Comparison;
import io.isobench.analysis.TaskAnalysis;
import io.isobench.analysis.Verdict;
import io.isobench.parse.FailureCategory;
import io.isobench.report.Rows.Cell;
import io.isobench.report.Rows.CellBuilder;
import io.isobench.report.Rows.Column;
import io.isobench.report.Rows.Row;
import io.isobench.report.Rows.Table;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The native sessions' part of the to-do list (docs/html-report.md, "To-do list"), one row model for the Markdown and
 * the HTML report. Per task, in this order: each arm's failure whose category is not an agent outcome (what to fix,
 * from the category; an arm's preparation failure counted once, {@link FailureCounts}); no statistics (the baseline
 * or the human has no valid runs); each undecided comparison (human vs baseline, an agent vs baseline:
 * inconclusive, with its reason); a task measured with no agent arm. Agent outcomes (the patch did not apply, broke
 * the engine, changed the outputs) and decided verdicts are results, never to-dos.
 */
final class NativeTodo {

    static final Table TABLE = Table.of(Column.text("task"), Column.text("arm"), Column.text("action"),
            Column.text("why"));

    private NativeTodo() {
    }

    /** The rows of every task of the model's sessions, in session and plan order. */
    static List<Row> rows(List<NativeTask> tasks) {
        List<Row> out = new ArrayList<>();
        for (NativeTask t : tasks) {
            rows(t, out);
        }
        return out;
    }

    private static void rows(NativeTask t, List<Row> out) {
        Cell task = Cell.of(new Rows.Link(t.result().taskId(), t.page()));
        for (Map.Entry<Arm, Map<String, Integer>> e : t.result().outcomes().entrySet()) {
            for (Map.Entry<String, Integer> c : e.getValue().entrySet()) {
                FailureCategory cat = Html.category(c.getKey());
                if (cat == null || !cat.agentOutcome()) {
                    String arm = e.getKey().kind() == Arm.Kind.AGENT ? "agent" : e.getKey().label();
                    out.add(Row.of(task, Cell.of(new Rows.ArmLabel(e.getKey().label())),
                            TodoAction.of(c.getKey(), arm),
                            Cell.text(c.getKey() + " ×" + FailureCounts.counted(c.getKey(), c.getValue()))));
                }
            }
        }
        TaskAnalysis ta = t.result().analysis();
        if (ta == null) {
            out.add(Row.of(task, Cell.text("—"), Cell.text("rerun the task once the baseline and the human arm run"),
                    Cell.text("no statistics: the baseline or the human arm has no valid runs")));
        } else {
            undecided(task, "human", ta.humanVsBaseline(), out);
            for (AgentOutcome o : ta.agents()) {
                undecided(task, o.agent(), o.vsBaseline(), out);
            }
        }
        if (t.result().agentArms().isEmpty()) {
            out.add(Row.of(task, Cell.text("—"), new CellBuilder().text("measure an agent's patch on it (")
                            .code("isobench agents run").text(", or an ").code("agents:").text(" entry of the suite)")
                            .build(),
                    Cell.text("no agent arm: only the human's commit was measured against the baseline")));
        }
    }

    private static void undecided(Cell task, String arm, Comparison c, List<Row> out) {
        if (c == null || c.verdict() != Verdict.INCONCLUSIVE) {
            return;
        }
        out.add(Row.of(task, Cell.of(new Rows.ArmLabel(arm)), Cell.text("rerun with more rounds (run.rounds) or on a"
                + " quieter machine"), Cell.text(arm + " vs baseline: " + String.join("", ReadingText.verdict(c)))));
    }
}
