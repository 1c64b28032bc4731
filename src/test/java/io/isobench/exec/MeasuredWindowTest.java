package io.isobench.exec;

import io.isobench.Arm;
import io.isobench.Mode;
import io.isobench.plan.Command;
import io.isobench.plan.Job;
import io.isobench.plan.JobSpec;
import io.isobench.task.ClientConfig;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The measured window {@link ServerMetricsRun} records for a serving run (the GPU energy window,
 * docs/gpu-telemetry.md): from the client's measured-start mark to the stop, for measured jobs only, whether or not
 * {@code /metrics} is scraped (interval 0 here: no server is contacted).
 */
class MeasuredWindowTest {

    private static Job job(Job.Kind kind) {
        JobSpec spec = kind == Job.Kind.MEASURE ? new JobSpec.Measure(Command.template(List.of("x")), ClientConfig.NONE, 0, null, 0)
                : new JobSpec.Check(Command.template(List.of("x")), JobSpec.Probes.OWN_COMMAND, null);
        return new Job(new Job.Place(0, "t/human/r0", "t", 0), Arm.HUMAN, Mode.SERVING, spec,
                new Job.Where(Path.of("/w"), Map.of(), 1), Job.Limits.ofSeconds(10, 10));
    }

    @Test
    void aMeasuredRunIsBoundedByItsMarkAndItsStop() throws Exception {
        ServerMetricsRun run = ServerMetricsRun.start(job(Job.Kind.MEASURE), URI.create("http://127.0.0.1:9"));
        Instant before = Instant.now();
        run.measuredStart().run();
        Thread.sleep(20);
        run.measuredStart().run(); // a second call keeps the first mark
        run.stop(new StringBuilder());
        JobResult r = run.attach(JobResult.notStarted(null, "", List.of("x")));
        MeasuredWindow w = r.measuredWindow();
        assertThat(w).isNotNull();
        assertThat(w.start()).isAfterOrEqualTo(before);
        assertThat(w.durationS()).isGreaterThanOrEqualTo(0.019);
        assertThat(r.serverMetricsJson()).as("interval 0: nothing scraped").isNull();
        // the window survives the wrappers that rebuild the result
        assertThat(r.withOutcome(null, "log", 5).withMetrics(List.of()).withGpus("0").measuredWindow()).isEqualTo(w);
    }

    @Test
    void noMarkOrACheckHasNoWindow() {
        ServerMetricsRun unmarked = ServerMetricsRun.start(job(Job.Kind.MEASURE), URI.create("http://127.0.0.1:9"));
        unmarked.stop(new StringBuilder());
        assertThat(unmarked.window()).as("the client failed before its measured phase").isNull();
        ServerMetricsRun check = ServerMetricsRun.start(job(Job.Kind.CHECK), URI.create("http://127.0.0.1:9"));
        check.measuredStart().run();
        check.stop(new StringBuilder());
        assertThat(check.window()).isNull();
        Instant t = Instant.now();
        assertThatThrownBy(() -> new MeasuredWindow(t, t.minusMillis(1))).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("before it starts");
    }
}
