package io.isobench.cli;

import io.isobench.SharedData;
import io.isobench.store.Store;
import io.isobench.store.Stores;
import io.isobench.store.TrackChange;
import io.isobench.track.SyntheticHistory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Isolated;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 30's acceptance, as a user runs it: a real 30-commit git history of a C engine (src/test/…/SyntheticHistory)
 * whose work changes at two commits (commit 9: 15 % less, commit 21: 10 % more) while the other 28 touch only docs or
 * comments. {@code isobench track --every 1} over the whole range confirms exactly those two with their directions
 * and nothing else; {@code --every 5} bisects to the same two commits. Asserted from {@code isobench changes --format
 * csv} (the contract columns). The time of each track is printed: the bound is 15 minutes on 2 cores.
 */
@Isolated("its assertions come from measured CPU times: nothing runs beside it (ItLocks)")
class TrackAcceptanceIT {

    private static final String HEADER = "task,commit,parent,metric,direction,change_pct,ci_low_pct,ci_high_pct,"
            + "status,first_commit,evidence";

    @TempDir
    Path dir;

    @Test
    @Timeout(value = 30, unit = TimeUnit.MINUTES)
    void twoRealChangesAreConfirmedAndBisectedAndNothingElse() throws Exception {
        SharedData.requireService(Llama2cExampleIT.onPath("gcc") && Llama2cExampleIT.onPath("make")
                && Llama2cExampleIT.onPath("git") && Llama2cExampleIT.onPath("setsid"),
                "gcc, make, git and setsid (util-linux) for the synthetic engine history");
        SyntheticHistory.History h = SyntheticHistory.build(dir.resolve("engine"), SyntheticHistory.Spec.defaults());
        SyntheticHistory.Commit less = h.commit(9);
        SyntheticHistory.Commit more = h.commit(21);
        assertThat(h.workChanges()).containsExactly(less, more);
        Path suite = dir.resolve("synthetic.yaml");
        Files.writeString(suite, """
                name: synthetic
                engine: {name: generic, repo: %s, build: [make, engine]}
                tasks:
                  - id: engine
                    offline:
                      command: [./engine]
                      metrics: [{name: command_cpu_s, primary: true}]
                    correctness: {output: {from: stdout}, tolerance: 0.0}
                run:
                  rounds: adaptive
                  timeouts: {run_s: 60, build_s: 60}
                """.formatted(h.repo()));
        String range = h.commit(1).sha() + ".." + h.commit(30).sha();

        for (int every : new int[] {1, 5}) {
            Path db = dir.resolve("every" + every + ".duckdb");
            long t0 = System.nanoTime();
            StringWriter err = new StringWriter();
            int code = Main.run(new PrintWriter(new StringWriter(), true), new PrintWriter(err, true), "--db",
                    db.toString(), "track", suite.toString(), "--range", range, "--every", String.valueOf(every),
                    "--workdir", dir.resolve("work" + every).toString(), "--fail-on", "slower");
            double minutes = (System.nanoTime() - t0) / 60e9;
            System.out.printf("TrackAcceptanceIT: --every %d took %.1f min%n", every, minutes);
            assertThat(code).as("a confirmed slowdown (commit 21) with --fail-on slower; stderr:%n%s", err)
                    .isEqualTo(1);

            List<String[]> confirmed = changes(db, "confirmed");
            assertThat(confirmed).as("--every %d: %s", every, csv(db)).hasSize(2);
            String[] first = confirmed.get(0);
            String[] second = confirmed.get(1);
            String why = csv(db) + bisects(db);
            assertThat(first[4]).isEqualTo("faster");
            assertThat(first[9]).as("first_commit of the faster change; %s", why).isEqualTo(less.sha());
            assertThat(second[4]).isEqualTo("slower");
            assertThat(second[9]).as("first_commit of the slower change; %s", why).isEqualTo(more.sha());
            assertThat(Double.parseDouble(first[5])).isBetween(-25.0, -5.0);
            assertThat(Double.parseDouble(second[5])).isBetween(4.0, 20.0);
            if (every == 1) {
                assertThat(first[1]).isEqualTo(less.sha());
                assertThat(second[1]).isEqualTo(more.sha());
            }
        }
    }

    /** The data rows of {@code isobench changes --format csv --status S}, split on commas outside quotes. */
    static List<String[]> changes(Path db, String status) {
        String text = run("--db", db.toString(), "changes", "--format", "csv", "--status", status);
        List<String> lines = text.lines().toList();
        assertThat(lines.get(0)).isEqualTo(HEADER);
        List<String[]> rows = new ArrayList<>();
        for (String line : lines.subList(1, lines.size())) {
            rows.add(split(line));
        }
        return rows;
    }

    static String csv(Path db) {
        return run("--db", db.toString(), "changes", "--format", "csv");
    }

    /** Every change row's bisect as stored ({@code bisect_json}: each commit asked, its answer and evidence). */
    static String bisects(Path db) {
        StringBuilder b = new StringBuilder();
        try (Store store = Stores.open(db.toString())) {
            for (TrackChange c : store.trackChanges("engine")) {
                b.append("\nbisect of ").append(c.commitId()).append(": ").append(c.bisectJson());
            }
        }
        return b.toString();
    }

    private static String run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int code = Main.run(new PrintWriter(out, true), new PrintWriter(err, true), args);
        assertThat(code).as(Arrays.toString(args) + ": " + err).isZero();
        return out.toString();
    }

    private static String[] split(String line) {
        List<String> cells = new ArrayList<>();
        StringBuilder cell = new StringBuilder();
        boolean quoted = false;
        for (int i = 0; i < line.length(); i++) {
            char c = line.charAt(i);
            if (quoted && c == '"' && i + 1 < line.length() && line.charAt(i + 1) == '"') {
                cell.append('"');
                i++;
            } else if (c == '"') {
                quoted = !quoted;
            } else if (c == ',' && !quoted) {
                cells.add(cell.toString());
                cell.setLength(0);
            } else {
                cell.append(c);
            }
        }
        cells.add(cell.toString());
        return cells.toArray(String[]::new);
    }
}
