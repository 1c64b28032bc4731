package io.isobench.exec;

import io.isobench.store.Pipeline;
import io.isobench.Mode;
import io.isobench.Arm;
import io.isobench.guard.Secrets;
import io.isobench.parse.Metric;
import io.isobench.proc.ProcessGroup;
import io.isobench.store.RunDetails;
import io.isobench.store.RunRecord;
import io.isobench.store.Store;
import io.isobench.store.Stores;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Harness overhead per serving run on the demo server (bench/harness): how late readiness is detected after the
 * server is ready (its "Application startup complete." line, watched by a 1 ms log poller), the teardown (TERM the
 * group, wait, port free) and the bookkeeping (log artifact + run row committed to DuckDB).
 *
 * <pre>java -cp target/isobench.jar io.isobench.exec.HarnessBench ENGINE_WORKTREE ITERATIONS DB</pre>
 */
public final class HarnessBench {

    private HarnessBench() {
    }

    public static void main(String[] args) throws Exception {
        Path cwd = Path.of(args[0]);
        int n = Integer.parseInt(args[1]);
        Path db = Path.of(args[2]);
        double[] lag = new double[n];
        double[] teardown = new double[n];
        double[] book = new double[n];
        double[] total = new double[n];
        Readiness probe = Readiness.http(Duration.ofMillis(10));
        try (Store store = Stores.open(db.toString())) {
            for (int i = 0; i < n; i++) {
                int port = LocalExecutor.freePort();
                Path log = Files.createTempFile("harness-", ".log");
                ProcessGroup pg = ProcessGroup.start(List.of("python3", "-m", "toyllm.entrypoints.api_server",
                        "--host", "127.0.0.1", "--port", Integer.toString(port), "--model", "toy-1m"), cwd, Map.of(), log);
                long[] oracle = {0};
                Thread watcher = Thread.ofPlatform().start(() -> {
                    try {
                        while (oracle[0] == 0) {
                            if (Files.readString(log, StandardCharsets.UTF_8).contains("Application startup complete")) {
                                oracle[0] = System.nanoTime();
                                return;
                            }
                            Thread.sleep(1);
                        }
                    } catch (Exception e) {
                        // ends the watcher
                    }
                });
                Readiness.Outcome o = probe.await(pg, "127.0.0.1", port, Duration.ofSeconds(30));
                long detected = System.nanoTime();
                watcher.join(2000);
                if (o.state() != Readiness.State.READY || oracle[0] == 0) {
                    throw new IllegalStateException("server not ready: " + o + "\n" + Files.readString(log));
                }
                lag[i] = Math.max(0, (detected - oracle[0]) / 1e6);
                long td = System.nanoTime();
                pg.terminate(Duration.ofSeconds(5));
                LocalExecutor.awaitPortFree(port, Duration.ofSeconds(2));
                teardown[i] = (System.nanoTime() - td) / 1e6;
                if (!ProcessGroup.members(pg.pgid()).isEmpty()) {
                    throw new IllegalStateException("group " + pg.pgid() + " survived");
                }
                long tb = System.nanoTime();
                String sha = store.putArtifact("log",
                        Secrets.redact(Files.readString(log)).getBytes(StandardCharsets.UTF_8));
                store.putRun(RunRecord.builder("harness/" + i)
                        .session("harness")
                        .kind(RunRecord.RunKind.MEASURED)
                        .commit("c", "c")
                        .arm(Arm.BASELINE)
                        .round(i)
                        .status(RunRecord.RunStatus.SUCCESS)
                        .mode(Mode.SERVING)
                        .model("toy-1m")
                        .pipeline(Pipeline.NATIVE)
                        .primary("tpot_ms_mean", 1.0, "measured")
                        .workload("{}")
                        .startedAt(Instant.now())
                        .durationMs(1.0)
                        .argvJson("[]")
                        .logArtifact(sha)
                        .details(RunDetails.of(Map.of("task", "harness")))
                        .metrics(List.of(Metric.of("tpot_ms_mean", 1.0)))
                        .build());
                book[i] = (System.nanoTime() - tb) / 1e6;
                total[i] = lag[i] + teardown[i] + book[i];
                Files.deleteIfExists(log);
            }
        }
        System.out.printf(Locale.ROOT, "harness overhead per serving run, %d runs (median / p90 ms)%n", n);
        row("readiness detection lag", lag);
        row("teardown (group + port)", teardown);
        row("bookkeeping (log + run row)", book);
        row("total overhead", total);
    }

    private static void row(String name, double[] v) {
        double[] s = v.clone();
        Arrays.sort(s);
        double med = s.length % 2 == 1 ? s[s.length / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
        double p90 = s[(int) Math.min(s.length - 1, Math.ceil(0.9 * s.length) - 1)];
        System.out.printf(Locale.ROOT, "  %-30s %8.1f  %8.1f%n", name, med, p90);
    }

}
