package io.isobench.report;

import io.isobench.SharedData;
import io.isobench.cli.DemoRun;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.w3c.dom.Document;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.parallel.Isolated;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The demo's HTML report in a real browser (Debian's headless Chromium, installed by scripts/provision), of the demo
 * session {@link DemoRun} runs once per test JVM (DemoIT checks its verdicts): the rendered DOM carries the Markdown
 * report's numbers, every link resolves, the console stays clean, and screenshots of the overview and a task page are
 * kept under {@code target/html-report-screenshots/}.
 */
@Isolated("it may be the one to run the shared demo session (DemoRun), whose verdicts DemoIT checks (ItLocks)")
class HtmlReportBrowserIT {

    static final Path CHROMIUM = Path.of("/usr/bin/chromium");
    /** Where the screenshots stay after the build (test artifacts). */
    static final Path SHOTS = Path.of("target", "html-report-screenshots");

    @TempDir
    Path dir;

    @Test
    @Timeout(value = 9, unit = TimeUnit.MINUTES)
    void demoReportRendersInChromium() throws Exception {
        SharedData.requireService(Files.isExecutable(CHROMIUM) && has("python3") && has("git") && has("setsid"),
                "Debian's chromium (/usr/bin/chromium), python3, git and setsid for the demo's HTML report");
        // the demo's one run in this JVM (DemoIT checks its verdicts): its report, rendered
        DemoRun.Run run = DemoRun.adaptive();
        Path work = run.workdir();
        assertThat(run.code()).as(run.err()).isZero();
        Path site = work.resolve("report-html");
        Path index = site.resolve("index.html");
        assertThat(run.out()).contains("report: " + work.resolve("report.md"))
                .contains("html report: " + index);
        String md = Files.readString(work.resolve("report.md"));

        Map<String, Document> docs = HtmlSite.parseAll(site);
        assertThat(HtmlSite.brokenLinks(site, docs)).isEmpty();

        Files.createDirectories(SHOTS);
        Browser overview = render(index, "overview.png", 1280, 2400);
        Browser narrow = render(index, "overview-narrow.png", 390, 2400);
        Path taskPage = site.resolve("task-1-1.html");
        Browser task = render(taskPage, "task-tpot.png", 1280, 3200);
        Browser failures = render(site.resolve("failures.html"), null, 0, 0);

        for (Browser b : List.of(overview, narrow, task, failures)) {
            assertThat(b.consoleLines).as(b.page + ": console messages").isEmpty();
        }
        // key numbers on the rendered task page equal the Markdown report's
        assertThat(task.dom).contains("Task tpot");
        Map<String, List<String>> mdRows = HtmlSite.markdownTaskRows(md, "tpot");
        assertThat(mdRows).containsKeys("baseline", "human", "agent:alpha", "agent:bravo", "agent:charlie",
                "agent:delta");
        for (Map.Entry<String, List<String>> e : mdRows.entrySet()) {
            List<String> c = e.getValue();
            assertThat(HtmlSite.cell(task.dom, e.getKey(), "median")).as(e.getKey()).isEqualTo(c.get(3));
            assertThat(HtmlSite.cell(task.dom, e.getKey(), "speedup-vs-baseline")).as(e.getKey()).isEqualTo(c.get(5));
            assertThat(HtmlSite.cell(task.dom, e.getKey(), "verdict-vs-baseline")).as(e.getKey())
                    .isEqualTo(c.get(8).replace("**", ""));
            assertThat(HtmlSite.cell(task.dom, e.getKey(), "speedup-vs-human")).as(e.getKey()).isEqualTo(c.get(9));
            assertThat(HtmlSite.cell(task.dom, e.getKey(), "verdict-vs-human")).as(e.getKey())
                    .isEqualTo(c.get(10).replace("**", ""));
        }
        assertThat(task.dom).contains("<svg").contains("tpot_ms_mean (ms, lower is better)")
                .contains("speedup (× vs reference, &gt; 1 = better, log scale)");
        // the overview: every agent, the receipt, the A/A checks of the Markdown summary table
        for (String agent : List.of("alpha", "bravo", "charlie", "delta")) {
            assertThat(overview.dom).contains("data-agent=\"agent:" + agent + "\"");
        }
        assertThat(overview.dom).contains("Benchmark receipt").contains("adaptive rounds: 3 tasks took ")
                .contains("Statistical rule").contains("A/A check");
        Matcher summary = Pattern.compile("(?m)^\\| (tpot|latency|throughput) \\| [^|]+ \\| `[^`]+` \\| [^|]+ \\| "
                + "([^|]+) \\|").matcher(md);
        int floors = 0;
        while (summary.find()) {
            assertThat(HtmlSite.text(overview.dom)).contains(summary.group(1)).contains(summary.group(2).strip());
            floors++;
        }
        assertThat(floors).isEqualTo(3);
        // the failure page shows the demo's agent outcomes
        assertThat(failures.dom).contains("SERVER_CRASHED").contains("PATCH_FAILED").contains("EMPTY_PATCH")
                .contains("OUTPUT_MISMATCH");
        for (String shot : List.of("overview.png", "overview-narrow.png", "task-tpot.png")) {
            byte[] png = Files.readAllBytes(SHOTS.resolve(shot));
            assertThat(png.length).as(shot).isGreaterThan(10_000);
            assertThat(new String(png, 1, 3, StandardCharsets.US_ASCII)).as(shot).isEqualTo("PNG");
        }
    }

    /** What Chromium rendered: the DOM and the page's console lines. */
    record Browser(String page, String dom, List<String> consoleLines) {
    }

    /** Runs headless Chromium on a file: --dump-dom, and a screenshot when {@code shot} is set. */
    private Browser render(Path page, String shot, int w, int h) throws Exception {
        String url = page.toUri().toString();
        List<String> console = new ArrayList<>();
        String dom = chromium(List.of("--dump-dom", url), console);
        if (shot != null) {
            Path png = SHOTS.resolve(shot).toAbsolutePath();
            Files.deleteIfExists(png);
            chromium(List.of("--screenshot=" + png, "--window-size=" + w + "," + h, "--hide-scrollbars", url),
                    console);
            assertThat(png).exists();
        }
        return new Browser(page.getFileName().toString(), dom, console);
    }

    private String chromium(List<String> args, List<String> console) throws Exception {
        Path profile = Files.createTempDirectory(dir, "chromium-profile-");
        List<String> argv = new ArrayList<>(List.of(CHROMIUM.toString(), "--headless", "--no-sandbox",
                "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
                "--disable-component-update", "--disable-sync", "--user-data-dir=" + profile,
                "--enable-logging=stderr", "--v=0"));
        argv.addAll(args);
        Path stdout = Files.createTempFile(dir, "chromium-", ".out");
        Path stderr = Files.createTempFile(dir, "chromium-", ".err");
        Process p = new ProcessBuilder(argv).redirectOutput(stdout.toFile()).redirectError(stderr.toFile()).start();
        if (!p.waitFor(90, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError("chromium did not finish in 90 s: " + argv);
        }
        String errText = Files.readString(stderr);
        assertThat(p.exitValue()).as("chromium exit: " + errText).isZero();
        for (String line : errText.split("\n")) {
            if (line.contains(":INFO:CONSOLE")) {
                console.add(line);
            }
        }
        return Files.readString(stdout);
    }

    private static boolean has(String tool) {
        for (String d : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
            if (Files.isExecutable(Path.of(d, tool))) {
                return true;
            }
        }
        return false;
    }
}
