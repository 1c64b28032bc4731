package io.isobench.session;

import io.isobench.Arm;
import io.isobench.Mode;
import io.isobench.plan.Command;
import io.isobench.plan.JobSpec;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.isobench.IsobenchException;
import io.isobench.plan.Job;
import io.isobench.task.ClientConfig;
import org.junit.jupiter.api.Test;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The three progress listeners: plain lines as the demo prints them, a redrawn bar, JSON lines parsed back. */
class SessionListenerTest {

    private static final Job JOB = new Job(new Job.Place(3, "t1/human/r1", "t1", 1), Arm.HUMAN, Mode.SERVING,
            new JobSpec.Measure(Command.template(List.of("true")), ClientConfig.NONE, 0, null), new Job.Where(Path.of("."), Map.of(), 0),
            Job.Limits.ofSeconds(10, 10));
    private static final JobProgress OK = new JobProgress(4, 10, JOB, "round 2/3",
            new JobProgress.Outcome(null, "output_throughput", 1234.5678), 75);
    private static final JobProgress FAILED = new JobProgress(5, 10, JOB, "round 2/3",
            new JobProgress.Outcome("SERVER_CRASH", null, null), 3661);
    private static final SessionSummary.Run SUMMARY = new SessionSummary.Run("s1",
            new SessionSummary.Counts(10, 2, 7, 5, 6, 1), 1, Map.of("SERVER_CRASH", 1), Duration.ofMillis(2500));

    private final StringWriter text = new StringWriter();
    private final PrintWriter out = new PrintWriter(text);

    /** Every event, in a session's order. */
    private static void play(SessionListener l) {
        l.note("env t1 human: at 0123456789ab");
        l.startSession("s1", 10, 3, 1);
        l.startJob(JOB);
        l.jobResult(OK);
        l.startJob(JOB);
        l.jobResult(FAILED);
        l.endSession(SUMMARY);
    }

    @Test
    void plainLinesAreTodaysText() {
        play(ProgressMode.PLAIN.listener(out));
        assertThat(text.toString()).isEqualTo("""
                env t1 human: at 0123456789ab
                job 4/10 t1 human round 2/3: output_throughput=1234.57 (ETA 1:15)
                job 5/10 t1 human round 2/3: SERVER_CRASH (ETA 61:01)
                """.replace("\n", System.lineSeparator()));
    }

    @Test
    void theBarIsOneRedrawnLine() {
        play(ProgressMode.TTY.listener(out));
        String s = text.toString();
        assertThat(s).startsWith("\renv t1 human: at 0123456789ab" + System.lineSeparator());
        assertThat(s).contains("\r[##########..............] 4/10 t1         human          round 2/3   ETA 1:15"
                + "  output_throughput=1234.57");
        assertThat(s).contains("\r[############............] 5/10 t1");
        assertThat(s.split(System.lineSeparator(), -1).length - 1).as("the bar's results share one line").isEqualTo(2);
        assertThat(s).endsWith(System.lineSeparator());
    }

    @Test
    void jsonLinesParseBackOneObjectPerEvent() throws Exception {
        SessionListener l = ProgressMode.JSON.listener(out);
        play(l);
        l.interrupted("isobench run suite.yaml --resume --session s1");
        ObjectMapper json = new ObjectMapper();
        List<JsonNode> events = text.toString().lines().map(line -> {
            try {
                return json.readTree(line);
            } catch (Exception e) {
                throw new AssertionError(line, e);
            }
        }).toList();
        assertThat(events).extracting(e -> e.path("event").asText()).containsExactly("note", "start_session",
                "start_job", "job_result", "start_job", "job_result", "end_session", "interrupted");
        assertThat(events.get(0).path("text").asText()).isEqualTo("env t1 human: at 0123456789ab");
        assertThat(events.get(1).path("already_finished").asInt()).isEqualTo(3);
        assertThat(events.get(2).path("job").asText()).isEqualTo("t1/human/r1");
        JsonNode ok = events.get(3);
        assertThat(ok.path("task").asText()).isEqualTo("t1");
        assertThat(ok.path("arm").asText()).isEqualTo("human");
        assertThat(ok.path("done").asInt()).isEqualTo(4);
        assertThat(ok.path("total").asInt()).isEqualTo(10);
        assertThat(ok.path("metric").asText()).isEqualTo("output_throughput");
        assertThat(ok.path("value").asDouble()).isEqualTo(1234.5678);
        assertThat(ok.path("failure").isNull()).isTrue();
        assertThat(ok.path("eta_s").asLong()).isEqualTo(75);
        assertThat(events.get(5).path("failure").asText()).isEqualTo("SERVER_CRASH");
        JsonNode end = events.get(6);
        assertThat(end.path("ran").asInt()).isEqualTo(7);
        assertThat(end.path("already_finished").asInt()).isEqualTo(5);
        assertThat(end.path("failures").path("SERVER_CRASH").asInt()).isEqualTo(1);
        assertThat(end.path("wall_s").asDouble()).isEqualTo(2.5);
        assertThat(events.get(7).path("resume").asText()).endsWith("--resume --session s1");
    }

    @Test
    void theInterruptHintIsTodaysText() {
        ProgressMode.PLAIN.listener(out).interrupted("isobench demo --resume");
        assertThat(text.toString()).isEqualTo(System.lineSeparator()
                + "isobench: interrupted; every finished run is stored. Resume with: isobench demo --resume"
                + System.lineSeparator());
    }

    @Test
    void modesAreNamedByTheOption() {
        assertThat(ProgressMode.of("Json")).isEqualTo(ProgressMode.JSON);
        assertThat(ProgressMode.of("auto")).isEqualTo(ProgressMode.AUTO);
        // under the build (no console) auto is plain lines
        SessionListener auto = ProgressMode.AUTO.listener(out);
        assertThat(auto).isInstanceOf(PlainListener.class).isNotInstanceOf(TtyListener.class);
        assertThatThrownBy(() -> ProgressMode.of("bar")).isInstanceOf(IsobenchException.BadInput.class)
                .hasMessageContaining("auto, plain, json or tty");
    }
}
