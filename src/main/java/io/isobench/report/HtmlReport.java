package io.isobench.report;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.isobench.analysis.AgentOutcome;
import io.isobench.analysis.ArmSummary;
import io.isobench.analysis.Comparison;
import io.isobench.analysis.SessionAnalysis;
import io.isobench.analysis.StatsConfig;
import io.isobench.analysis.TaskAnalysis;
import io.isobench.analysis.Verdict;
import io.isobench.parse.FailureCategory;
import io.isobench.parse.MetricDictionary;
import io.isobench.store.RunFilter;
import io.isobench.store.RunRecord;
import io.isobench.store.SessionRecord;
import io.isobench.store.Store;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

import static io.isobench.report.Html.esc;
import static io.isobench.report.Html.fmt;
import static io.isobench.report.Html.td;
import static io.isobench.report.Html.th;

/**
 * The HTML report ({@code isobench report --format html --out DIR}): a static site that works from {@code file://}
 * with no network — inline CSS, inline SVG charts drawn here, no script. Pages: {@code index.html} (overview:
 * receipt, per-agent leaderboard, low-signal tasks apart), {@code tasks.html} (task list), one page per native task
 * ({@code task-S-T.html}: rounds per arm, paired speedups with their CIs, A/A noise band, excluded rounds, 3-way deltas, fingerprint,
 * environment, provenance, failures with evidence and the full log under {@code logs/}), {@code failures.html}
 * (categories by arm, retryability, to-do list) and {@code legacy*.html} (imported single-run data).
 *
 * <p>Numbers come from the same models as the Markdown report ({@link ReportModel}, {@link SessionAnalysis}) and
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

    private static final ObjectMapper JSON = new ObjectMapper();

    private HtmlReport() {
    }

    /** Writes the site for the store into {@code dir} (created when missing; existing report files replaced). */
    public static Result write(Store store, MarkdownReport.Options options, Path dir) {
        try {
            Files.createDirectories(dir);
            removeOldPages(dir);
            Site site = new Site(dir);
            try (ReportModel model = ReportModel.collect(store, options)) {
                List<NativeTask> tasks = nativeTasks(store, options, site);
                Colours colours = Colours.of(tasks, model);
                new Pages(store, options, model, tasks, colours, site).all();
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

    // ---------------------------------------------------------------------------------------------------------
    // native sessions: the analysis plus what a task page shows beyond the statistics

    /** A failed run of a native task. */
    record RunFailure(String arm, int round, String category, String detail, String evidence, boolean retryable,
                      String logFile) {
    }

    /** Per task: samples per arm in round order, failures, fingerprint, environment and provenance. */
    static final class TaskExtra {
        final Map<String, TreeMap<Integer, Double>> samples = new LinkedHashMap<>();
        /** Every metric of the successful native rounds: metric → arm → round → value. */
        final Map<String, Map<String, TreeMap<Integer, Double>>> metrics = new TreeMap<>();
        final Map<String, io.isobench.parse.Metric> metricInfo = new LinkedHashMap<>();
        final List<RunFailure> failures = new ArrayList<>();
        final Map<String, String> env = new LinkedHashMap<>();
        final Map<String, String> argv = new LinkedHashMap<>();
        final Map<String, String> patch = new LinkedHashMap<>();
        final Set<String> workloads = new LinkedHashSet<>();
        String intended;
        String verified;
        Instant first;
        Instant last;
    }

    record NativeTask(SessionRecord session, SessionAnalysis.TaskResult result, TaskExtra extra, String page) {
    }

    private static List<NativeTask> nativeTasks(Store store, MarkdownReport.Options options, Site site)
            throws IOException {
        List<NativeTask> out = new ArrayList<>();
        int sIndex = 0;
        String wanted = options.agent() == null ? null : io.isobench.Arm.agent(options.agent()).label();
        for (SessionRecord s : store.sessions()) {
            sIndex++;
            SessionAnalysis a = SessionAnalysis.of(store, s.sessionId(), StatsConfig.defaults());
            if (a.tasks().isEmpty()) {
                continue;
            }
            if (wanted != null && a.tasks().stream().noneMatch(t -> t.arms().contains(wanted))) {
                continue;
            }
            Map<String, String> metricOf = new LinkedHashMap<>();
            Map<String, TaskExtra> extras = new LinkedHashMap<>();
            for (SessionAnalysis.TaskResult t : a.tasks()) {
                metricOf.put(t.taskId(), t.analysis() == null ? null : t.analysis().metric());
                extras.put(t.taskId(), new TaskExtra());
            }
            List<RunRecord> failedWithLog = new ArrayList<>();
            store.forEachRun(new RunFilter(null, Set.of(RunRecord.RunKind.MEASURED), s.sessionId(), true), r -> {
                JsonNode x = extra(r);
                TaskExtra e = extras.get(x.path("task").asText(""));
                if (e == null) {
                    return;
                }
                collect(r, x, e, metricOf.get(x.path("task").asText()));
                if (r.failure() != null && r.logArtifact() != null) {
                    failedWithLog.add(r);
                }
            });
            // the full logs of failed runs, beside the pages
            Map<String, String> logFiles = new LinkedHashMap<>();
            for (RunRecord r : failedWithLog) {
                if (!logFiles.containsKey(r.logArtifact())) {
                    byte[] bytes = store.artifact(r.logArtifact()).orElse(null);
                    if (bytes != null) {
                        String name = "logs/" + r.logArtifact().replaceAll("[^0-9a-fA-F]", "") + ".log.txt";
                        Files.createDirectories(site.dir.resolve("logs"));
                        io.isobench.guard.AtomicFile.write(site.dir.resolve(name), bytes);
                        logFiles.put(r.logArtifact(), name);
                    }
                }
            }
            int tIndex = 0;
            for (SessionAnalysis.TaskResult t : a.tasks()) {
                tIndex++;
                TaskExtra e = extras.get(t.taskId());
                List<RunFailure> linked = new ArrayList<>();
                for (RunFailure f : e.failures) {
                    linked.add(new RunFailure(f.arm(), f.round(), f.category(), f.detail(), f.evidence(),
                            f.retryable(), f.logFile() == null ? null : logFiles.get(f.logFile())));
                }
                e.failures.clear();
                e.failures.addAll(linked);
                out.add(new NativeTask(s, t, e, "task-" + sIndex + "-" + tIndex + ".html"));
            }
        }
        return out;
    }

    private static void collect(RunRecord r, JsonNode x, TaskExtra e, String metric) {
        if (r.startedAt() != null) {
            e.first = e.first == null || r.startedAt().isBefore(e.first) ? r.startedAt() : e.first;
            e.last = e.last == null || r.startedAt().isAfter(e.last) ? r.startedAt() : e.last;
        }
        if (r.workload() != null) {
            e.workloads.add(r.workload());
        }
        e.env.putIfAbsent(r.arm(), "engine " + nz(r.engineVersion()) + "; env " + nz(r.envRef()) + "; model "
                + nz(r.model()));
        if (r.argvJson() != null) {
            e.argv.putIfAbsent(r.arm(), r.argvJson());
        }
        if (x.hasNonNull("intended_commit") && e.intended == null) {
            e.intended = x.path("intended_commit").asText();
        }
        if (x.hasNonNull("verified_commit") && "baseline".equals(r.arm()) == false && e.verified == null) {
            e.verified = x.path("verified_commit").asText();
        }
        if (x.hasNonNull("patch_sha256")) {
            e.patch.putIfAbsent(r.arm(), x.path("patch_sha256").asText());
        }
        if (r.status() == RunRecord.RunStatus.NOT_RUN) {
            return;
        }
        if (r.failure() != null) {
            e.failures.add(new RunFailure(r.arm(), r.round(), r.failure().category(), r.failure().detail(),
                    r.failure().evidence(), r.failure().retryable(), r.logArtifact()));
        }
        // the same samples SessionAnalysis analyses: successful native rounds of the task's primary metric
        if ("native".equals(r.pipeline()) && r.status() == RunRecord.RunStatus.SUCCESS && r.primaryValue() != null
                && (metric == null || metric.equals(r.primaryMetric()))) {
            e.samples.computeIfAbsent(r.arm(), k -> new TreeMap<>()).put(r.round(), r.primaryValue());
        }
        if ("native".equals(r.pipeline()) && r.status() == RunRecord.RunStatus.SUCCESS) {
            for (io.isobench.parse.Metric mt : r.metrics()) {
                if (Double.isFinite(mt.value()) && (e.metrics.containsKey(mt.name()) || e.metrics.size() < MAX_METRICS)) {
                    e.metricInfo.putIfAbsent(mt.name(), mt);
                    e.metrics.computeIfAbsent(mt.name(), k -> new LinkedHashMap<>())
                            .computeIfAbsent(r.arm(), k -> new TreeMap<>()).put(r.round(), mt.value());
                }
            }
        }
    }

    private static JsonNode extra(RunRecord r) {
        if (r.extraJson() == null) {
            return JSON.missingNode();
        }
        try {
            return JSON.readTree(r.extraJson());
        } catch (IOException e) {
            return JSON.missingNode();
        }
    }

    private static String nz(String s) {
        return s == null ? "—" : s;
    }

    // ---------------------------------------------------------------------------------------------------------

    /** One colour per arm for the whole site (baseline, human, agents in name order). */
    record Colours(Map<String, String> agents) {

        static Colours of(List<NativeTask> tasks, ReportModel model) {
            TreeSet<String> names = new TreeSet<>(model.agents().keySet());
            for (NativeTask t : tasks) {
                for (String a : t.result().arms()) {
                    if (a.startsWith("agent:")) {
                        names.add(a.substring("agent:".length()));
                    }
                }
            }
            Map<String, String> m = new LinkedHashMap<>();
            int i = 0;
            for (String n : names) {
                m.put(n, Html.AGENTS[i++ % Html.AGENTS.length]);
            }
            return new Colours(m);
        }

        String of(String arm) {
            if (arm.equals("baseline")) {
                return Html.BASELINE;
            }
            if (arm.equals("human")) {
                return Html.HUMAN;
            }
            if (arm.equals(io.isobench.Arm.BASELINE_AA.label())) {
                return Html.BASELINE_AA;
            }
            String n = arm.startsWith("agent:") ? arm.substring("agent:".length()) : arm;
            return agents.getOrDefault(n, "#777777");
        }
    }

    /** Writes pages; remembers how many and the largest. */
    static final class Site {
        final Path dir;
        int pages;
        long largest;
        String largestName = "";

        Site(Path dir) {
            this.dir = dir;
        }

        void page(String name, String title, String body) throws IOException {
            byte[] bytes = Html.page(title, body).getBytes(StandardCharsets.UTF_8);
            io.isobench.guard.AtomicFile.write(dir.resolve(name), bytes); // a killed run leaves the old page whole
            pages++;
            if (bytes.length > largest) {
                largest = bytes.length;
                largestName = name;
            }
        }
    }

    /**
     * A long table split into pages {@code base.html}, {@code base-2.html}…; each page has the intro, a pager and
     * up to {@link #ROWS_PER_PAGE} rows.
     */
    static final class Paged {
        private final Site site;
        private final String base;
        private final String title;
        private final String intro;
        private final String header;
        private final int pageCount;
        private final StringBuilder rows = new StringBuilder();
        private int inPage;
        private int page = 1;

        Paged(Site site, String base, String title, String intro, String header, long total) {
            this.site = site;
            this.base = base;
            this.title = title;
            this.intro = intro;
            this.header = header;
            this.pageCount = (int) Math.max(1, (total + ROWS_PER_PAGE - 1) / ROWS_PER_PAGE);
        }

        static String file(String base, int page) {
            return page == 1 ? base + ".html" : base + "-" + page + ".html";
        }

        void add(String rowHtml) throws IOException {
            rows.append(rowHtml);
            if (++inPage == ROWS_PER_PAGE) {
                flush();
            }
        }

        void finish() throws IOException {
            if (inPage > 0 || page == 1) {
                flush();
            }
        }

        private void flush() throws IOException {
            StringBuilder b = new StringBuilder("<h1>").append(esc(title)).append("</h1>\n").append(intro);
            String pager = pager();
            b.append(pager);
            if (inPage == 0) {
                b.append("<p>None.</p>\n");
            } else {
                b.append("<table>\n").append(header).append(rows).append("</table>\n");
            }
            b.append(pager);
            site.page(file(base, page), title + (pageCount > 1 ? " — page " + page + " of " + pageCount : ""),
                    b.toString());
            rows.setLength(0);
            inPage = 0;
            page++;
        }

        private String pager() {
            if (pageCount == 1) {
                return "";
            }
            StringBuilder b = new StringBuilder("<p class=\"pager\">Page ").append(page).append(" of ")
                    .append(pageCount).append(" (").append(ROWS_PER_PAGE).append(" rows a page): ");
            for (int p = 1; p <= pageCount; p++) {
                if (p == page) {
                    b.append("<span>").append(p).append("</span>");
                } else {
                    b.append("<a href=\"").append(file(base, p)).append("\">").append(p).append("</a>");
                }
            }
            return b.append("</p>\n").toString();
        }
    }

    /** Feeds each line written into it to a consumer (to page a {@link ReportModel.Spool}). */
    private static final class LineSink extends Writer {
        interface Line {
            void accept(String line) throws IOException;
        }

        private final StringBuilder cur = new StringBuilder();
        private final Line sink;

        LineSink(Line sink) {
            this.sink = sink;
        }

        @Override
        public void write(char[] cbuf, int off, int len) throws IOException {
            for (int i = off; i < off + len; i++) {
                char c = cbuf[i];
                if (c == '\n') {
                    sink.accept(cur.toString());
                    cur.setLength(0);
                } else {
                    cur.append(c);
                }
            }
        }

        @Override
        public void flush() {
        }

        @Override
        public void close() throws IOException {
            if (!cur.isEmpty()) {
                sink.accept(cur.toString());
                cur.setLength(0);
            }
        }
    }

    // ---------------------------------------------------------------------------------------------------------

    /** The pages. */
    private static final class Pages {
        private final Store store;
        private final MarkdownReport.Options options;
        private final ReportModel m;
        private final List<NativeTask> tasks;
        private final Colours colours;
        private final Site site;
        private final StatsConfig config = StatsConfig.defaults();

        Pages(Store store, MarkdownReport.Options options, ReportModel m, List<NativeTask> tasks, Colours colours,
              Site site) {
            this.store = store;
            this.options = options;
            this.m = m;
            this.tasks = tasks;
            this.colours = colours;
            this.site = site;
        }

        void all() throws IOException {
            overview();
            taskList();
            for (NativeTask t : tasks) {
                taskPage(t);
            }
            failures();
            legacy();
        }

        private String band() {
            return MarkdownReport.fmt1(options.bandPct());
        }

        // ----- overview

        private void overview() throws IOException {
            StringBuilder b = new StringBuilder("<h1>isobench report</h1>\n");
            b.append(receipt());
            if (!tasks.isEmpty()) {
                nativeLeaderboard(b);
            } else {
                b.append("<h2 id=\"native\">Native sessions</h2>\n<p>No native session in this store (run "
                        + "<code>isobench run</code> or <code>isobench demo</code>).</p>\n");
            }
            b.append("<h2 id=\"legacy\">Imported legacy data (single runs)</h2>\n");
            if (m.agents().isEmpty()) {
                b.append("<p>No imported 3-way data in this store.</p>\n");
            } else {
                legacySummary(b);
                b.append("<p>Rows per agent, cross-run rows (not comparable) and the agent comparison: "
                        + "<a href=\"legacy.html\">imported legacy data</a>.</p>\n");
            }
            b.append("<h2 id=\"failures\">Failures</h2>\n<p>")
                    .append(m.failures().stream().mapToLong(Store.FailureCount::runs).sum())
                    .append(" failed run(s) in ").append(m.failures().size())
                    .append(" categories; to-do list: <a href=\"failures.html\">failures</a>.</p>\n");
            site.page("index.html", "isobench report — overview", b.toString());
        }

        private String receipt() {
            StringBuilder b = new StringBuilder("<section class=\"receipt\" id=\"receipt\"><h2>Benchmark receipt</h2><dl>\n");
            b.append("<dt>Generated</dt><dd>").append(esc(options.generatedAt().truncatedTo(ChronoUnit.SECONDS)
                    .toString())).append(" from <code>").append(esc(store.describe())).append("</code></dd>\n");
            Set<String> machines = new LinkedHashSet<>();
            Set<String> hardware = new LinkedHashSet<>();
            Map<String, Integer> rounds = new LinkedHashMap<>();
            List<Double> floors = new ArrayList<>();
            for (NativeTask t : tasks) {
                SessionRecord s = t.session();
                machines.add(s.host() + " (" + s.cpu() + ", GPU: " + s.gpu() + ")");
                hardware.add(SessionReport.hardware(s));
                int max = 0;
                for (TreeMap<Integer, Double> v : t.extra().samples.values()) {
                    max = Math.max(max, v.isEmpty() ? 0 : v.lastKey() + 1);
                }
                rounds.merge(s.sessionId(), max, Math::max);
                if (t.result().analysis() != null && t.result().analysis().noiseBand().bandPct() != null) {
                    floors.add(t.result().analysis().noiseBand().bandPct());
                }
            }
            if (!tasks.isEmpty()) {
                b.append("<dt>Machine</dt><dd>").append(esc(String.join("; ", machines))).append("</dd>\n");
                b.append("<dt>Rounds</dt><dd>");
                List<String> r = new ArrayList<>();
                rounds.forEach((s, n) -> r.add("session " + s + ": " + n + " measured round(s) per arm, interleaved"));
                b.append(esc(String.join("; ", r))).append("</dd>\n");
                b.append("<dt>Statistical rule</dt><dd>").append(esc(config.shortText())).append("</dd>\n");
                b.append("<dt>A/A noise band</dt><dd>");
                if (floors.isEmpty()) {
                    b.append("not measured (no A/A arm: margins are the minimum effect)");
                } else {
                    double lo = floors.stream().mapToDouble(Double::doubleValue).min().orElse(0);
                    double hi = floors.stream().mapToDouble(Double::doubleValue).max().orElse(0);
                    b.append(esc(fmt("|A/A speedup − 1| of the A/A arm (baseline-aa, the baseline started again in "
                            + "every round) paired with the baseline: %.1f %% to %.1f %% across %d task(s); each "
                            + "task's margin is max(its band, %.1f %%)", lo, hi, floors.size(), config.minEffectPct())));
                }
                b.append("</dd>\n");
                b.append("<dt>Hardware</dt><dd id=\"hardware\">").append(esc(String.join("; ", hardware)))
                        .append("</dd>\n");
            }
            if (!m.agents().isEmpty()) {
                b.append("<dt>Imported single runs</dt><dd>").append(esc("one run per arm, no noise estimate: "
                        + "win/tie/loss on the improvement with a stated ±" + band() + " % band; only "
                        + "complete_3way_same_run rows count")).append("</dd>\n");
            }
            b.append("<dt>Colours</dt><dd>");
            b.append(Html.armLabel("baseline", Html.BASELINE)).append(" · ").append(Html.armLabel("human", Html.HUMAN));
            colours.agents().forEach((n, c) -> b.append(" · ").append(Html.armLabel("agent:" + n, c)));
            b.append(" (Okabe-Ito palette, safe for colour-blind readers; labels always written)</dd>\n");
            return b.append("</dl></section>\n").toString();
        }

        /**
         * The agent leaderboard ({@link io.isobench.analysis.Leaderboard}: replay-valid tasks only, one entry per task
         * per hardware, verdicts apart, failed and incorrect arms never in a speedup median, false wins expected by
         * chance), then patch outcomes over every task, then the per-task speedups.
         */
        private void nativeLeaderboard(StringBuilder b) {
            Map<String, io.isobench.analysis.Leaderboard.Session> bySession = new LinkedHashMap<>();
            Map<String, List<SessionAnalysis.TaskResult>> results = new LinkedHashMap<>();
            for (NativeTask t : tasks) {
                results.computeIfAbsent(t.session().sessionId(), k -> new ArrayList<>()).add(t.result());
                bySession.putIfAbsent(t.session().sessionId(), null);
            }
            List<io.isobench.analysis.Leaderboard.Session> sessions = new ArrayList<>();
            for (NativeTask t : tasks) {
                String id = t.session().sessionId();
                if (bySession.get(id) == null) {
                    io.isobench.analysis.Leaderboard.Session s = new io.isobench.analysis.Leaderboard.Session(id,
                            t.session().startedAt(), "complete".equals(t.session().status()),
                            new SessionAnalysis(id, results.get(id), config));
                    bySession.put(id, s);
                    sessions.add(s);
                }
            }
            io.isobench.analysis.Leaderboard board = io.isobench.analysis.Leaderboard.of(sessions, config);
            b.append("<h2 id=\"native\">Agent leaderboard (native sessions)</h2>\n");
            b.append("<p class=\"note\">").append(esc("Rule: " + io.isobench.analysis.Leaderboard.RULE + "."))
                    .append(" Verdicts: better / worse when the ").append(esc(fmt("%.0f %%", config.confidence() * 100)))
                    .append(" CI of the paired speedup excludes 1 and the estimate lies beyond the margin (max of the "
                            + "task's A/A band and ").append(esc(fmt("%.1f %%", config.minEffectPct())))
                    .append("); equivalent when the TOST interval lies inside ±margin; otherwise inconclusive, with the"
                            + " reason; fewer than ").append(config.minPairedRounds())
                    .append(" valid paired rounds is inconclusive. False wins expected by chance: tests × ")
                    .append(esc(fmt("%.3f", (1 - config.confidence()) / 2))).append(" (one-sided false-positive rate). "
                            + "Median speedup: over the agent's valid tasks with a verdict about speed, with a "
                            + "percentile-bootstrap CI over tasks.");
            if (board.dropped() > 0) {
                b.append(" ").append(board.dropped()).append(" older measurement(s) of a task on the same hardware are "
                        + "not counted.");
            }
            b.append("</p>\n<table id=\"leaderboard\">\n");
            b.append(th("agent", "tasks", "valid tasks",
                    "vs baseline: better / equivalent / worse / inconclusive / failed / incorrect",
                    "false wins expected by chance",
                    "vs human: better / equivalent / worse / inconclusive / failed / incorrect", "opt_base",
                    "opt_human", "median speedup vs baseline", "median speedup vs human"));
            for (io.isobench.analysis.Leaderboard.AgentRow a : board.agents()) {
                b.append("<tr data-agent=\"").append(esc(a.agent())).append("\"><td>")
                        .append(Html.armLabel(a.agent(), colours.of(a.agent()))).append("</td>")
                        .append(td(a.tasks())).append(td(a.validTasks()))
                        .append("<td data-key=\"vs-baseline\">")
                        .append(esc(io.isobench.analysis.Leaderboard.AgentRow.counts(a.vsBaseline()))).append("</td>")
                        .append(td(fmt("%.2f of %d tests", a.expectedFalseWins(), a.speedTests())))
                        .append("<td data-key=\"vs-human\">")
                        .append(esc(io.isobench.analysis.Leaderboard.AgentRow.counts(a.vsHuman()))).append("</td>")
                        .append(td(rate(a.optBase(), a.validTasks()))).append(td(rate(a.optHuman(), a.validTasks())))
                        .append(td(SessionReport.medianText(a.speedupVsBaseline())))
                        .append(td(SessionReport.medianText(a.speedupVsHuman()))).append("</tr>\n");
            }
            b.append("</table>\n");
            List<String> names = new ArrayList<>();
            long[][] v = new long[board.agents().size()][];
            int i = 0;
            for (io.isobench.analysis.Leaderboard.AgentRow a : board.agents()) {
                names.add(a.agent());
                v[i] = new long[io.isobench.analysis.Leaderboard.ORDER.size()];
                for (int k = 0; k < v[i].length; k++) {
                    v[i][k] = a.vsHuman().getOrDefault(io.isobench.analysis.Leaderboard.ORDER.get(k), 0);
                }
                i++;
            }
            b.append(Svg.stacked("Verdicts vs human per agent (replay-valid tasks)", "tasks (count)", "agent", names,
                    List.of("better", "equivalent", "worse", "inconclusive", "failed", "incorrect"),
                    List.of(Html.WIN, Html.EQUIVALENT, Html.LOSS, Html.INCONCLUSIVE, Html.FAILED, Html.INCORRECT), v));
            patchOutcomes(b);
            List<Svg.Interval> iv = new ArrayList<>();
            int total = 0;
            for (NativeTask t : tasks) {
                TaskAnalysis ta = t.result().analysis();
                if (ta == null) {
                    continue;
                }
                for (AgentOutcome o : ta.agents()) {
                    total++;
                    if (iv.size() < CHART_ROWS) {
                        Comparison c = o.vsBaseline();
                        iv.add(new Svg.Interval(o.agent() + " · " + t.result().taskId(), colours.of(o.agent()),
                                c.speedup(), c.ciLowSpeedup(), c.ciHighSpeedup(), c.verdict().label()));
                    }
                }
            }
            b.append("<h3>Agent speedup vs baseline per task, with its 95 % CI (paired rounds)</h3>\n");
            if (total > iv.size()) {
                b.append("<p class=\"note\">First ").append(iv.size()).append(" of ").append(total)
                        .append(" (agent, task) pairs; every task is on the <a href=\"tasks.html\">task list</a>.</p>\n");
            }
            b.append(Svg.intervals("Agent speedup vs baseline per task (× , log scale)", iv, null));
            // low-signal tasks apart
            List<NativeTask> low = new ArrayList<>();
            List<NativeTask> valid = new ArrayList<>();
            for (NativeTask t : tasks) {
                TaskAnalysis ta = t.result().analysis();
                if (ta == null || !"valid".equals(ta.replayValidity().label())) {
                    low.add(t);
                } else {
                    valid.add(t);
                }
            }
            b.append("<h2 id=\"tasks\">Tasks</h2>\n");
            b.append(valid.isEmpty() ? "<p>None with a detected human speedup.</p>\n"
                    : taskTable(valid, CHART_ROWS * 2, "tasks-valid"));
            b.append("<h2 id=\"low-signal\">Tasks whose replay is not valid (shown apart)</h2>\n");
            b.append("<p class=\"note\">The human commit was not measured better than its parent here "
                    + "(<code>low_signal</code>: equivalent, inconclusive, failed; <code>reversed</code>: worse): "
                    + "agent verdicts on these tasks are not counted in the leaderboard.</p>\n");
            b.append(low.isEmpty() ? "<p>None.</p>\n" : taskTable(low, CHART_ROWS * 2, "tasks-low"));
        }

        private static String rate(int k, int n) {
            return n == 0 ? "—" : fmt("%d/%d (%.0f %%)", k, n, 100.0 * k / n);
        }

        /** What happened to each agent's patches over every native task, valid or not. */
        private void patchOutcomes(StringBuilder b) {
            Map<String, PatchRow> rows = new TreeMap<>();
            for (NativeTask t : tasks) {
                for (String arm : t.result().arms()) {
                    if (arm.startsWith("agent:")) {
                        rows.computeIfAbsent(arm, PatchRow::new).add(t.result());
                    }
                }
            }
            b.append("<h3>Patch outcomes (every task)</h3>\n<p class=\"note\">Counts are tasks, replay-valid or not. "
                    + "<em>Applied</em>: no PATCH_FAILED or EMPTY_PATCH; <em>crashed</em>: SERVER_CRASHED or CUDA_ERROR "
                    + "in a round; <em>incorrect</em>: failed the correctness, accuracy or review gate; "
                    + "<em>measured</em>: at least one valid round.</p>\n<table id=\"patch-outcomes\">\n");
            b.append(th("agent", "tasks", "applied", "crashed", "incorrect", "measured"));
            for (PatchRow a : rows.values()) {
                b.append("<tr data-agent=\"").append(esc(a.arm)).append("\"><td>")
                        .append(Html.armLabel(a.arm, colours.of(a.arm))).append("</td>").append(td(a.tasks))
                        .append(td(a.applied)).append(td(a.crashed)).append(td(a.incorrect)).append(td(a.measured))
                        .append("</tr>\n");
            }
            b.append("</table>\n");
        }

        private String taskTable(List<NativeTask> list, int limit, String id) {
            StringBuilder b = new StringBuilder("<table id=\"").append(id).append("\">\n");
            b.append(th("session", "task", "mode", "metric", "replay", "A/A band", "human vs baseline",
                    "agent verdicts vs human"));
            int n = 0;
            for (NativeTask t : list) {
                if (n++ == limit) {
                    break;
                }
                b.append(taskRow(t));
            }
            b.append("</table>\n");
            if (list.size() > limit) {
                b.append("<p class=\"note\">First ").append(limit).append(" of ").append(list.size())
                        .append("; all on the <a href=\"tasks.html\">task list</a>.</p>\n");
            }
            return b.toString();
        }

        private String taskRow(NativeTask t) {
            SessionAnalysis.TaskResult r = t.result();
            TaskAnalysis ta = r.analysis();
            StringBuilder v = new StringBuilder();
            if (ta != null) {
                for (AgentOutcome o : ta.agents()) {
                    v.append(v.isEmpty() ? "" : "; ").append(esc(o.agent().substring("agent:".length()))).append(": ")
                            .append(Html.verdict(o.vsHuman().verdict().label()));
                }
            }
            boolean low = ta == null || !"valid".equals(ta.replayValidity().label());
            return "<tr><td>" + esc(t.session().sessionId()) + "</td><td><a href=\"" + t.page() + "\">"
                    + esc(r.taskId()) + "</a></td>" + td(r.mode()) + "<td><code>"
                    + esc(ta == null ? "—" : ta.metric()) + "</code></td><td>"
                    + (ta == null ? "—" : esc(ta.replayValidity().label()))
                    + (low ? " <span class=\"badge b-low\">low signal</span>" : "") + "</td>"
                    + td(ta == null ? "—" : SessionReport.band(ta)) + "<td>"
                    + (ta == null ? "—" : Html.verdict(ta.humanVsBaseline())) + "</td><td>"
                    + (v.isEmpty() ? "—" : v) + "</td></tr>\n";
        }

        private void taskList() throws IOException {
            Paged p = new Paged(site, "tasks", "Tasks",
                    "<p class=\"note\">Every native task, in plan order; a <span class=\"badge b-low\">low signal</span> "
                            + "task is one where the human commit's speedup was not detected.</p>\n",
                    th("session", "task", "mode", "metric", "replay", "A/A band", "human vs baseline",
                            "agent verdicts vs human"), tasks.size());
            for (NativeTask t : tasks) {
                p.add(taskRow(t));
            }
            p.finish();
        }

        // ----- task page

        private void taskPage(NativeTask t) throws IOException {
            SessionAnalysis.TaskResult r = t.result();
            TaskAnalysis ta = r.analysis();
            TaskExtra x = t.extra();
            StringBuilder b = new StringBuilder();
            b.append("<h1>Task ").append(esc(r.taskId())).append(" <span class=\"note\">session ")
                    .append(esc(t.session().sessionId())).append("</span></h1>\n");
            b.append("<p><a href=\"tasks.html\">← all tasks</a></p>\n");
            b.append("<section class=\"receipt\"><dl>\n");
            b.append("<dt>Mode</dt><dd>").append(esc(r.mode())).append("</dd>\n");
            b.append("<dt>Commit</dt><dd><code>").append(esc(nz(r.commit()))).append("</code></dd>\n");
            if (ta == null) {
                b.append("</dl></section>\n<p>No statistics: the baseline or human arm has no runs.</p>\n");
            } else {
                String unit = nz(r.unit());
                b.append("<dt>Metric</dt><dd><code>").append(esc(ta.metric())).append("</code> (")
                        .append(esc(unit)).append(", ").append(esc(ta.better().name().toLowerCase(java.util.Locale.ROOT)))
                        .append(" is better)</dd>\n");
                b.append("<dt>A/A band</dt><dd id=\"noise-floor\">").append(esc(SessionReport.band(ta)))
                        .append("; margin of this task's verdicts ").append(esc(fmt("%.2f %%",
                                ta.humanVsBaseline().marginPct()))).append("</dd>\n");
                b.append("<dt>Replay</dt><dd>").append(esc(ta.replayValidity().label()))
                        .append(" (human vs baseline ").append(Html.verdict(ta.humanVsBaseline()))
                        .append(")</dd>\n");
                b.append("<dt>Hardware</dt><dd id=\"task-hardware\"><code>").append(esc(r.hardware() == null
                        ? "not recorded" : r.hardware())).append("</code></dd>\n");
                b.append("<dt>Method</dt><dd>").append(esc(config.shortText())).append("</dd>\n");
                b.append("</dl></section>\n");
                charts(b, t, ta, unit);
                armTable(b, t, ta);
                deltas(b, ta);
                exclusions(b, ta);
                rounds(b, t);
                otherMetrics(b, t, ta.metric());
            }
            b.append("<h2 id=\"fingerprint\">Workload fingerprint</h2>\n");
            if (x.workloads.isEmpty()) {
                b.append("<p>None recorded.</p>\n");
            } else {
                for (String w : x.workloads) {
                    b.append("<p><code>").append(esc(w)).append("</code></p>\n");
                }
                if (x.workloads.size() > 1) {
                    b.append("<p class=\"badge b-nc\">workloads differ between runs</p>\n");
                }
            }
            b.append("<h2 id=\"environment\">Environment and provenance</h2>\n<table>\n")
                    .append(th("arm", "engine / env / model", "argv", "patch sha256"));
            for (String arm : r.arms()) {
                b.append("<tr><td>").append(Html.armLabel(arm, colours.of(arm))).append("</td>")
                        .append(td(x.env.get(arm))).append("<td><code>").append(esc(nz(x.argv.get(arm))))
                        .append("</code></td><td><code>").append(esc(nz(x.patch.get(arm)))).append("</code></td></tr>\n");
            }
            b.append("</table>\n<p>Session <code>").append(esc(t.session().sessionId())).append("</code>, plan seed ")
                    .append(esc(String.valueOf(t.session().seed()))).append(", machine ")
                    .append(esc(t.session().host() + " (" + t.session().cpu() + ", GPU: " + t.session().gpu() + ")"))
                    .append(". Intended commit <code>").append(esc(nz(x.intended))).append("</code>, verified <code>")
                    .append(esc(nz(x.verified))).append("</code>. Rounds ran ").append(esc(x.first == null ? "—"
                            : x.first.truncatedTo(ChronoUnit.SECONDS).toString())).append(" to ")
                    .append(esc(x.last == null ? "—" : x.last.truncatedTo(ChronoUnit.SECONDS).toString()))
                    .append(".</p>\n");
            failuresOfTask(b, t);
            b.append("<h2 id=\"integrity\">Patch integrity</h2>\n");
            if (r.findings().isEmpty()) {
                b.append("<p>No findings.</p>\n");
            } else {
                b.append("<table>\n").append(th("arm", "finding"));
                r.findings().forEach((arm, list) -> list.forEach(f -> b.append("<tr><td>")
                        .append(Html.armLabel(arm, colours.of(arm))).append("</td><td><code>SUSPICIOUS_PATCH</code> "
                                + "(review: ").append(esc(f)).append(")</td></tr>\n")));
                b.append("</table>\n");
            }
            site.page(t.page(), "Task " + r.taskId() + " — " + t.session().sessionId(), b.toString());
        }

        private void charts(StringBuilder b, NativeTask t, TaskAnalysis ta, String unit) {
            List<Svg.Series> series = new ArrayList<>();
            for (String arm : t.result().arms()) {
                TreeMap<Integer, Double> s = t.extra().samples.getOrDefault(arm, new TreeMap<>());
                double[] v = s.values().stream().mapToDouble(Double::doubleValue).toArray();
                ArmSummary sum = ta.summaries().get(arm);
                series.add(new Svg.Series(arm, colours.of(arm), v, sum == null ? null : sum.median()));
            }
            ArmSummary base = ta.summaries().get("baseline");
            b.append("<h2 id=\"rounds-chart\">Rounds per arm</h2>\n<p class=\"note\">A dot per measured round, a bar at "
                    + "the median; the shaded band is the A/A band around the baseline median.</p>\n");
            b.append(Svg.strip(ta.metric() + " per round and arm", ta.metric() + " (" + unit + ", "
                            + ta.better().name().toLowerCase(java.util.Locale.ROOT) + " is better)", series,
                    base == null ? null : base.median(), ta.noiseBand().bandPct()));
            List<Svg.Interval> iv = new ArrayList<>();
            Comparison hb = ta.humanVsBaseline();
            iv.add(interval("human vs baseline", "human", hb));
            for (AgentOutcome o : ta.agents()) {
                iv.add(interval(o.agent() + " vs baseline", o.agent(), o.vsBaseline()));
            }
            for (AgentOutcome o : ta.agents()) {
                iv.add(interval(o.agent() + " vs human", o.agent(), o.vsHuman()));
            }
            b.append("<h2 id=\"speedups\">Speedups with their CI (paired rounds)</h2>\n<p class=\"note\">Square: the "
                    + "geometric mean of the per-round ratios against the same round's baseline, oriented so &gt; 1 is "
                    + "better; whiskers: ").append(esc(fmt("%.0f %%", config.confidence() * 100))).append(" t "
                    + "interval; grey band: ±margin = max(A/A band, minimum effect), symmetric in log space.</p>\n");
            b.append(Svg.intervals("Speedups of task " + t.result().taskId(), iv, hb.marginPct()));
        }

        /** Every other metric the rounds produced: samples per arm and round, the median; no verdicts. */
        private void otherMetrics(StringBuilder b, NativeTask t, String primary) {
            Map<String, Map<String, TreeMap<Integer, Double>>> all = t.extra().metrics;
            if (all.keySet().stream().allMatch(primary::equals)) {
                return;
            }
            b.append("<h2 id=\"other-metrics\">Other metrics</h2>\n<p class=\"note\">Every metric the measured rounds "
                    + "produced (up to ").append(MAX_METRICS).append("): a dot per round, a bar at the median. "
                    + "Descriptive only: verdicts and CIs are computed for the primary metric <code>")
                    .append(esc(primary)).append("</code>.</p>\n");
            for (Map.Entry<String, Map<String, TreeMap<Integer, Double>>> m : all.entrySet()) {
                if (m.getKey().equals(primary)) {
                    continue;
                }
                io.isobench.parse.Metric info = t.extra().metricInfo.get(m.getKey());
                List<Svg.Series> series = new ArrayList<>();
                for (String arm : t.result().arms()) {
                    double[] v = m.getValue().getOrDefault(arm, new TreeMap<>()).values().stream()
                            .mapToDouble(Double::doubleValue).toArray();
                    series.add(new Svg.Series(arm, colours.of(arm), v, v.length == 0 ? null : ArmSummary.of(v).median()));
                }
                String unit = info == null || info.unit() == null ? MetricDictionary.lookup(m.getKey()).unit() : info.unit();
                String better = info == null || info.better() == null || info.better() == io.isobench.parse.Better.NONE
                        ? "" : ", " + info.better().label() + " is better";
                b.append(Svg.strip(m.getKey() + " per round and arm", m.getKey() + " (" + nz(unit) + better + ")",
                        series, null, null));
            }
        }

        private Svg.Interval interval(String label, String arm, Comparison c) {
            return new Svg.Interval(label, colours.of(arm), c.speedup(), c.ciLowSpeedup(), c.ciHighSpeedup(),
                    c.verdict().label());
        }

        /** The Markdown report's task table, cell for cell. */
        private void armTable(StringBuilder b, NativeTask t, TaskAnalysis ta) {
            SessionAnalysis.TaskResult r = t.result();
            b.append("<h2 id=\"arms\">Arms</h2>\n<table id=\"arm-table\">\n");
            b.append(th("arm", "runs", "n", "median", "CV", "speedup vs baseline [95% CI]", "pairs", "p (MWU)",
                    "verdict", "speedup vs human [95% CI]", "p (MWU)", "verdict", "opt_base", "opt_human", "outcomes"));
            for (String arm : r.arms()) {
                ArmSummary s = ta.summaries().get(arm);
                SessionReport.ArmRow row = SessionReport.ArmRow.of(r, ta, arm);
                Comparison vb = row.vsBaseline();
                Comparison vh = row.vsHuman();
                String ob = row.optBase();
                String oh = row.optHuman();
                String outs = row.outcomes();
                String a = esc(arm);
                b.append("<tr data-arm=\"").append(a).append("\"><td>").append(Html.armLabel(arm, colours.of(arm)))
                        .append("</td>").append(td(r.runs().getOrDefault(arm, 0)))
                        .append(td(s == null ? "0" : Integer.toString(s.n())))
                        .append(cell("median", s == null ? "—" : SessionReport.num(s.median())))
                        .append(td(s == null ? "—" : SessionReport.pct(s.cvPct())))
                        .append(cell("speedup-vs-baseline", SessionReport.speedup(vb)))
                        .append(td(SessionReport.pairs(vb)))
                        .append(td(SessionReport.p(vb)))
                        .append("<td data-key=\"verdict-vs-baseline\">").append(Html.verdict(vb)).append("</td>")
                        .append(cell("speedup-vs-human", SessionReport.speedup(vh)))
                        .append(td(SessionReport.p(vh)))
                        .append("<td data-key=\"verdict-vs-human\">").append(Html.verdict(vh)).append("</td>")
                        .append(td(ob)).append(td(oh)).append(td(outs.isEmpty() ? "—" : outs.toString()))
                        .append("</tr>\n");
            }
            b.append("</table>\n");
        }

        private static String cell(String key, String text) {
            return "<td class=\"num\" data-key=\"" + key + "\">" + esc(text) + "</td>";
        }

        private void deltas(StringBuilder b, TaskAnalysis ta) {
            b.append("<h2 id=\"deltas\">3-way deltas</h2>\n<p class=\"note\">Δ % = the paired estimate as an "
                    + "improvement, positive = better. Better/worse: the CI excludes 1 and the estimate lies beyond "
                    + "the margin; equivalent: the TOST interval lies inside ±margin; otherwise inconclusive.</p>\n");
            b.append("<table id=\"deltas-table\">\n").append(th("comparison", "Δ %", "margin %", "pairs",
                    "variance", "verdict", "why"));
            List<Comparison> cs = new ArrayList<>();
            if (ta.aa() != null) {
                cs.add(ta.aa());
            }
            cs.add(ta.humanVsBaseline());
            for (AgentOutcome o : ta.agents()) {
                cs.add(o.vsBaseline());
                cs.add(o.vsHuman());
            }
            for (Comparison c : cs) {
                b.append("<tr><td>").append(esc(c.arm() + " vs " + c.reference())).append("</td>")
                        .append(td(MarkdownReport.pct(c.deltaPct()))).append(td(fmt("%.2f", c.marginPct())))
                        .append(td(SessionReport.pairs(c))).append(td(c.variance().label()))
                        .append("<td>").append(Html.verdict(c)).append("</td>")
                        .append(td(c.reason())).append("</tr>\n");
            }
            b.append("</table>\n");
        }

        /** The rounds kept out of every comparison, with the reason. */
        private void exclusions(StringBuilder b, TaskAnalysis ta) {
            b.append("<h2 id=\"excluded\">Excluded rounds</h2>\n");
            if (ta.exclusions().isEmpty()) {
                b.append("<p>None: every successful run did the baseline's work, lost no request and ran on the task's "
                        + "hardware.</p>\n");
                return;
            }
            b.append("<table id=\"excluded-rounds\">\n").append(th("round", "arm", "cause", "what differed"));
            for (io.isobench.analysis.RoundExclusion e : ta.exclusions()) {
                b.append("<tr>").append(td(e.round() + 1)).append("<td>").append(Html.armLabel(e.arm(),
                        colours.of(e.arm()))).append("</td>").append(td(e.cause().label())).append(td(nz(e.detail())))
                        .append("</tr>\n");
            }
            b.append("</table>\n");
        }

        private void rounds(StringBuilder b, NativeTask t) {
            int max = 0;
            for (TreeMap<Integer, Double> v : t.extra().samples.values()) {
                max = Math.max(max, v.isEmpty() ? 0 : v.lastKey() + 1);
            }
            b.append("<h2 id=\"samples\">Samples per round</h2>\n<table>\n<tr><th scope=\"col\">round</th>");
            for (String arm : t.result().arms()) {
                b.append("<th scope=\"col\">").append(Html.armLabel(arm, colours.of(arm))).append("</th>");
            }
            b.append("</tr>\n");
            for (int round = 0; round < max; round++) {
                b.append("<tr>").append(td(round + 1));
                for (String arm : t.result().arms()) {
                    Double v = t.extra().samples.getOrDefault(arm, new TreeMap<>()).get(round);
                    b.append(td(v == null ? "—" : SessionReport.num(v)));
                }
                b.append("</tr>\n");
            }
            b.append("</table>\n");
        }

        private void failuresOfTask(StringBuilder b, NativeTask t) {
            b.append("<h2 id=\"task-failures\">Failures</h2>\n");
            List<RunFailure> fs = t.extra().failures;
            if (fs.isEmpty()) {
                b.append("<p>No failed round.</p>\n");
                return;
            }
            b.append("<table>\n").append(th("arm", "round", "category", "retry", "detail and evidence", "log"));
            for (RunFailure f : fs) {
                FailureCategory c = category(f.category());
                b.append("<tr><td>").append(Html.armLabel(f.arm(), colours.of(f.arm()))).append("</td>")
                        .append(td(f.round() + 1)).append("<td><code>").append(esc(f.category())).append("</code>")
                        .append(c != null && c.agentOutcome() ? " <span class=\"note\">(agent outcome)</span>" : "")
                        .append("</td>").append(td(c == null ? "?" : c.retry().label())).append("<td>")
                        .append(esc(nz(f.detail())));
                if (f.evidence() != null && !f.evidence().isBlank()) {
                    b.append("<pre class=\"evidence\">").append(esc(f.evidence())).append("</pre>");
                }
                b.append("</td><td>").append(f.logFile() == null ? "—"
                        : "<a href=\"" + esc(f.logFile()) + "\">full log</a>").append("</td></tr>\n");
            }
            b.append("</table>\n");
        }

        // ----- failures

        private void failures() throws IOException {
            StringBuilder b = new StringBuilder("<h1>Failures</h1>\n");
            b.append("<p class=\"note\">Every failed run has exactly one category. Retry: <code>yes</code> = retry as "
                    + "is; <code>after_cleanup</code>, <code>fix_recipe</code>, <code>maybe</code> = fixable; "
                    + "<code>no</code> = needs a new build, token or command. Agent outcomes (the patch failed, broke "
                    + "the engine or changed the outputs) are results, not to-dos.</p>\n");
            List<Store.FailureCount> fc = m.failures();
            b.append("<h2 id=\"by-category\">By category and arm</h2>\n");
            if (fc.isEmpty()) {
                b.append("<p>No failed runs.</p>\n");
            } else {
                List<String> cats = new ArrayList<>();
                long[][] v = new long[fc.size()][];
                for (int i = 0; i < fc.size(); i++) {
                    Store.FailureCount f = fc.get(i);
                    cats.add(f.category());
                    v[i] = new long[] {f.baselineRuns(), f.humanRuns(), f.agentRuns()};
                }
                b.append(Svg.stacked("Failed runs by category and arm", "failed runs (count)", "category", cats,
                        List.of("baseline", "human", "agent"), List.of(Html.BASELINE, Html.HUMAN, Html.AGENTS[0]), v));
                b.append("<table id=\"failure-table\">\n").append(th("category", "runs", "baseline", "human", "agent",
                        "retry", "fixable", "agent outcome", "example evidence", "example commits"));
                for (Store.FailureCount f : fc) {
                    FailureCategory c = category(f.category());
                    b.append("<tr data-category=\"").append(esc(f.category())).append("\"><td><code>")
                            .append(esc(f.category())).append("</code></td>").append(td(f.runs()))
                            .append(td(f.baselineRuns())).append(td(f.humanRuns())).append(td(f.agentRuns()))
                            .append(td(c == null ? "?" : c.retry().label()))
                            .append(td(c == null ? "?" : c.fixable() ? "yes" : "no"))
                            .append(td(c == null ? "?" : c.agentOutcome() ? "yes" : "no"))
                            .append("<td><code>").append(esc(nz(MarkdownReport.firstLine(f.exampleEvidence()))))
                            .append("</code></td><td>").append(esc(String.join(", ", f.exampleCommits())
                                    + (f.moreCommits() ? ", …" : ""))).append("</td></tr>\n");
                }
                b.append("</table>\n");
            }
            b.append("<h2 id=\"native-outcomes\">Native sessions: outcomes per task and arm</h2>\n");
            StringBuilder rows = new StringBuilder();
            List<String[]> nativeTodo = new ArrayList<>();
            for (NativeTask t : tasks) {
                for (Map.Entry<String, Map<String, Integer>> e : t.result().outcomes().entrySet()) {
                    for (Map.Entry<String, Integer> c : e.getValue().entrySet()) {
                        FailureCategory cat = category(c.getKey());
                        rows.append("<tr><td><a href=\"").append(t.page()).append("#task-failures\">")
                                .append(esc(t.result().taskId())).append("</a></td><td>")
                                .append(Html.armLabel(e.getKey(), colours.of(e.getKey()))).append("</td><td><code>")
                                .append(esc(c.getKey())).append("</code></td>").append(td(c.getValue()))
                                .append(td(cat == null ? "?" : cat.retry().label())).append("</tr>\n");
                        if (cat == null || !cat.agentOutcome()) {
                            String arm = e.getKey().startsWith("agent:") ? "agent" : e.getKey();
                            nativeTodo.add(new String[] {t.page(), t.result().taskId(), e.getKey(),
                                    ReportModel.AgentSection.action(c.getKey(), arm), c.getKey() + " ×" + c.getValue()});
                        }
                    }
                }
            }
            if (rows.isEmpty()) {
                b.append("<p>None.</p>\n");
            } else {
                b.append("<table>\n").append(th("task", "arm", "category", "runs", "retry")).append(rows)
                        .append("</table>\n");
            }
            b.append("<h2 id=\"todo\">To-do list</h2>\n");
            if (!nativeTodo.isEmpty()) {
                b.append("<table id=\"native-todo\">\n").append(th("task", "arm", "action", "why"));
                for (String[] r : nativeTodo) {
                    b.append("<tr><td><a href=\"").append(r[0]).append("\">").append(esc(r[1])).append("</a></td><td>")
                            .append(Html.armLabel(r[2], colours.of(r[2]))).append("</td>").append(td(r[3]))
                            .append(td(r[4])).append("</tr>\n");
                }
                b.append("</table>\n");
            }
            int todo = m.todo().lines();
            if (todo > 0) {
                b.append("<p>Imported legacy data: ").append(todo).append(" commit(s) to rerun or rebuild — <a href=\""
                        + "todo.html\">legacy to-do list</a>.</p>\n");
            } else if (nativeTodo.isEmpty()) {
                b.append("<p>Nothing to rerun.</p>\n");
            }
            site.page("failures.html", "Failures", b.toString());
            spoolPages("todo", "To-do list (imported legacy data)", "<p class=\"note\">What to rerun or rebuild, and "
                            + "why (from the failure category of the missing arm, or the reason the row is not "
                            + "comparable). <a href=\"failures.html\">← failures</a></p>\n",
                    th("commit", "agent", "status", "action", "why"), m.todo(), null, null);
        }

        private static FailureCategory category(String name) {
            try {
                return FailureCategory.valueOf(name);
            } catch (IllegalArgumentException | NullPointerException e) {
                return null;
            }
        }

        // ----- legacy

        private void legacySummary(StringBuilder b) {
            String band = band();
            b.append("<table id=\"legacy-summary\">\n").append(th("agent", "commits", "comparable (same run)",
                    "agent vs baseline win / tie / loss (±" + band + " %)",
                    "agent vs human win / tie / loss (±" + band + " %)", "Δ undefined", "same run, with issues",
                    "cross-run (not comparable)", "incomplete", "no metrics", "agent failures"));
            for (ReportModel.AgentSection a : m.agents().values()) {
                b.append("<tr data-agent=\"").append(esc(a.agent())).append("\"><td><a href=\"legacy.html#agent-")
                        .append(Html.slug(a.agent())).append("\">").append(Html.armLabel(a.agent(), colours.of(a.agent())))
                        .append("</a></td>").append(td(a.commits())).append(td(a.count("complete_3way_same_run")))
                        .append(td(MarkdownReport.wtl(a.vsBaseline()))).append(td(MarkdownReport.wtl(a.vsHuman())))
                        .append(td(a.count("same_run_3_values_delta_undefined")))
                        .append(td(a.count("same_run_3_values_with_issues")))
                        .append(td(a.count("cross_run_3_values_not_comparable"))).append(td(a.count("incomplete")))
                        .append(td(a.count("no_metrics"))).append(td(a.agentFailures())).append("</tr>\n");
            }
            b.append("</table>\n");
            List<String> cats = new ArrayList<>();
            long[][] v = new long[m.agents().size() * 2][];
            int i = 0;
            for (ReportModel.AgentSection a : m.agents().values()) {
                cats.add(a.agent() + " vs baseline");
                v[i++] = new long[] {a.vsBaseline()[0], a.vsBaseline()[1], a.vsBaseline()[2]};
                cats.add(a.agent() + " vs human");
                v[i++] = new long[] {a.vsHuman()[0], a.vsHuman()[1], a.vsHuman()[2]};
            }
            b.append(Svg.stacked("Single-run win / tie / loss per agent (comparable commits, ±" + band + " % band)",
                    "comparable commits (count)", "agent", cats, List.of("win", "tie", "loss"),
                    List.of(Html.WIN, Html.TIE, Html.LOSS), v));
        }

        private void legacy() throws IOException {
            StringBuilder b = new StringBuilder("<h1>Imported legacy data</h1>\n");
            b.append("<p><span class=\"badge b-single\">single run</span> Imported ISO-Bench rows are single runs "
                    + "(one run per arm, no noise estimate): win/tie/loss uses a stated ±").append(band())
                    .append(" % band on the improvement (the final ISO-Bench analysis used ±5 %), not a confidence "
                            + "interval. Only <code>complete_3way_same_run</code> rows (three arms measured in one "
                            + "invocation, same model and workload) are counted. <span class=\"badge b-nc\">not "
                            + "comparable</span> cross-run rows (arms from separate invocations) are listed apart and "
                            + "never counted.</p>\n");
            b.append("<p class=\"note\">Improvements in percent, positive = better (lower-is-better: (B − X)/B × 100; "
                    + "higher-is-better: (X − B)/B × 100; agent vs human uses the human value as B).</p>\n");
            if (m.agents().isEmpty()) {
                b.append("<p>No imported 3-way data in this store.</p>\n");
                site.page("legacy.html", "Imported legacy data", b.toString());
                return;
            }
            legacySummary(b);
            String band = band();
            for (ReportModel.AgentSection a : m.agents().values()) {
                String slug = Html.slug(a.agent());
                String base = "legacy-" + slug;
                b.append("<h2 id=\"agent-").append(slug).append("\">Agent: ").append(esc(a.agent())).append("</h2>\n<ul>\n");
                b.append(link(base + "-comparable", "Comparable 3-way rows (same run, single run per arm)",
                        a.comparable().lines()));
                b.append(link(base + "-undefined", "Same-run rows with an undefined Δ (shown, not counted)",
                        a.undefinedDelta().lines()));
                b.append(link(base + "-issues", "Same-run rows with issues (not counted)", a.withIssues().lines()));
                b.append(link(base + "-cross-run", "Cross-run rows — not comparable", a.crossRun().lines()));
                b.append(link(base + "-incomplete", "Incomplete and no-metrics commits", a.incomplete().lines()));
                b.append("</ul>\n");
                if (!a.agentFailureCategories().isEmpty()) {
                    b.append("<table>\n").append(th("agent failure (outcome)", "commits"));
                    a.agentFailureCategories().forEach((k, v) -> b.append("<tr><td><code>").append(esc(k))
                            .append("</code></td>").append(td(v)).append("</tr>\n"));
                    b.append("</table>\n");
                }
                String back = "<p><a href=\"legacy.html#agent-" + slug + "\">← " + esc(a.agent()) + "</a></p>\n";
                spoolPages(base + "-comparable", a.agent() + ": comparable 3-way rows (single runs)", back
                                + "<p><span class=\"badge b-single\">single run</span> every value is one run per arm; "
                                + "win/tie/loss on a ±" + band + " % band.</p>\n",
                        th("", "commit", "mode", "metric", "baseline", "human", "agent", "human Δ %", "agent Δ %",
                                "agent vs human %", "vs baseline (±" + band + " %)", "vs human (±" + band + " %)"),
                        a.comparable(), "single-run", "<span class=\"badge b-single\">single run</span>");
                spoolPages(base + "-undefined", a.agent() + ": same-run rows with an undefined Δ", back,
                        th("", "commit", "mode", "metric", "baseline", "human", "agent", "human Δ %", "agent Δ %",
                                "why"), a.undefinedDelta(), "single-run",
                        "<span class=\"badge b-single\">single run</span> not counted");
                spoolPages(base + "-issues", a.agent() + ": same-run rows with issues", back,
                        th("", "commit", "pipeline", "mode", "metric", "baseline", "human", "agent", "human Δ %",
                                "agent Δ %", "issues"), a.withIssues(), "single-run",
                        "<span class=\"badge b-single\">single run</span> not counted");
                spoolPages(base + "-cross-run", a.agent() + ": cross-run rows — not comparable", back
                                + "<p><span class=\"badge b-nc\">not comparable</span> the three values come from separate "
                                + "invocations: never counted, never read as a win or loss.</p>\n",
                        th("", "commit", "pipeline", "mode", "metric", "baseline", "human", "agent",
                                "why not comparable"), a.crossRun(), "not-comparable",
                        "<span class=\"badge b-nc\">not comparable</span>");
                spoolPages(base + "-incomplete", a.agent() + ": incomplete and no-metrics commits", back,
                        th("commit", "status", "pipeline", "mode", "values (B / H / A)", "missing arms: failure"),
                        a.incomplete(), null, null);
            }
            if (m.agents().size() >= 2) {
                b.append("<h2 id=\"shared\">Agent comparison on shared commits</h2>\n<p>")
                        .append(m.shared().lines()).append(" commit(s) with a comparable row for two or more agents: "
                                + "<a href=\"legacy-shared.html\">agent Δ % per commit</a>.</p>\n");
                List<String> h = new ArrayList<>(List.of("", "commit", "mode", "metric"));
                for (String a : m.agents().keySet()) {
                    h.add(a + " Δ %");
                }
                spoolPages("legacy-shared", "Agent comparison on shared commits (single runs)",
                        "<p><a href=\"legacy.html#shared\">← imported legacy data</a></p><p class=\"note\">Agent Δ % "
                                + "vs baseline; empty = no comparable row for that agent.</p>\n",
                        th(h.toArray(String[]::new)), m.shared(), "single-run",
                        "<span class=\"badge b-single\">single run</span>");
            }
            site.page("legacy.html", "Imported legacy data", b.toString());
        }

        private static String link(String base, String title, int rows) {
            return "<li><a href=\"" + base + ".html\">" + esc(title) + "</a> — " + rows + " row(s)</li>\n";
        }

        /** A spool of Markdown rows as paged HTML tables. */
        private void spoolPages(String base, String title, String intro, String header, ReportModel.Spool spool,
                                String rowClass, String badge) throws IOException {
            Paged p = new Paged(site, base, title, intro, header, spool.lines());
            try (LineSink sink = new LineSink(line -> {
                if (!line.isBlank()) {
                    p.add(Html.mdRow(line, rowClass, badge));
                }
            })) {
                spool.copyTo(sink);
            }
            p.finish();
        }
    }

    /** Per-agent patch outcomes over every native task of the overview (replay-valid or not). */
    private static final class PatchRow {
        final String arm;
        int tasks;
        int applied;
        int crashed;
        int incorrect;
        int measured;

        PatchRow(String arm) {
            this.arm = arm;
        }

        void add(SessionAnalysis.TaskResult r) {
            tasks++;
            Map<String, Integer> oc = r.outcomes().getOrDefault(arm, Map.of());
            if (!oc.containsKey("PATCH_FAILED") && !oc.containsKey("EMPTY_PATCH")) {
                applied++;
            }
            if (oc.containsKey("SERVER_CRASHED") || oc.containsKey("CUDA_ERROR")) {
                crashed++;
            }
            if (r.incorrect().contains(arm)) {
                incorrect++;
            }
            TaskAnalysis ta = r.analysis();
            ArmSummary s = ta == null ? null : ta.summaries().get(arm);
            if (s != null && s.n() > 0) {
                measured++;
            }
        }
    }
}
