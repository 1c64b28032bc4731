package io.isobench.cli;

import io.isobench.legacy.ImportProgress;
import io.isobench.legacy.ImportSummary;
import io.isobench.legacy.LegacyImporter;
import io.isobench.store.Store;
import io.isobench.store.Stores;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.Callable;

@Command(name = "legacy", mixinStandardHelpOptions = true,
        description = {"Import an old ISO-Bench results tree (or any folder above one) into the store.",
                "Every file is imported, recovered, refused (with its reason) or skipped; the summary on stdout counts"
                        + " them per format and per reason (--list-skipped lists every path). A long import shows its"
                        + " progress on stderr. Re-importing unchanged files changes nothing."})
final class ImportLegacyCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Parameters(index = "0", paramLabel = "DIR", description = "Results tree, or a folder above one.")
    Path root;

    @Option(names = "--agent", paramLabel = "NAME",
            description = "Agent for trees whose folder does not name one (omniperf_results_3way_<agent>);"
                    + " '-' and '_' are interchangeable.")
    String agent;

    @Option(names = "--list-skipped",
            description = "After the summary, list every file not simply imported (recovered, refused, skipped; unchanged"
                    + " ones with their stored outcome), one tab-separated line each: outcome, format, path, reason.")
    boolean listSkipped;

    @Override
    public Integer call() {
        Main main = (Main) spec.root().userObject();
        LegacyImporter.checkRoot(root);
        try (Store store = Stores.open(main.dbSpec())) {
            ImportProgress progress = new ImportProgress(main.err, ImportProgress.stderrIsTerminal());
            ImportSummary summary = new LegacyImporter(store, agent, main.err, progress).importTree(root);
            summary.print(main.out, listSkipped);
            if (listSkipped) {
                main.out.println();
                summary.printList(main.out);
            }
            main.err.println(String.format(Locale.ROOT, "isobench: imported into %s in %d ms", store.describe(),
                    summary.elapsedMs()));
        }
        return Main.OK;
    }
}
