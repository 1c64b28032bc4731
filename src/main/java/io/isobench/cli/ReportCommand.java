package io.isobench.cli;

import io.isobench.IsobenchException;
import io.isobench.guard.AtomicFile;
import io.isobench.report.HtmlReport;
import io.isobench.report.MarkdownReport;
import io.isobench.report.ReportModel;
import io.isobench.report.ReportScope;
import io.isobench.store.Store;
import io.isobench.store.Stores;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Locale;
import java.util.concurrent.Callable;

@Command(name = "report", mixinStandardHelpOptions = true,
        description = "Write the report: executive summary, comparable 3-way tables per agent, not-comparable rows "
                + "apart, win/tie/loss, failures by category, to-do list, caveats. Markdown to stdout unless --out.")
final class ReportCommand implements Callable<Integer> {

    @ParentCommand
    Main main;

    @Option(names = "--format", defaultValue = "md",
            description = "Output format: md (default ${DEFAULT-VALUE}) or html (a static site in the --out folder).")
    String format;

    @Option(names = "--out", paramLabel = "FILE",
            description = "Write to FILE instead of stdout (html: the folder of the site, required).")
    Path outFile;

    @Option(names = "--agent", paramLabel = "NAME", description = "Only this agent (default: every agent).")
    String agent;

    @Option(names = "--band", defaultValue = "5", paramLabel = "PCT",
            description = "Win/tie/loss band for single-run rows, percent (default ±${DEFAULT-VALUE}).")
    double bandPct;

    @Override
    public Integer call() throws IOException {
        boolean html = "html".equals(format);
        if (!html && !"md".equals(format) && !"markdown".equals(format)) {
            throw new IsobenchException.BadInput("--format " + format + " is not supported; use --format md or html");
        }
        if (html && outFile == null) {
            throw new IsobenchException.BadInput("--format html writes a folder of pages: add --out DIR");
        }
        if (!(bandPct >= 0) || Double.isInfinite(bandPct)) {
            throw new IsobenchException.BadInput("--band (" + bandPct + ") must be a percentage >= 0");
        }
        ReportScope scope = new ReportScope(agent, bandPct, Instant.now());
        try (Store store = Stores.open(main.dbSpec())) {
            if (html) {
                Path dir = outFile.toAbsolutePath();
                if (Files.exists(dir) && !Files.isDirectory(dir)) {
                    throw new IsobenchException.BadInput("--out " + outFile + " is a file; --format html needs a folder");
                }
                HtmlReport.Result r;
                try (ReportModel model = ReportModel.build(store, scope)) {
                    r = HtmlReport.write(model, dir);
                }
                main.err.printf(Locale.ROOT, "html report: %d pages, largest %s (%d bytes)%n", r.pages(),
                        r.largestPage(), r.largestPageBytes());
                main.out.println(r.index());
                return Main.OK;
            }
            if (outFile == null) {
                try (ReportModel model = ReportModel.build(store, scope)) {
                    MarkdownReport.write(model, main.out);
                }
                main.out.flush();
                return Main.OK;
            }
            Path target = outFile.toAbsolutePath();
            Path dir = target.getParent();
            try {
                Files.createDirectories(dir);
            } catch (IOException e) {
                throw new IsobenchException.BadInput("--out " + outFile + ": cannot create folder " + dir + " ("
                        + e.getMessage() + ")");
            }
            // written beside the target, then moved: a failed or killed run never leaves a half-written report
            try (ReportModel model = ReportModel.build(store, scope)) {
                AtomicFile.write(target, w -> MarkdownReport.write(model, w));
            }
            main.out.println(target);
        }
        return Main.OK;
    }
}
