package io.isobench.exec;

import io.isobench.SharedData;
import io.isobench.parse.Failure;
import io.isobench.parse.FailureCategory;
import io.isobench.plan.Job;
import io.isobench.plan.JobSpec;
import io.isobench.plan.Command;
import io.isobench.Mode;
import io.isobench.Arm;
import io.isobench.plan.Plan;
import io.isobench.plan.Planner;
import io.isobench.task.ClientConfig;
import io.isobench.task.RunConfig;
import io.isobench.task.Suite;
import io.isobench.task.TaskImport;
import io.isobench.task.TaskSpec;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Golden sbatch scripts of real ISO-Bench vLLM tasks (the perf_commands of the real full_results.jsonl, imported as
 * {@code isobench tasks import} does, planned by the planner): serving TP=1 with prefix caching, serving TP=4,
 * offline prefix caching, latency TP=1 and latency TP=4 — each task's baseline correctness check (a server job) and
 * its first measured round. Rewrite after an intended change with
 * {@code mvn -o -q test -Dtest=SlurmScriptGoldenTest -Disobench.golden.rewrite=true} and review the diff.
 * Also the parsing of Slurm's answers and the classification of cluster-side failures (no Slurm needed).
 */
class SlurmScriptGoldenTest {

    static final String FULL_RESULTS =
            "isobench-data/archive/results/2026-01/omniperf_results_3way_claude_code/exports/full_results.jsonl";
    static final Path GOLDEN = Path.of("src/test/resources/golden/slurm");
    /** task id → what it stands for. */
    static final Map<String, String> TASKS = Map.of(
            "660470e5", "serving-tp1-prefix-caching",
            "8aa1485f", "serving-tp4",
            "2deb029d", "prefix-caching-offline",
            "3b61cb45", "latency-tp1",
            "310aca88", "latency-tp4");

    static Plan plan() {
        TaskImport.Result imported = TaskImport.fromIsoBench(SharedData.require(FULL_RESULTS), "/data/vllm");
        List<TaskSpec> tasks = imported.tasks().stream().filter(t -> TASKS.containsKey(t.id()))
                .map(RealTasks::runnable).toList();
        assertThat(tasks).extracting(TaskSpec::id).containsExactlyInAnyOrderElementsOf(TASKS.keySet());
        Suite suite = new Suite(null, imported.suite().engine(), tasks, List.of(), RunConfig.DEFAULT);
        return Planner.plan(suite, new Planner.Options(1, 42L, Path.of("/shared/isobench-work")));
    }

    static String render(Job j) {
        return SlurmExecutor.script(j, "golden", SlurmExecutor.jobDir(SlurmConfig.DEFAULT, "golden", j),
                SlurmConfig.DEFAULT, null);
    }

    @Test
    void realVllmTasksMatchTheGoldenScripts() throws IOException {
        Plan plan = plan();
        assertThat(plan.skipped()).isEmpty();
        int compared = 0;
        for (Job j : plan.jobs()) {
            if (!j.arm().equals(Arm.BASELINE) || j.repeatCheck()) {
                continue; // the repeat check is the same script under another job id
            }
            String file = TASKS.get(j.taskId()) + "." + (j.kind() == Job.Kind.CHECK ? "check" : "r0") + ".sbatch";
            String actual = render(j);
            Path golden = GOLDEN.resolve(file);
            if (Boolean.getBoolean("isobench.golden.rewrite")) {
                Files.createDirectories(GOLDEN);
                Files.writeString(golden, actual, StandardCharsets.UTF_8);
            }
            assertThat(golden).as("golden file (create it with -Disobench.golden.rewrite=true)").exists();
            assertThat(actual).as(file).isEqualTo(Files.readString(golden, StandardCharsets.UTF_8));
            compared++;
        }
        assertThat(compared).isEqualTo(2 * TASKS.size());
    }

    @Test
    void requestsFollowTheTensorParallelismAndModes() {
        Plan plan = plan();
        Map<String, String> r0 = new HashMap<>();
        for (Job j : plan.jobs()) {
            if (j.arm().equals(Arm.BASELINE) && j.kind() == Job.Kind.MEASURE) {
                r0.put(TASKS.get(j.taskId()), render(j));
            }
        }
        assertThat(r0.get("serving-tp4")).contains("#SBATCH --gpus=4\n").contains("#SBATCH --cpus-per-task=32\n")
                .contains("#SBATCH --mem=262144M\n").contains("--tensor-parallel-size 4")
                .contains("--port \"$port\"").contains(" &\nserver=$!\n");
        assertThat(r0.get("serving-tp1-prefix-caching")).contains("#SBATCH --gpus=1\n")
                .contains("--enable-prefix-caching").contains("--port \"$port\"");
        assertThat(r0.get("latency-tp4")).contains("#SBATCH --gpus=4\n").contains("benchmarks/benchmark_latency.py")
                .doesNotContain("$port").doesNotContain("server=$!");
        assertThat(r0.get("latency-tp1")).contains("#SBATCH --gpus=1\n").contains("--batch-size 32");
        assertThat(r0.get("prefix-caching-offline")).contains("benchmarks/benchmark_prefix_caching.py")
                .contains("--enable-prefix-caching");
        for (String s : r0.values()) {
            assertThat(s).startsWith("#!/bin/bash\n").contains("#SBATCH --job-name=isb-golden-")
                    .contains("#SBATCH --output=/shared/isobench-work/slurm/golden/")
                    .contains("exit_file=\"$dir/exit-$SLURM_JOB_ID\"");
        }
    }

    @Test
    void namesAndPathsAreDeterministicAndShellSafe() {
        assertThat(SlurmExecutor.jobName("s20261126-010203-ab12", "tpot/agent:alpha/r3"))
                .isEqualTo("isb-s20261126-010203-ab12-tpot_agent_alpha_r3");
        assertThat(SlurmExecutor.q("it's")).isEqualTo("'it'\"'\"'s'");
        assertThat(SlurmExecutor.q("--model")).isEqualTo("--model");
        assertThat(Command.template(List.of("srv", "--port", "{port}", "--url=http://h:{port}/v1"))
                .line(SlurmExecutor::q, "127.0.0.1", "\"$port\""))
                .isEqualTo("srv --port \"$port\" --url=http://h:\"$port\"/v1");
        Job j = new Job(new Job.Place(0, "t/baseline/r0", "t", 0), Arm.BASELINE, Mode.LATENCY,
                new JobSpec.Measure(Command.template(List.of("x")), ClientConfig.NONE, 0, null),
                new Job.Where(Path.of("/w/envs/t/baseline"), Map.of(), 1), Job.Limits.ofSeconds(10, 10));
        assertThat(SlurmExecutor.jobDir(SlurmConfig.DEFAULT, "s1", j)).isEqualTo(Path.of("/w/slurm/s1/t_baseline_r0"));
        assertThat(Command.template(List.of("srv", "--host", "{host}")).line(SlurmExecutor::q, "0.0.0.0", "\"$port\""))
                .isEqualTo("srv --host 0.0.0.0");
    }

    @Test
    void secretsStayOutOfTheScript() {
        Job j = new Job(new Job.Place(0, "t/baseline/r0", "t", 0), Arm.BASELINE, Mode.LATENCY,
                new JobSpec.Measure(Command.template(List.of("x")), ClientConfig.NONE, 0, null),
                new Job.Where(Path.of("/w/envs/t/baseline"), Map.of("HF_TOKEN", "hf_abcdefghijklmnopqrstuvwxyz123456", "VLLM_USE_V1", "1",
                        "OTHER", "Authorization: Bearer xyz"), 1), Job.Limits.ofSeconds(10, 10));
        String s = SlurmExecutor.script(j, "s", Path.of("/w/slurm/s/t_baseline_r0"), SlurmConfig.DEFAULT, null);
        assertThat(s).contains("export VLLM_USE_V1=1\n").doesNotContain("hf_abcdefghij").doesNotContain("Bearer")
                .contains("set -a; . \"$dir/secrets.env\"; set +a  # HF_TOKEN OTHER\n");
        assertThat(SlurmExecutor.secretEnv(j)).containsOnlyKeys("HF_TOKEN", "OTHER");
    }

    @Test
    void slurmAnswersAreParsed() {
        assertThat(SlurmCli.gresGpus("gpu:fake:2")).isEqualTo(2);
        assertThat(SlurmCli.gresGpus("gpu:a100:4(S:0-1),gpu:h100:4")).isEqualTo(8);
        assertThat(SlurmCli.gresGpus("gpu:8")).isEqualTo(8);
        assertThat(SlurmCli.gresGpus("(null)")).isZero();
        assertThat(SlurmCli.parseCapacity("2|19284|gpu:fake:2\n64|1031000|gpu:h100:8(S:0-1)\n"))
                .isEqualTo(new SlurmCli.Capacity(8, 64, 1031000));
        SlurmCli.JobState s = SlurmCli.parseScontrol("JobId=12 JobName=isb-s-t_baseline_r0\n   UserId=root(0)"
                + " GroupId=root(0)\n   JobState=NODE_FAIL Reason=NodeDown Dependency=(null)\n   ExitCode=0:9\n");
        assertThat(s).isEqualTo(new SlurmCli.JobState("NODE_FAIL", "NodeDown", "0:9", "scontrol"));
        assertThat(s.terminal()).isTrue();
        assertThat(new SlurmCli.JobState("PENDING", "Resources", null, "squeue").pending()).isTrue();
        assertThat(SlurmCli.jobIdOf("1234;cluster\n")).isEqualTo("1234");
    }

    @Test
    void clusterSideFailuresAreClassified() {
        Map<String, FailureCategory> expected = Map.of(
                "NODE_FAIL", FailureCategory.INFRA_TRANSIENT,
                "PREEMPTED", FailureCategory.INFRA_TRANSIENT,
                "BOOT_FAIL", FailureCategory.INFRA_TRANSIENT,
                "CANCELLED", FailureCategory.INFRA_TRANSIENT,
                "OUT_OF_MEMORY", FailureCategory.RESOURCES_INSUFFICIENT,
                "TIMEOUT", FailureCategory.TIMEOUT,
                "DEADLINE", FailureCategory.TIMEOUT);
        expected.forEach((state, cat) -> {
            Failure f = SlurmFailures.classifyState(state, "Slurm job 7 state " + state, "");
            assertThat(f.category()).as(state).isEqualTo(cat);
            assertThat(f.evidence()).containsExactly("Slurm job 7 state " + state);
        });
        assertThat(SlurmFailures.classifyState("NODE_FAIL", "e", "").category().retryable()).isTrue();
        assertThat(SlurmFailures.classifyState("OUT_OF_MEMORY", "e", "").category().retryable()).isFalse();
        assertThat(SlurmFailures.classifyState("CANCELLED+", "e", "").category()).isEqualTo(FailureCategory.INFRA_TRANSIENT);
        // a job that died without an exit code: the log's root cause when there is one
        assertThat(SlurmFailures.classifyState("FAILED", "e", "torch.OutOfMemoryError: CUDA out of memory.")
                .category()).isEqualTo(FailureCategory.GPU_OOM);
        assertThat(SlurmFailures.classifyState("FAILED", "e", "").category()).isEqualTo(FailureCategory.UNKNOWN);
    }

    @Test
    void missingSlurmClientIsOneLineNamingTheFix() {
        assertThatThrownBy(() -> SlurmExecutor.requireTools("/nonexistent-bin"))
                .isInstanceOf(io.isobench.IsobenchException.EnvironmentMissing.class)
                .hasMessageContaining("sbatch is not on PATH").hasMessageContaining("scripts/provision")
                .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n"));
    }

    @Test
    void configurationComesFromTheEnvironment() {
        SlurmConfig c = SlurmConfig.fromEnv(Map.of("ISOBENCH_SLURM_PARTITION", "gpu", "ISOBENCH_SLURM_CPUS_PER_GPU", "4",
                "ISOBENCH_SLURM_EXTRA", "--qos=high; --constraint=h100", "ISOBENCH_SLURM_CPU_ONLY", "1"));
        assertThat(c.partition()).isEqualTo("gpu");
        assertThat(c.extra()).containsExactly("--qos=high", "--constraint=h100");
        assertThat(c.gpusFor(4)).isZero();
        Job j = new Job(new Job.Place(0, "t/baseline/r0", "t", 0), Arm.BASELINE, Mode.LATENCY,
                new JobSpec.Measure(Command.template(List.of("x")), ClientConfig.NONE, 0, null),
                new Job.Where(Path.of("/w/envs/t/baseline"), Map.of(), 2), Job.Limits.ofSeconds(10, 10));
        String s = SlurmExecutor.script(j, "s", Path.of("/w/slurm/s/t_baseline_r0"), c, null);
        assertThat(s).contains("#SBATCH --partition=gpu\n").contains("#SBATCH --qos=high\n").doesNotContain("--gpus");
        assertThatThrownBy(() -> SlurmConfig.fromEnv(Map.of("ISOBENCH_SLURM_MEM_MB", "lots")))
                .isInstanceOf(io.isobench.IsobenchException.BadInput.class).hasMessageContaining("ISOBENCH_SLURM_MEM_MB");
    }
}
