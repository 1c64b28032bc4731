package io.isobench.cli;

import io.isobench.IsobenchException;
import io.isobench.atif.AtifExport;
import io.isobench.atif.AtifImport;
import io.isobench.store.Store;
import io.isobench.store.Stores;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;

/**
 * {@code isobench agents export --format atif} and {@code isobench agents import} (docs/agents.md, "ATIF
 * trajectories"): options parsed, one {@code atif} entry called, its lines printed.
 */
final class AgentsTrajectoryCommands {

    private AgentsTrajectoryCommands() {
    }

    @Command(name = "export", mixinStandardHelpOptions = true,
            description = {"Write the stored attempts' trajectories as ATIF files (Harbor's Agent Trajectory"
                    + " Interchange Format, ATIF-v1.7): one <run id>.trajectory.json per attempt in DIR (the run id"
                    + " with characters outside A-Za-z0-9._- as _). Trajectories stored before isobench wrote ATIF are"
                    + " converted; every document is checked first, and nothing is written when one fails.",
                    "Exit 0 when written, 2 for bad input (no attempt matched, a document that is not valid ATIF)."})
    static final class Export implements Callable<Integer> {
        @ParentCommand
        AgentsCommand parent;

        @Option(names = "--format", required = true, paramLabel = "atif", description = "The format: atif.")
        String format;

        @Option(names = "--session", paramLabel = "SESSION", description = "Only this agents run or import.")
        String session;

        @Option(names = "--task", paramLabel = "ID", description = "Only attempts at this task.")
        String task;

        @Option(names = "--out", required = true, paramLabel = "DIR", description = "The folder to write into.")
        Path out;

        @Override
        public Integer call() throws IOException {
            if (!"atif".equals(format)) {
                throw new IsobenchException.BadInput("--format " + format + ": unknown (fix: --format atif)");
            }
            Main m = parent.main;
            try (Store store = Stores.open(m.dbSpec())) {
                List<AtifExport.Written> written = AtifExport.export(store, session, task, out);
                for (AtifExport.Written w : written) {
                    m.out.println(w.file() + "\t" + w.runId() + (w.converted() ? "\t(converted from the pre-ATIF"
                            + " shape)" : ""));
                }
                m.out.println(written.size() + " ATIF trajectories written to " + out);
                m.out.flush();
            }
            return Main.OK;
        }
    }

    @Command(name = "import", mixinStandardHelpOptions = true,
            description = {"Store ATIF trajectory files made elsewhere (ATIF-v1.0 to v1.8, e.g. by Harbor's agents) as"
                    + " agent attempts (status imported, no patch) in a new agents-import-… session, so `isobench"
                    + " report` shows them like isobench's own at their task. Every file is checked first; nothing is"
                    + " stored when one fails.",
                    "Exit 0 when stored, 2 for bad input (a file that is not valid ATIF: the file, the first error's"
                            + " path and the fix)."})
    static final class Import implements Callable<Integer> {
        @ParentCommand
        AgentsCommand parent;

        @Parameters(paramLabel = "FILE", arity = "1..*", description = "ATIF .json files.")
        List<Path> files;

        @Option(names = "--task", paramLabel = "ID", description = "The task they attempted (default: "
                + AtifImport.NO_TASK + ").")
        String task;

        @Option(names = "--agent", paramLabel = "NAME", description = "The agent's name (default: each file's"
                + " agent.name); attempts are NAME@1, NAME@2 … in the order given.")
        String agent;

        @Override
        public Integer call() {
            Main m = parent.main;
            try (Store store = Stores.open(m.dbSpec())) {
                AtifImport.Result r = AtifImport.importFiles(store, files, task, agent);
                m.out.println("session " + r.sessionId());
                for (AtifImport.Imported i : r.attempts()) {
                    m.out.println(i.runId() + "\t" + i.file());
                }
                m.out.flush();
            }
            return Main.OK;
        }
    }
}
