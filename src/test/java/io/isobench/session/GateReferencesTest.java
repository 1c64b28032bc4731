package io.isobench.session;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.isobench.probe.Greedy;
import io.isobench.probe.Probe;
import io.isobench.store.Pipeline;
import io.isobench.store.RunRecord;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The greedy references rebuilt from stored check runs on {@code --resume}: the baseline's repeat check is kept apart
 * from the baseline's reference whatever the order the runs come in, and runs stored before the concurrent pass (no
 * {@code probe_batched}) still read.
 */
class GateReferencesTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    private static RunRecord check(String jobId, String arm, List<String> texts, List<String> batched)
            throws Exception {
        Map<String, Object> extra = new LinkedHashMap<>();
        extra.put("task", "t");
        extra.put("job", jobId);
        extra.put("outputs", texts);
        extra.put("probe", texts.stream().map(x -> Probe.text(x).toMap()).toList());
        if (batched != null) {
            extra.put("probe_batched", batched.stream().map(x -> Probe.text(x).toMap()).toList());
            extra.put("probe_batch_size", 8);
        }
        return RunRecord.builder("s/" + jobId)
                .session("s")
                .kind(RunRecord.RunKind.MEASURED)
                .commit("c0ffee00", "c0ffee00")
                .armLabel(arm)
                .status(RunRecord.RunStatus.SUCCESS)
                .modeLabel("serving")
                .model("toy-1m")
                .pipeline(Pipeline.NATIVE_CHECK)
                .startedAt(Instant.EPOCH)
                .durationMs(1.0)
                .envRef("git-worktree:x")
                .argvJson("[]")
                .detailsJson(JSON.writeValueAsString(extra))
                .build();
    }

    @Test
    void theRepeatCheckNeverReplacesTheBaselinesReference() throws Exception {
        RunRecord first = check("t/baseline/check", "baseline", List.of("a", "b"), List.of("a", "b"));
        RunRecord repeat = check("t/baseline/check-repeat", "baseline", List.of("a", "X"), List.of("Y", "X"));
        RunRecord human = check("t/human/check", "human", List.of("h", "b"), List.of("h", "b"));
        for (List<RunRecord> order : List.of(List.of(first, repeat, human), List.of(repeat, human, first))) {
            Map<CorrectnessGate.ReferenceKey, Greedy.ProbeRun> refs = CorrectnessGate.references(new ArrayList<>(order));
            Greedy.ProbeRun base = CorrectnessGate.referenceRun(refs, "t", CorrectnessGate.Reference.BASELINE);
            assertThat(base.texts()).containsExactly("a", "b");
            assertThat(base.batched()).extracting(Probe::text).containsExactly("a", "b");
            assertThat(base.batchSize()).isEqualTo(8);
            Greedy.ProbeRun again = CorrectnessGate.referenceRun(refs, "t", CorrectnessGate.Reference.BASELINE_REPEAT);
            assertThat(again.texts()).containsExactly("a", "X");
            assertThat(again.batched()).extracting(Probe::text).containsExactly("Y", "X");
            assertThat(CorrectnessGate.referenceRun(refs, "t", CorrectnessGate.Reference.HUMAN).texts()).containsExactly("h", "b");
        }
    }

    @Test
    void checksStoredBeforeTheConcurrentPassReadAsSequentialOnly() throws Exception {
        Map<CorrectnessGate.ReferenceKey, Greedy.ProbeRun> refs = CorrectnessGate.references(List.of(
                check("t/baseline/check", "baseline", List.of("a", "b"), null)));
        Greedy.ProbeRun base = CorrectnessGate.referenceRun(refs, "t", CorrectnessGate.Reference.BASELINE);
        assertThat(base.texts()).containsExactly("a", "b");
        assertThat(base.hasBatched()).isFalse();
        assertThat(CorrectnessGate.referenceRun(refs, "t", CorrectnessGate.Reference.BASELINE_REPEAT)).isNull();
    }
}
