package io.isobench.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.isobench.SharedData;
import io.isobench.plan.GpuDiscovery;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

class PlanCommandTest {

    static final String FULL_RESULTS =
            "isobench-data/archive/results/2026-01/omniperf_results_3way_claude_code/exports/full_results.jsonl";

    @TempDir
    Path dir;

    @Test
    void simulatesTheRealIsoBenchFileAsText() {
        Path f = SharedData.require(FULL_RESULTS);
        MainTest.Result r = MainTest.run("plan", "simulate", f.toString(), "--gpus", "8", "--arms", "3", "--rounds", "5");
        assertThat(r.code()).isZero();
        assertThat(r.out()).contains("node:         8 GPU(s)").contains("jobs:         1410 scheduled, 0 refused")
                .contains("GPU-seconds/G binds").containsPattern("ratio: +1\\.0\\d\\d\\d × lower bound");
    }

    @Test
    void jsonReportsRefusedJobsOnASmallNode() throws Exception {
        Path f = SharedData.require(FULL_RESULTS);
        MainTest.Result r = MainTest.run("plan", "simulate", f.toString(), "--gpus", "0,1,2,3", "--arms", "1",
                "--rounds", "1", "--format", "json", "--schedule");
        assertThat(r.code()).isZero();
        JsonNode o = new ObjectMapper().readTree(r.out());
        assertThat(o.get("gpus").asInt()).isEqualTo(4);
        assertThat(o.get("jobs").asInt() + o.get("refused").size()).isEqualTo(94);
        assertThat(o.get("refused").size()).isPositive();
        assertThat(o.get("refused").get(0).get("category").asText()).isEqualTo("RESOURCES_INSUFFICIENT");
        assertThat(o.get("refused").get(0).get("gpus").asInt()).isGreaterThan(4);
        assertThat(o.get("ratio").asDouble()).isBetween(1.0, 1.05);
        assertThat(o.get("lower_bound").get("binding").asText()).isEqualTo("gpu_seconds");
        assertThat(o.get("schedule").size()).isEqualTo(o.get("jobs").asInt());
    }

    @Test
    void suiteWithDurationsSideFile() throws Exception {
        Path suite = dir.resolve("suite.yaml");
        Files.writeString(suite, """
                engine: {repo: https://github.com/vllm-project/vllm}
                tasks:
                  - id: big
                    human_commit: 310aca88
                    perf_command: python benchmarks/benchmark_latency.py --model meta-llama/Meta-Llama-3-70B -tp 4
                  - id: small
                    human_commit: 6d0734c5
                    perf_command: python benchmarks/benchmark_latency.py --model facebook/opt-125m
                  - id: nolimit
                    human_commit: a3223766
                    perf_command: python benchmarks/benchmark_latency.py --model facebook/opt-125m
                    timeout_s: 50
                run: {rounds: 2}
                """);
        Path durations = dir.resolve("durations.txt");
        Files.writeString(durations, "# task seconds\nbig 100\nsmall: 40\n");
        MainTest.Result r = MainTest.run("plan", "simulate", suite.toString(), "--gpus", "4", "--durations",
                durations.toString(), "--format", "json");
        assertThat(r.code()).as(r.err()).isZero();
        JsonNode o = new ObjectMapper().readTree(r.out());
        // 3 tasks × 2 arms (no agents) × 2 rounds; big: 4 GPUs × 100 s; small 40 s; nolimit: its run limit 50 s
        assertThat(o.get("jobs").asInt()).isEqualTo(12);
        assertThat(o.get("gpu_seconds").asDouble()).isEqualTo(4 * 4 * 100 + 4 * 40 + 4 * 50);
        // the 4-GPU jobs fill the node (more than G/2): 4 × 100 s one after another; the rest packs into 90 s
        assertThat(o.get("lower_bound").get("big_jobs_s").asDouble()).isEqualTo(400.0);
        assertThat(o.get("lower_bound").get("seconds").asDouble()).isEqualTo(490.0);
        assertThat(o.get("makespan_s").asDouble()).isEqualTo(490.0);
    }

    @Test
    void badInputsExitTwo() {
        MainTest.Result missing = MainTest.run("plan", "simulate", dir.resolve("nope.jsonl").toString(), "--gpus", "8");
        assertThat(missing.code()).isEqualTo(2);
        assertThat(missing.err()).contains("no such file");
        Path f = SharedData.require(FULL_RESULTS);
        MainTest.Result badGpus = MainTest.run("plan", "simulate", f.toString(), "--gpus", "eight");
        assertThat(badGpus.code()).isEqualTo(2);
        assertThat(badGpus.err()).contains("--gpus 'eight'");
    }

    @Test
    void noGpusAndNoOverrideIsAnEnvironmentProblem() {
        org.junit.jupiter.api.Assumptions.assumeTrue(System.getenv("ISOBENCH_GPUS") == null
                && GpuDiscovery.discover(null).count() == 0, "this machine has GPUs");
        Path f = SharedData.require(FULL_RESULTS);
        MainTest.Result r = MainTest.run("plan", "simulate", f.toString());
        assertThat(r.code()).isEqualTo(3);
        assertThat(r.err()).contains("no GPUs on this machine").contains("--gpus 8");
    }
}
