package io.isobench.report;

import io.isobench.Arm;
import io.isobench.analysis.SessionAnalysis;
import io.isobench.analysis.StatsConfig;
import io.isobench.analysis.SweepRuns;
import io.isobench.store.Store;
import io.isobench.store.Stores;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A sweep task's report section, Markdown and HTML (capacity table, per-point distributions, the SVG curves), from a
 * real store of constructed runs ({@link SweepRuns}), against golden files. After an intended change:
 * {@code mvn -o -q test -Dtest=SweepReportGoldenTest -Disobench.golden.rewrite=true}, review the diff.
 */
class SweepReportGoldenTest {

    static final Path MD = Path.of("src/test/resources/golden/sweep-report.md");
    static final Path HTML = Path.of("src/test/resources/golden/sweep-report.html");

    @TempDir
    Path dir;

    @Test
    void markdownAndHtmlMatchTheirGoldens() throws Exception {
        SessionAnalysis.TaskResult t;
        try (Store store = Stores.open(dir.resolve("db.duckdb").toString())) {
            new SweepRuns().session(store);
            t = SessionAnalysis.of(store, SweepRuns.S, StatsConfig.defaults()).tasks().get(0);
        }
        String[] both = render(t, MD, HTML);
        String md = both[0];
        String html = both[1];
        // what the goldens must show, whatever their layout
        assertThat(md).contains("| human | 4 req/s | 4 [4, 4] | 6 | 0 | 0 | 4, 4, 4, 4, 4, 4 |",
                "| agent:lo | < 1 req/s (lowest point not met) |", "| agent:hi | ≥ 8 req/s (highest point met) |",
                "at least 90 % of its requests");
        assertThat(html).contains("<svg", "<polygon", "<polyline", "Latency–throughput curve of task serve: ttft_ms_p99",
                "<h3 id=\"capacity\">");
        assertThat(html.split("<svg", -1)).hasSize(1 + SweepReport.CURVES.size());
    }

    @Test
    void anAutoSweepShowsItsPilotPhaseInBothFormats() throws Exception {
        SessionAnalysis.TaskResult t;
        try (Store store = Stores.open(dir.resolve("db.duckdb").toString())) {
            SweepRuns runs = new SweepRuns();
            runs.pilots(store);
            runs.session(store);
            t = SessionAnalysis.of(store, SweepRuns.S, StatsConfig.defaults()).tasks().get(0);
        }
        // the pilots are never measurements: the same capacities and arms as without them
        assertThat(t.armOrder()).doesNotContain(Arm.ofStored("baseline-pilot")).startsWith(Arm.BASELINE);
        assertThat(t.sweep().capacity().get("baseline").perRound()).hasSize(6);
        assertThat(t.outcomes().getOrDefault(Arm.BASELINE, Map.of())).isEmpty();
        assertThat(t.sweep().pilots().points()).containsExactly(1.0, 2.0, 4.0, 8.0);
        String[] both = render(t, AUTO_MD, AUTO_HTML);
        String md = both[0];
        String html = both[1];
        assertThat(md).contains("The points came from `sweep: auto`'s pilot phase: 3 pilot run(s) of the baseline",
                "| 3 | 4 | 3.10 | 0.450 | no | +58 % |", "saturation 2 req/s");
        assertThat(html).contains("<h3 id=\"sweep-pilots\">Pilot phase</h3>", "<td class=\"num\">+100 %</td>");
    }

    static final Path AUTO_MD = Path.of("src/test/resources/golden/sweep-auto-report.md");
    static final Path AUTO_HTML = Path.of("src/test/resources/golden/sweep-auto-report.html");

    /** Both formats of the task's section, each checked against its golden: {markdown, html}. */
    private static String[] render(SessionAnalysis.TaskResult t, Path mdGolden, Path htmlGolden) throws Exception {
        StringBuilder md = new StringBuilder();
        SweepReport.markdown(t, md);
        StringBuilder html = new StringBuilder();
        Colours colours = new Colours(Map.of("lo", "#CC79A7", "hi", "#009E73"));
        SweepReport.html(html, t, colours::of);
        check(mdGolden, md.toString());
        check(htmlGolden, html.toString());
        return new String[] {md.toString(), html.toString()};
    }

    private static void check(Path golden, String actual) throws Exception {
        if (Boolean.getBoolean("isobench.golden.rewrite")) {
            Files.writeString(golden, actual, StandardCharsets.UTF_8);
        }
        assertThat(golden).as("golden file (create it with -Disobench.golden.rewrite=true)").exists();
        assertThat(actual).isEqualTo(Files.readString(golden, StandardCharsets.UTF_8));
    }
}
