package io.isobench.cli;

import io.isobench.IsobenchException;
import io.isobench.legacy.TableFormat;
import io.isobench.report.AgentTable;
import io.isobench.store.Store;
import io.isobench.store.Stores;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.util.concurrent.Callable;

@Command(name = "table", mixinStandardHelpOptions = true,
        description = {"Print the 3-way table (baseline / human / agent) of one agent, one row per commit.",
                "Columns: commit,status,pipeline,mode,metric,unit,better,baseline_value,human_value,agent_value,"
                        + "human_delta_pct,agent_delta_pct,agent_vs_human_pct,comparability,issues."})
final class TableCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Option(names = "--agent", required = true, paramLabel = "NAME",
            description = "Agent whose rows to print ('-' and '_' are interchangeable).")
    String agent;

    @Option(names = "--format", paramLabel = "csv|md|json", defaultValue = "csv",
            description = "Output format: csv (default, RFC 4180), md (Markdown table) or json (array of objects).")
    TableFormat format;

    @Option(names = "--session", paramLabel = "ID",
            description = "Only the native rows of this session (legacy rows are left out).")
    String session;

    @Override
    public Integer call() {
        Main main = (Main) spec.root().userObject();
        String db = main.existingDbSpec();
        try (Store store = Stores.open(db)) {
            if (session != null && store.session(session).isEmpty()) {
                throw new IsobenchException.BadInput("--session " + session + ": no such session in "
                        + store.describe() + " (fix: isobench report lists the sessions)");
            }
            TableFormat.Writer w = format.open(main.out);
            int n = AgentTable.rows(store, agent, session, w::row);
            w.end();
            if (n == 0) {
                main.err.println("isobench: no 3-way rows for agent '" + agent + "' in " + store.describe());
            } else if (session == null) {
                // what the rows count, as runs and report say what they count (issue 28)
                main.err.println("isobench: " + n + " rows, one per commit and agent; progress-log attempts"
                        + " (final or superseded) are never 3-way sources");
            }
        }
        return Main.OK;
    }
}
