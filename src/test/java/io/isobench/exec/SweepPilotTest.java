package io.isobench.exec;

import io.isobench.parse.Metric;
import io.isobench.plan.AutoSweep;
import io.isobench.probe.ServingClient;
import io.isobench.task.TaskSpec;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The pilot loop of {@code sweep: auto} with a named fake serving client (a simulated server that keeps up to
 * 5 req/s and meets the SLO up to 3 req/s); the real client against the toy engine is {@code SweepPilotIT}.
 */
class SweepPilotTest {

    private static TaskSpec task(String client) {
        return TaskSpec.of("t", "h", "p", new TaskSpec.Workload("vllm bench serve --model m --num-prompts 20 " + client,
                "m", "serving", null));
    }

    /** Fake: the rate it was asked for decides its throughput and goodput; records the flags it got. */
    private static final class SimulatedServer implements ServingClient {
        final List<Map<String, String>> calls = new ArrayList<>();

        @Override
        public Result run(URI baseUrl, Workload workload, Runnable measuredStart) {
            Map<String, String> flags = workload.flags();
            calls.add(flags);
            double rate = Double.parseDouble(flags.get("request-rate"));
            if (rate > 20) {
                throw new ClientFailure("loadgen: no request completed (20 failed)");
            }
            double achieved = Math.min(rate, 5);
            return new Result(List.of(Metric.of("completed_requests", 20), Metric.of("failed_requests", 0),
                    Metric.of("request_throughput_rps", achieved),
                    Metric.of("request_goodput_rps", rate <= 3 ? achieved : achieved / 2)), "{}", "");
        }
    }

    @Test
    void pilotsUntilTheRuleStopsAndPrintsTheSuiteLine() {
        SimulatedServer server = new SimulatedServer();
        List<String> log = new ArrayList<>();
        SweepPilot.Outcome o = SweepPilot.run(URI.create("http://127.0.0.1:1"), task("--goodput ttft:500 tpot:50"),
                AutoSweep.Settings.DEFAULTS, server, log::add);
        // 1, 2 met; 4 broke; √8 = 2.83 met; √(2.83·4) = 3.36 broke
        assertThat(o.pilots()).extracting(AutoSweep.Pilot::rateRps).containsExactly(1.0, 2.0, 4.0, 2.83, 3.36);
        assertThat(o.suiteLine(0.9)).isEqualTo("sweep: {request_rate: [1.42, 2.83, 5.66, 11.3], min_good_fraction: 0.9}");
        // the task's flags reach every pilot, the SLO targets included; the rate is the pilot's
        assertThat(server.calls).allSatisfy(f -> assertThat(f).containsEntry("goodput", "ttft:500 tpot:50")
                .containsEntry("num-prompts", "20"));
        assertThat(server.calls.get(2)).containsEntry("request-rate", "4");
        assertThat(log).hasSize(6).first().asString().startsWith("pilot 1 at 1 req/s: achieved 1.00 req/s");
    }

    @Test
    void aFailedPilotBreaksAndATaskWithoutSloTargetsIsRefused() {
        AutoSweep.Settings fast = new AutoSweep.Settings(32, 0.1, 2, 8, List.of(0.5, 1.0));
        SweepPilot.Outcome o = SweepPilot.run(URI.create("http://127.0.0.1:1"), task("--goodput tpot:50"), fast,
                new SimulatedServer(), x -> { });
        assertThat(o.pilots()).hasSize(1);
        assertThat(o.pilots().get(0).goodFraction()).isNull();
        assertThat(o.step().saturationRps()).isEqualTo(32.0);
        assertThatThrownBy(() -> SweepPilot.run(URI.create("http://127.0.0.1:1"), task(""), fast,
                new SimulatedServer(), x -> { })).hasMessageContaining("--goodput");
    }
}
