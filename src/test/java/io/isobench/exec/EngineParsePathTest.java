package io.isobench.exec;

import io.isobench.Arm;
import io.isobench.Mode;
import io.isobench.engine.EngineAdapter;
import io.isobench.engine.Engines;
import io.isobench.engine.SglangConsole;
import io.isobench.parse.FailureCategory;
import io.isobench.parse.Metric;
import io.isobench.parse.OutputParser;
import io.isobench.plan.Command;
import io.isobench.plan.Job;
import io.isobench.plan.JobSpec;
import io.isobench.probe.Clients;
import io.isobench.task.ClientConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The local executor reads a job's output through the engine adapter its command picks (docs/engines.md, "At run
 * time"): a stand-in {@code sglang.bench_serving} module (a Python package in the job's folder, run as the archive's
 * SGLang command {@code python3 -m sglang.bench_serving …}) prints bench_serving's console block with the archive's
 * SGLang numbers (../shared; skipped without it) or SGLang's own failure line, and the job's metrics are SGLang's
 * reader's, its failure SGLang's signature's. A real process, unconfined (as ProcessGroupTest).
 */
class EngineParsePathTest {

    @TempDir
    Path dir;

    private final EngineAdapter sglang = Engines.named("sglang").orElseThrow();

    /** A job running {@code python3 -m sglang.bench_serving …} in {@code dir}, whose module prints {@code out}. */
    private Job sglangJob(String out, int exit) throws Exception {
        Path pkg = Files.createDirectories(dir.resolve("sglang"));
        Files.writeString(pkg.resolve("__init__.py"), "");
        Files.writeString(dir.resolve("out.txt"), out);
        Files.writeString(pkg.resolve("bench_serving.py"), "import sys\nsys.stdout.write(open('out.txt').read())\n"
                + "sys.stdout.flush()\nsys.exit(" + exit + ")\n");
        List<String> argv = new ArrayList<>(List.of(SglangConsole.archiveCommand().strip().split("\\s+")));
        argv.set(0, "python3");
        // the job's mode routes it (an offline run); the engine is the command's
        return new Job(new Job.Place(0, "t/baseline/r0", "t", 0), Arm.BASELINE, Mode.LATENCY,
                new JobSpec.Measure(Command.of(argv), ClientConfig.NONE, 0, null), new Job.Where(dir, Map.of(), 0),
                Job.Limits.ofSeconds(30, 60));
    }

    private static LocalExecutor executor() {
        return new LocalExecutor(Readiness.http(Duration.ofMillis(10)), Clients.serving(), Duration.ofSeconds(5), null,
                Placement.LOCAL);
    }

    private static List<String> names(List<Metric> metrics) {
        return metrics.stream().map(Metric::name).toList();
    }

    @Test
    void anSglangBenchServingOutputGivesTheMetricsOfSglangsReader() throws Exception {
        String console = SglangConsole.console(SglangConsole.archiveMetrics());
        List<Metric> expected = sglang.parseConsole(console).orElseThrow().metrics();
        // vLLM's reader (the executor's before the seam) reads another set from the same block
        assertThat(names(OutputParser.parse(console).metrics())).isNotEqualTo(names(expected));

        JobResult r = executor().execute(sglangJob("starting\n" + console, 0), Executor.Hooks.NONE);
        assertThat(r.failure()).as(r.log()).isNull();
        assertThat(r.metrics()).isEqualTo(expected);
    }

    @Test
    void aFailureLineOnlySglangPrintsIsClassifiedBySglangsSignature() throws Exception {
        SglangConsole.archiveCommand(); // the archive's SGLang command (skips without ../shared)
        String out = "Traceback (most recent call last):\n  File \"bench_serving.py\", line 3, in <module>\n"
                + "RuntimeError: Not enough memory. Please try to increase --mem-fraction-static.\n";
        JobResult r = executor().execute(sglangJob(out, 1), Executor.Hooks.NONE);
        assertThat(r.failure().category()).as(r.log()).isEqualTo(FailureCategory.GPU_OOM);
        assertThat(r.failure().detail()).contains("--mem-fraction-static");
    }

    @Test
    void anSglangServerThatDiesBeforeReadyIsClassifiedBySglangsSignature() throws Exception {
        // the server command picks the engine of a server that never got ready: SGLang's out-of-memory line, which
        // only its adapter knows (the generic table does not), names the root cause instead of SERVER_CRASHED
        Path pkg = Files.createDirectories(dir.resolve("sglang"));
        Files.writeString(pkg.resolve("__init__.py"), "");
        Files.writeString(pkg.resolve("launch_server.py"), "import sys\nprint('Traceback (most recent call last):')\n"
                + "print('RuntimeError: Not enough memory. Please try to increase --mem-fraction-static.')\n"
                + "sys.stdout.flush()\nsys.exit(1)\n");
        Job job = new Job(new Job.Place(0, "t/baseline/r0", "t", 0), Arm.BASELINE, Mode.SERVING,
                new JobSpec.Measure(Command.template(List.of("python3", "-m", "sglang.launch_server", "--host", "{host}",
                        "--port", "{port}", "--model-path", "m")),
                        ClientConfig.ofArgv(List.of("--model", "m", "--num-prompts", "1")), 0, null),
                new Job.Where(dir, Map.of(), 0), Job.Limits.ofSeconds(30, 60));
        JobResult r = executor().execute(job, Executor.Hooks.NONE);
        assertThat(r.failure().category()).as(r.log()).isEqualTo(FailureCategory.GPU_OOM);
        assertThat(r.failure().detail()).contains("--mem-fraction-static");
    }
}
