package io.isobench.store;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class PipelineTest {

    @Test
    void everyIdParsesBackFromItsLabel() {
        for (Pipeline.Id id : Pipeline.Id.values()) {
            Pipeline p = Pipeline.of(id.label());
            assertThat(p.id()).contains(id);
            assertThat(p.label()).isEqualTo(id.label());
            assertThat(p).isEqualTo(Pipeline.of(id));
        }
        assertThat(Pipeline.of("native")).isEqualTo(Pipeline.NATIVE);
        assertThat(Pipeline.of("run_2026-01-18/19").is(Pipeline.Id.RUN_2026_01_18_19)).isTrue();
    }

    @Test
    void unknownTextIsKeptVerbatimAndMatchesNoKnownPipeline() {
        for (String text : new String[] {"some_future_pipeline", "Native", " native", "native ", ""}) {
            Pipeline p = Pipeline.of(text);
            assertThat(p.id()).as(text).isEmpty();
            assertThat(p.label()).as(text).isEqualTo(text);
            assertThat(Pipeline.labelOf(p)).isEqualTo(text);
            assertThat(p).isNotEqualTo(Pipeline.NATIVE);
            assertThat(p).isEqualTo(Pipeline.of(text));
        }
    }

    @Test
    void noPipelineStaysNull() {
        assertThat(Pipeline.of((String) null)).isNull();
        assertThat(Pipeline.labelOf(null)).isNull();
    }

    @Test
    void aKnownLabelCannotPoseAsUnknownNorTheOtherWayRound() {
        assertThatThrownBy(() -> new Pipeline(null, "native")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new Pipeline(Pipeline.Id.MODAL, "docker_3way"))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new Pipeline(null, null)).isInstanceOf(IllegalArgumentException.class);
    }
}
