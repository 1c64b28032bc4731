package io.isobench.cli;

import io.isobench.SharedData;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Isolated;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The llama2.c track example as a user runs it ({@code isobench track examples/llama2c/track.yaml --range
 * a25958f..32c1ff9 --every 5}): llama2.c's real first-parent history from the bundle in {@code ../shared/engines/},
 * every 5th commit built with {@code make run} and measured, candidates confirmed by paired sessions and the confirmed
 * one bisected. Exactly one change is confirmed: PR #276's merge {@code 4a2c375} (top-p filters before it sorts),
 * faster, bisected to that commit; nothing on the 21 docs-only commits or the default-only ones.
 */
@Isolated("its assertions come from measured CPU times: nothing runs beside it (ItLocks)")
class Llama2cTrackIT {

    private static final String PR_276_MERGE = "4a2c375";

    @TempDir
    Path dir;

    @Test
    @Timeout(value = 20, unit = TimeUnit.MINUTES)
    void theRealSpeedupIsConfirmedAndBisectedAndNothingElse() throws Exception {
        SharedData.require("engines/llama2.c.bundle");
        SharedData.requireService(Llama2cExampleIT.onPath("gcc") && Llama2cExampleIT.onPath("make")
                && Llama2cExampleIT.onPath("git") && Llama2cExampleIT.onPath("python3")
                && Llama2cExampleIT.onPath("setsid"), "gcc, make, git, python3 and setsid for the llama2.c example");
        Path db = dir.resolve("track.duckdb");
        StringWriter err = new StringWriter();
        long t0 = System.nanoTime();
        int code = Main.run(new PrintWriter(new StringWriter(), true), new PrintWriter(err, true), "--db",
                db.toString(), "track", "examples/llama2c/track.yaml", "--range", "a25958f..32c1ff9", "--every", "5",
                "--runs", "3", "--workdir", dir.resolve("work").toString(), "--fail-on", "slower");
        System.out.printf("Llama2cTrackIT: --every 5 --runs 3 took %.1f min%n", (System.nanoTime() - t0) / 60e9);
        assertThat(code).as("no confirmed slowdown; stderr:%n%s", err).isZero();

        List<String[]> confirmed = TrackAcceptanceIT.changes(db, "confirmed");
        assertThat(confirmed).as(TrackAcceptanceIT.csv(db)).hasSize(1);
        String[] change = confirmed.get(0);
        assertThat(change[0]).isEqualTo("generate-topp");
        assertThat(change[3]).isEqualTo("command_cpu_s");
        assertThat(change[4]).isEqualTo("faster");
        assertThat(change[9]).as("bisected to PR #276's merge").startsWith(PR_276_MERGE);
        // the size depends on the CPU: -68 % on one 2-core VM, -80.1 % on an AMD EPYC one (CI, 2026-11-30)
        assertThat(Double.parseDouble(change[5])).as("a large CPU saving").isBetween(-90.0, -40.0);
    }
}
