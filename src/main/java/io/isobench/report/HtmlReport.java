package io.isobench.report;

import io.isobench.guard.AtomicFile;
import io.isobench.report.HtmlPage.HtmlContext;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The HTML report ({@code isobench report --format html --out DIR}): a static site that works from {@code file://}
 * with no network — inline CSS, inline SVG charts drawn here, no script. Pages: {@code index.html} (overview:
 * receipt, per-agent leaderboard, low-signal tasks apart), {@code tasks.html} (task list), one page per native task
 * ({@code task-S-T.html}: rounds per arm, paired speedups with their CIs, A/A noise band, excluded rounds, 3-way deltas, fingerprint,
 * environment, provenance, failures with evidence and the full log under {@code logs/}), {@code failures.html}
 * (categories by arm, retryability, to-do list), {@code legacy*.html} (imported single-run data) and one
 * {@code history-N.html} per tracked task ({@link HistoryPage}: an engine's history and its change points).
 *
 * <p>Renders a {@link ReportModel}, the same model as the Markdown report, with its formatting; long tables are paginated ({@link #ROWS_PER_PAGE} rows a page) so pages stay small.
 */
public final class HtmlReport {

    /** Rows per page of a long table. */
    public static final int ROWS_PER_PAGE = 500;
    /** Tasks listed per chart before the chart says "first N of M". */
    static final int CHART_ROWS = 40;

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

    /** Writes the site of the model into {@code dir} (created when missing; existing report files replaced). */
    public static Result write(ReportModel model, Path dir) {
        try {
            Files.createDirectories(dir);
            removeOldPages(dir);
            Site site = new Site(dir);
            Map<String, String> logFiles = writeLogs(model, site);
            HtmlContext context = new HtmlContext(model, Colours.of(model), site, logFiles);
            new OverviewPage(context).write();
            new TaskListPage(context).write();
            TaskPage taskPage = new TaskPage(context);
            for (NativeTask t : model.tasks()) {
                taskPage.write(t);
            }
            new FailuresPage(context).write();
            new LegacyPages(context).write();
            new HistoryPage(context).write();
            new AttemptsPage(context).write();
            return new Result(dir.resolve("index.html"), site.pages, site.largest, site.largestName);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the HTML report to " + dir + ": " + e.getMessage(), e);
        }
    }

    /** The full logs of failed runs, beside the pages: log artifact → file name (an artifact not stored: none). */
    private static Map<String, String> writeLogs(ReportModel model, Site site) throws IOException {
        Map<String, String> logFiles = new LinkedHashMap<>();
        for (NativeSession s : model.sessions()) {
            for (String artifact : s.failedLogs()) {
                if (!logFiles.containsKey(artifact)) {
                    byte[] bytes = model.artifact(artifact).orElse(null);
                    if (bytes != null) {
                        String name = "logs/" + artifact.replaceAll("[^0-9a-fA-F]", "") + ".log.txt";
                        Files.createDirectories(site.dir.resolve("logs"));
                        AtomicFile.write(site.dir.resolve(name), bytes);
                        logFiles.put(artifact, name);
                    }
                }
            }
        }
        return logFiles;
    }

    /** Pages of an earlier report in the same folder (names this report writes; nothing else is touched). */
    private static final Pattern OUR_PAGES = Pattern.compile(
            "(index|failures|legacy|tasks|todo|attempts|task-[0-9]+-[0-9]+|legacy-.+|tasks-[0-9]+|todo-[0-9]+|history-[0-9]+)\\.html");

    private static void removeOldPages(Path dir) throws IOException {
        try (Stream<Path> s = Files.list(dir)) {
            for (Path p : s.toList()) {
                if (Files.isRegularFile(p) && OUR_PAGES.matcher(p.getFileName().toString()).matches()) {
                    Files.delete(p);
                }
            }
        }
        Path logs = dir.resolve("logs");
        if (Files.isDirectory(logs)) {
            try (Stream<Path> s = Files.list(logs)) {
                for (Path p : s.toList()) {
                    if (Files.isRegularFile(p) && p.getFileName().toString().matches("[0-9a-fA-F]+\\.log\\.txt")) {
                        Files.delete(p);
                    }
                }
            }
        }
    }
}
