package io.isobench.plan;

import io.isobench.parse.FailureCategory;
import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class GpuRequestTest {

    @Test
    void clusterRequests() {
        assertThat(new GpuRequest(4).slurmArgs()).containsExactly("--gpus=4");
        assertThat(new GpuRequest(4).kubernetesLimits()).isEqualTo(Map.of("nvidia.com/gpu", "4"));
        assertThat(new GpuRequest(0).slurmArgs()).isEmpty();
        assertThat(new GpuRequest(0).kubernetesLimits()).isEmpty();
    }

    @Test
    void refusedAtPlanTime() {
        new GpuRequest(8).requireFits(8);
        assertThatThrownBy(() -> new GpuRequest(8).requireFits(4))
                .isInstanceOfSatisfying(GpuSlots.Insufficient.class,
                        e -> assertThat(e.category()).isEqualTo(FailureCategory.RESOURCES_INSUFFICIENT));
    }
}
