package io.isobench;

import io.isobench.store.RunRecord;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Arm labels: the suite's arms parse strictly; a stored label of no suite arm is kept verbatim as {@code OTHER}. */
class ArmTest {

    @Test
    void suiteArmsParseAndPrintTheirLabels() {
        for (String label : new String[] {"baseline", "baseline-aa", "human", "agent:claude_code"}) {
            assertThat(Arm.fromLabel(label).label()).isEqualTo(label);
        }
        assertThat(Arm.fromLabel("agent:Claude-Code")).isEqualTo(Arm.agent("claude_code"));
        assertThatThrownBy(() -> Arm.fromLabel("adhoc")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("unknown arm label 'adhoc'");
    }

    @Test
    void anotherLabelIsKeptVerbatimAndIsNoAgent() {
        Arm adhoc = Arm.other("adhoc");
        assertThat(adhoc.kind()).isEqualTo(Arm.Kind.OTHER);
        assertThat(adhoc.label()).isEqualTo("adhoc");
        assertThat(adhoc.agentName()).isNull();
        assertThat(adhoc).isNotEqualTo(Arm.BASELINE).isEqualTo(Arm.other("adhoc")).isNotEqualTo(Arm.other("Adhoc"));
    }

    @Test
    void aStoredRowReadsBackItsArmLabelByteForByte() {
        for (String label : new String[] {"adhoc", "Baseline ", "agent:Claude-Code", "agent:", "", "human"}) {
            RunRecord r = RunRecord.builder("r").kind(RunRecord.RunKind.MEASURED).status(RunRecord.RunStatus.SUCCESS)
                    .armLabel(label).build();
            assertThat(r.arm().label()).as(label).isEqualTo(label);
        }
    }
}
