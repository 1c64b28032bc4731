package io.isobench.report;

import io.isobench.report.HtmlPage.HtmlContext;
import io.isobench.store.Store;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * The HTML report ({@code isobench report --format html --out DIR}): a static site that works from {@code file://}
 * with no network — inline CSS, inline SVG charts drawn here, no script. Pages: {@code index.html} (overview:
 * receipt, per-agent leaderboard, low-signal tasks apart), {@code tasks.html} (task list), one page per native task
 * ({@code task-S-T.html}: rounds per arm, paired speedups with their CIs, A/A noise band, excluded rounds, 3-way deltas, fingerprint,
 * environment, provenance, failures with evidence and the full log under {@code logs/}), {@code failures.html}
 * (categories by arm, retryability, to-do list) and {@code legacy*.html} (imported single-run data).
 *
 * <p>Numbers come from the same models as the Markdown report ({@link ReportModel}, {@link io.isobench.analysis.SessionAnalysis}) and
 * use its formatting; long tables are paginated ({@link #ROWS_PER_PAGE} rows a page) so pages stay small.
 */
public final class HtmlReport {

    /** Rows per page of a long table. */
    public static final int ROWS_PER_PAGE = 500;
    /** Tasks listed per chart before the chart says "first N of M". */
    static final int CHART_ROWS = 40;
    /** Metrics charted per task page (the primary one first, with statistics; the others descriptive). */
    static final int MAX_METRICS = 24;

    /**
     * What was written.
     *
     * @param index            the overview page
     * @param pages            HTML pages written
     * @param largestPageBytes size of the largest page
     * @param largestPage      its file name
     */
    public record Result(Path index, int pages, long largestPageBytes, String largestPage) {
    }

    private HtmlReport() {
    }

    /** Writes the site for the store into {@code dir} (created when missing; existing report files replaced). */
    public static Result write(Store store, MarkdownReport.Options options, Path dir) {
        try {
            Files.createDirectories(dir);
            removeOldPages(dir);
            Site site = new Site(dir);
            try (ReportModel model = ReportModel.collect(store, options.agent(), options.bandPct())) {
                List<NativeTask> tasks = NativeTask.collect(store, options, site);
                HtmlContext context = new HtmlContext(store, options, model, tasks, Colours.of(tasks, model), site);
                new OverviewPage(context).write();
                new TaskListPage(context).write();
                TaskPage taskPage = new TaskPage(context);
                for (NativeTask t : tasks) {
                    taskPage.write(t);
                }
                new FailuresPage(context).write();
                new LegacyPages(context).write();
            }
            return new Result(dir.resolve("index.html"), site.pages, site.largest, site.largestName);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the HTML report to " + dir + ": " + e.getMessage(), e);
        }
    }

    /** Pages of an earlier report in the same folder (names this report writes; nothing else is touched). */
    private static final java.util.regex.Pattern OUR_PAGES = java.util.regex.Pattern.compile(
            "(index|failures|legacy|tasks|todo|task-[0-9]+-[0-9]+|legacy-.+|tasks-[0-9]+|todo-[0-9]+)\\.html");

    private static void removeOldPages(Path dir) throws IOException {
        try (java.util.stream.Stream<Path> s = Files.list(dir)) {
            for (Path p : s.toList()) {
                if (Files.isRegularFile(p) && OUR_PAGES.matcher(p.getFileName().toString()).matches()) {
                    Files.delete(p);
                }
            }
        }
        Path logs = dir.resolve("logs");
        if (Files.isDirectory(logs)) {
            try (java.util.stream.Stream<Path> s = Files.list(logs)) {
                for (Path p : s.toList()) {
                    if (Files.isRegularFile(p) && p.getFileName().toString().matches("[0-9a-fA-F]+\\.log\\.txt")) {
                        Files.delete(p);
                    }
                }
            }
        }
    }
}
