package io.isobench.store;

import org.junit.jupiter.api.Test;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A native run's details: the typed writer ({@link NativeDetails}, serialized only by {@link RunDetailsCodec}) writes
 * what the map writers wrote, plus the job's role; details written the old way (golden texts below, as
 * {@code exec.Accuracy} and {@code session.JobRunner} stored them before) still read.
 */
class NativeDetailsTest {

    /** An accuracy run's extra_json as exec.Accuracy wrote it (its own map, before the recorder wrote every run). */
    static final String OLD_ACCURACY = "{\"task\":\"acc\",\"job\":\"acc/agent:a/accuracy\",\"job_index\":1073741823,"
            + "\"intended_commit\":\"abc\",\"verified_commit\":\"abc\",\"patch_sha256\":null,\"accuracy\":{\"command\":"
            + "[\"python3\",\"eval.py\"],\"score\":0.8,\"higher_is_better\":true,\"tolerance_abs\":0.01,"
            + "\"tolerance_rel\":0.0,\"baseline_score\":0.9,\"delta\":-0.1,\"allowed_loss\":0.01,\"outcome\":"
            + "\"ACCURACY_REGRESSION\",\"reason\":\"accuracy_score 0.8 vs baseline 0.9\"},\"review_findings\":"
            + "[\"touches benchmarks/\"],\"review_fails_arm\":false}";

    /** A measured round's extra_json as session.JobRunner wrote it (a literal-keyed map). */
    static final String OLD_ROUND = "{\"task\":\"t\",\"job\":\"t/baseline/r0\",\"job_index\":3,\"plan_seed\":42,"
            + "\"hardware_id\":\"hw-1\",\"intended_commit\":\"abc\",\"verified_commit\":\"abc\",\"patch_sha256\":null,"
            + "\"recipes\":[],\"timings_ms\":{\"client\":12.5}}";

    @Test
    void anAccuracyRunWrittenTheOldWayStillReads() {
        RunDetails d = RunDetailsCodec.decode(OLD_ACCURACY);
        assertThat(RunDetailsCodec.encode(d)).isEqualTo(OLD_ACCURACY);
        assertThat(d.task()).isEqualTo("acc");
        assertThat(d.job()).isEqualTo("acc/agent:a/accuracy");
        assertThat(d.jobIndex(-1)).isEqualTo(Integer.MAX_VALUE / 2);
        assertThat(d.role()).as("no role recorded: derived by plan.JobRole.ofStored").isNull();
        assertThat(d.accuracy()).isEqualTo(new RunDetails.AccuracyResult("ACCURACY_REGRESSION",
                "accuracy_score 0.8 vs baseline 0.9", 0.8));
        assertThat(d.reviewFindings()).containsExactly("touches benchmarks/");
        assertThat(d.intendedCommit()).isEqualTo("abc");
        assertThat(d.patchSha256()).isNull();
    }

    @Test
    void theRecorderWritesAnAccuracyRunAsBeforeWithItsRole() {
        Map<String, Object> sections = new LinkedHashMap<>();
        sections.put("review_findings", List.of("touches benchmarks/"));
        sections.put("review_fails_arm", false);
        NativeDetails nd = new NativeDetails(new NativeDetails.Place("acc", "acc/agent:a/accuracy",
                Integer.MAX_VALUE / 2, "accuracy", null), new NativeDetails.EnvFacts("abc", "abc", null),
                new NativeDetails.AccuracyOutcome(List.of("python3", "eval.py"), 0.8, new NativeDetails.Rule(true,
                        0.01, 0.0), new NativeDetails.Comparison(0.9, -0.1, 0.01), "ACCURACY_REGRESSION",
                        "accuracy_score 0.8 vs baseline 0.9"), sections);
        String text = RunDetailsCodec.encode(RunDetails.of(nd));
        assertThat(text).isEqualTo(OLD_ACCURACY.replace("\"job_index\":1073741823,",
                "\"job_index\":1073741823,\"role\":\"accuracy\","));
        assertThat(RunDetailsCodec.decode(text).role()).isEqualTo("accuracy");
    }

    @Test
    void theAccuracySectionHasTheKeysOfItsOutcome() {
        NativeDetails.Rule rule = new NativeDetails.Rule(false, 0.0, 0.05);
        // the reference and a failed command: no comparison; no baseline score: only baseline_score (null)
        assertThat(accuracyText(new NativeDetails.AccuracyOutcome(List.of("e"), 1.0, rule, null, "REFERENCE", "r")))
                .isEqualTo("{\"command\":[\"e\"],\"score\":1.0,\"higher_is_better\":false,\"tolerance_abs\":0.0,"
                        + "\"tolerance_rel\":0.05,\"outcome\":\"REFERENCE\",\"reason\":\"r\"}");
        assertThat(accuracyText(new NativeDetails.AccuracyOutcome(List.of("e"), 1.0, rule,
                new NativeDetails.Comparison(null, null, null), "NO_REFERENCE", "r")))
                .isEqualTo("{\"command\":[\"e\"],\"score\":1.0,\"higher_is_better\":false,\"tolerance_abs\":0.0,"
                        + "\"tolerance_rel\":0.05,\"baseline_score\":null,\"outcome\":\"NO_REFERENCE\",\"reason\":\"r\"}");
    }

    private static String accuracyText(NativeDetails.AccuracyOutcome a) {
        return RunDetailsCodec.encode(RunDetails.of(new NativeDetails(NativeDetails.Place.ofTask("t"), null, a,
                Map.of()))).replaceFirst("^\\{\"task\":\"t\",\"accuracy\":", "").replaceFirst("}$", "");
    }

    @Test
    void aRoundWrittenTheOldWayStillReadsAndTheTypedWriterKeepsItsKeys() {
        RunDetails old = RunDetailsCodec.decode(OLD_ROUND);
        assertThat(old.task()).isEqualTo("t");
        assertThat(old.job()).isEqualTo("t/baseline/r0");
        assertThat(old.jobIndex(-1)).isEqualTo(3);
        assertThat(old.hardwareId()).isEqualTo("hw-1");
        assertThat(old.role()).isNull();

        Map<String, Object> sections = new LinkedHashMap<>();
        sections.put("hardware_id", "hw-1");
        sections.put("recipes", List.of());
        sections.put("timings_ms", Map.of("client", 12.5));
        RunDetails now = RunDetails.of(new NativeDetails(new NativeDetails.Place("t", "t/baseline/r0", 3, "measure",
                42L), new NativeDetails.EnvFacts("abc", "abc", null), null, sections));
        // the place first (with the role), the environment's commits, then the sections in the order added
        assertThat(RunDetailsCodec.encode(now)).isEqualTo("{\"task\":\"t\",\"job\":\"t/baseline/r0\",\"job_index\":3,"
                + "\"role\":\"measure\",\"plan_seed\":42,\"intended_commit\":\"abc\",\"verified_commit\":\"abc\","
                + "\"patch_sha256\":null,\"hardware_id\":\"hw-1\",\"recipes\":[],\"timings_ms\":{\"client\":12.5}}");
        for (RunDetails d : List.of(old, now)) {
            assertThat(d.task()).isEqualTo("t");
            assertThat(d.jobIndex(-1)).isEqualTo(3);
            assertThat(d.hardwareId()).isEqualTo("hw-1");
            assertThat(d.verifiedCommit()).isEqualTo("abc");
            assertThat(d.section("timings_ms").path("client").asDouble()).isEqualTo(12.5);
        }
    }
}
