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

    @Test
    void anAgentArmNamedNameAtKCarriesItsAttemptTyped() {
        Arm a = Arm.fromLabel("agent:claude-code@12");
        assertThat(a.attempt()).isEqualTo(12);
        assertThat(a.isAttempt()).isTrue();
        assertThat(a.agentBase()).isEqualTo("claude_code");
        assertThat(a.agentName()).isEqualTo("claude_code@12");
        assertThat(a.label()).isEqualTo("agent:claude_code@12");
        assertThat(Arm.attemptOf("claude-code", 12)).isEqualTo(a);
        assertThat(Arm.agent("codex").attempt()).isZero();
        assertThat(Arm.agent("codex").agentBase()).isEqualTo("codex");
        assertThat(Arm.BASELINE.attempt()).isZero();
        assertThat(Arm.BASELINE.agentBase()).isNull();
        // only @ and digits without a leading zero after a name: the rest is part of the name
        for (String name : new String[] {"a@0", "a@01", "@3", "a@x", "a@1234567", "a@"}) {
            assertThat(new Arm(Arm.Kind.AGENT, name).attempt()).as(name).isZero();
            assertThat(new Arm(Arm.Kind.AGENT, name).agentBase()).as(name).isEqualTo(name);
        }
        assertThat(new Arm(Arm.Kind.AGENT, "a@b@3").agentBase()).isEqualTo("a@b");
        assertThatThrownBy(() -> new Arm(Arm.Kind.AGENT, "a@2", 3)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Arm.attemptOf("a", 0)).isInstanceOf(IllegalArgumentException.class);
    }

    /** A stored label reads back as written: the one rule every label-keyed reader converts through. */
    @Test
    void aStoredLabelReadsBackAsWritten() {
        assertThat(Arm.ofStored("baseline")).isEqualTo(Arm.BASELINE);
        assertThat(Arm.ofStored("baseline-aa")).isEqualTo(Arm.BASELINE_AA);
        assertThat(Arm.ofStored("human")).isEqualTo(Arm.HUMAN);
        Arm agent = Arm.ofStored("agent:Claude-Code@2");
        assertThat(agent.kind()).isEqualTo(Arm.Kind.AGENT);
        assertThat(agent.label()).as("not normalised").isEqualTo("agent:Claude-Code@2");
        assertThat(agent.attempt()).isEqualTo(2);
        for (String other : new String[] {"adhoc", "agent:", "agent: ", "Baseline", ""}) {
            assertThat(Arm.ofStored(other)).as(other).isEqualTo(Arm.other(other));
        }
        assertThat(Arm.ofStored(null)).isNull();
    }

}
