package io.isobench.probe;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.isobench.loadgen.LoadGenerator;
import io.isobench.loadgen.LoadgenConfig;
import io.isobench.loadgen.LoadgenResult;
import io.isobench.loadgen.ServeFlags;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/**
 * The serving client of every arm: isobench's own load generator, in-process, configured from the task's
 * {@code vllm bench serve} flags (same workload for every arm; DESIGN §4). Requests that failed are in the result by
 * reason ({@link LostRequests}), and in the workload fingerprint as {@code failures_by_reason} (kept with the run,
 * not part of the work compared between arms). The load's fidelity (schedule lag, the client's check of itself) is in
 * the result as the load generator measured it, for the run's details ({@code client_check}, {@code schedule}).
 */
final class LoadgenServingClient implements ServingClient {

    @Override
    public Result run(URI baseUrl, Workload workload, Runnable measuredStart) {
        // the workload files the arm's worktree holds are read through private copies (ServeFlags, TreeFile), kept
        // until the result is made (its fingerprint reads them)
        Path scratch;
        try {
            scratch = Files.createTempDirectory("isobench-client-");
        } catch (IOException e) {
            throw new ClientFailure("loadgen: no private folder for the workload's files: " + e.getMessage());
        }
        try {
            return measure(baseUrl, workload, measuredStart, scratch);
        } finally {
            discard(scratch);
        }
    }

    private static Result measure(URI baseUrl, Workload workload, Runnable measuredStart, Path scratch) {
        List<String> warnings = new ArrayList<>();
        LoadgenConfig config;
        try {
            LoadgenConfig.Builder b = LoadgenConfig.builder().baseUrl(baseUrl).model(workload.model())
                    .numWarmups(workload.warmupRequests()).seed(workload.seed()).requestTimeout(Duration.ofMinutes(10))
                    .label("isobench-run");
            config = ServeFlags.workload(b, workload.flags(), workload.workdir(), scratch, warnings::add).build();
        } catch (IllegalArgumentException e) {
            throw new ClientFailure("loadgen: " + e.getMessage());
        }
        LoadgenResult r;
        try {
            r = LoadGenerator.run(config, null, measuredStart);
        } catch (RuntimeException e) {
            throw new ClientFailure("loadgen: " + e.getMessage());
        }
        if (r.summary().completed() == 0) {
            throw new ClientFailure("loadgen: no request completed (" + r.summary().failed() + " failed)");
        }
        LostRequests lost = LostRequests.of(r.summary().failuresByReason());
        ObjectNode w = r.workloadFingerprint();
        if (!lost.isEmpty()) {
            lost.byReason().forEach(w.putObject("failures_by_reason")::put);
        }
        StringBuilder console = new StringBuilder();
        warnings.forEach(x -> console.append("loadgen: warning: ").append(x).append('\n'));
        return new Result(r.metrics(), w.toString(), lost, console.append(r.consoleBlock()).toString(),
                r.fidelity());
    }

    /** The private copies and their folder (the copies, and a folder of them for a tokenizer). */
    private static void discard(Path scratch) {
        try (Stream<Path> all = Files.walk(scratch)) {
            for (Path f : (Iterable<Path>) all.sorted(Comparator.reverseOrder())::iterator) {
                Files.deleteIfExists(f);
            }
        } catch (IOException e) {
            // left in the temp folder: copies of the tree's own files, nothing else
        }
    }
}
