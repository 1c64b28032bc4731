package io.isobench.task;

import org.junit.jupiter.api.Test;

import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code examples/trace-replay/suite.yaml} loads, and {@code {suite_dir}} in its serving client's flags (the trace
 * file beside the suite) is filled in as it is in the server's argv.
 */
class TraceReplaySuiteTest {

    @Test
    void theExampleSuitesClientReadsTheTraceBesideIt() {
        Suite s = SuiteLoader.load(Path.of("examples/trace-replay/suite.yaml"));
        TaskSpec t = s.tasks().get(0);
        Path trace = Path.of("examples/trace-replay").toAbsolutePath().normalize().resolve("trace.jsonl");
        assertThat(Path.of(t.parsedCommand().client().loadgenFlags().get("dataset-path")).normalize()).isEqualTo(trace);
        assertThat(t.parsedCommand().client().loadgenFlags()).containsEntry("dataset-name", "timed-trace")
                .containsEntry("timed-trace-chunk-hash-size", "16");
    }
}
