package io.isobench.plan;

import org.junit.jupiter.api.Test;

import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

/** A stored run's role: as recorded, else (runs recorded before roles were stored) the old pipeline + suffix rule. */
class JobRoleTest {

    @Test
    void aRecordedRoleIsReadAsItIs() {
        for (JobRole r : JobRole.values()) {
            assertThat(JobRole.fromLabel(r.label())).contains(r);
            // the recorded role wins over what the pipeline and job id would say
            assertThat(JobRole.ofStored(r.label(), "native", "t/baseline/r0")).contains(r);
        }
        assertThat(JobRole.fromLabel("warmup")).isEmpty();
        assertThat(JobRole.fromLabel(null)).isEmpty();
    }

    @Test
    void anOldRunWithoutRoleGetsItFromItsPipelineAndJobIdSuffix() {
        assertThat(JobRole.ofStored(null, "native", "t/human/r2")).contains(JobRole.MEASURE);
        assertThat(JobRole.ofStored(null, "native", null)).as("an arm's build placeholder").contains(JobRole.MEASURE);
        assertThat(JobRole.ofStored(null, "native-check", "t/human/check")).contains(JobRole.CHECK);
        assertThat(JobRole.ofStored(null, "native-check", "t/baseline/check-repeat")).contains(JobRole.CHECK_REPEAT);
        assertThat(JobRole.ofStored(null, "native-check", null)).contains(JobRole.CHECK);
        assertThat(JobRole.ofStored(null, "native-accuracy", "t/agent:a/accuracy")).contains(JobRole.ACCURACY);
        assertThat(JobRole.ofStored(null, "native-pilot", "t/baseline/pilot1/request_rate=4"))
                .contains(JobRole.PILOT);
        // an unknown role text is no role: the old rule applies
        assertThat(JobRole.ofStored("warmup", "native-check", "t/baseline/check-repeat"))
                .contains(JobRole.CHECK_REPEAT);
        // imported data has no role
        assertThat(JobRole.ofStored(null, "hf_import", "t/baseline/check-repeat")).isEqualTo(Optional.empty());
        assertThat(JobRole.ofStored(null, null, null)).isEmpty();
    }
}
