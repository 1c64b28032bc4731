package io.isobench.exec;

import io.isobench.Arm;
import io.isobench.Mode;
import io.isobench.parse.FailureCategory;
import io.isobench.plan.Command;
import io.isobench.plan.Job;
import io.isobench.plan.JobSpec;
import io.isobench.task.TaskSpec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** An accuracy job runs through the executor like any job: a plain command, its exit and output. */
class AccuracyJobTest {

    @TempDir
    Path dir;

    private Job job(List<String> argv, int timeoutS) {
        TaskSpec.Accuracy acc = new TaskSpec.Accuracy(argv, "acc=([0-9.]+)", null, 0.0, 0.0, true, timeoutS);
        return new Job(new Job.Place(9, "t/baseline/accuracy", "t", -1), Arm.BASELINE, Mode.SERVING,
                new JobSpec.Accuracy(Command.template(argv), acc, dir.toString()), new Job.Where(dir, Map.of(), 1),
                Job.Limits.ofSeconds(5, timeoutS));
    }

    @Test
    void theLocalExecutorRunsTheCommandAndHandsBackItsOutput() {
        io.isobench.SharedData.requireSandbox();
        Job ok = job(List.of("python3", "-c", "print('acc=0.75')"), 30);
        assertThat(ok.serving()).as("a plain command, not a server").isFalse();
        JobResult r = Executors.create("local").execute(ok, Executor.Hooks.NONE);
        assertThat(r.failure()).as(r.log()).isNull();
        assertThat(r.log()).contains("acc=0.75");
        assertThat(Accuracy.parse(r.log(), ((JobSpec.Accuracy) ok.spec()).settings()).value()).isEqualTo(0.75);
    }

    @Test
    void aFailingOrHangingCommandIsAccuracyFailed() {
        io.isobench.SharedData.requireSandbox();
        JobResult exit = Executors.create("local").execute(job(List.of("python3", "-c", "import sys; sys.exit(3)"), 30),
                Executor.Hooks.NONE);
        assertThat(exit.failure().detail()).startsWith("ACCURACY_FAILED: the accuracy command exited with code 3");
        JobResult slow = Executors.create("local").execute(job(List.of("sleep", "30"), 1), Executor.Hooks.NONE);
        assertThat(slow.failure().category()).isEqualTo(FailureCategory.TIMEOUT);
        assertThat(slow.failure().detail()).isEqualTo("ACCURACY_FAILED: the accuracy command ran past 1 s and was"
                + " killed");
        JobResult missing = Executors.create("local").execute(job(List.of("/nonexistent/eval"), 30), Executor.Hooks.NONE);
        assertThat(missing.success()).isFalse();
    }
}
