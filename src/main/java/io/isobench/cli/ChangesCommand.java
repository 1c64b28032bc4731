package io.isobench.cli;

import io.isobench.IsobenchException;
import io.isobench.report.HistoryChanges;
import io.isobench.store.Store;
import io.isobench.store.Stores;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;

@Command(name = "changes", mixinStandardHelpOptions = true,
        description = {"List the change points of the stored tracks (isobench track), one line each: confirmed changes,"
                + " and the rejected and candidate rows with their numbers.",
                "Columns: task,commit,parent,metric,direction,change_pct,ci_low_pct,ci_high_pct,status,first_commit,"
                        + "evidence.",
                "Only confirmed rows are changes (a paired session of the commit against its parent confirmed them)."})
final class ChangesCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Option(names = "--task", paramLabel = "ID", description = "Only the changes of this task.")
    String task;

    @Option(names = "--status", paramLabel = "confirmed|rejected|candidate",
            description = "Only rows with this status (default: every status).")
    String status;

    @Option(names = "--format", paramLabel = "table|csv|json", defaultValue = "table",
            description = "table (default: aligned, short commits, subjects), csv (RFC 4180, a contract) or json.")
    String format;

    @Override
    public Integer call() {
        Main main = (Main) spec.root().userObject();
        String wanted = status == null ? null : status.strip().toLowerCase(Locale.ROOT);
        if (wanted != null && !HistoryChanges.STATUSES.contains(wanted)) {
            throw new IsobenchException.BadInput("--status " + status + " is not a change status; use "
                    + String.join(", ", HistoryChanges.STATUSES));
        }
        HistoryChanges.Format f = format(format);
        String db = main.existingDbSpec();
        try (Store store = Stores.open(db)) {
            List<HistoryChanges.Row> rows = HistoryChanges.read(store, task, wanted);
            HistoryChanges.write(rows, f, main.out);
            if (!HistoryChanges.hasTracks(store, task)) {
                main.err.println("isobench: no tracks" + (task == null ? "" : " of task " + task) + " in "
                        + store.describe() + " (isobench track SUITE --range REV1..REV2 makes one)");
            } else if (rows.isEmpty()) {
                main.err.println("isobench: no change rows" + (wanted == null ? "" : " with status " + wanted)
                        + " in " + store.describe());
            }
        }
        return Main.OK;
    }

    private static HistoryChanges.Format format(String text) {
        String f = text == null ? "" : text.strip().toUpperCase(Locale.ROOT);
        for (HistoryChanges.Format v : HistoryChanges.Format.values()) {
            if (v.name().equals(f)) {
                return v;
            }
        }
        throw new IsobenchException.BadInput("--format " + text + " is not supported; use table, csv or json");
    }
}
