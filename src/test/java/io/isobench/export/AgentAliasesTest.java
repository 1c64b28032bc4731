package io.isobench.export;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The HF table's agent + model pair becomes the result trees' agent name (docs/hf-export.md, agent names). */
class AgentAliasesTest {

    private static String name(String agent, String model) {
        return AgentAliases.resolve(agent, model).name();
    }

    @Test
    void traeWithItsModelIsTheTreesName() {
        // as the published table and the card write them
        assertThat(name("trae", "gpt-5")).isEqualTo("trae_gpt5");
        assertThat(name("trae", "sonnet-4.5")).isEqualTo("trae_sonnet45");
        assertThat(name("TRAE", "GPT-5")).isEqualTo("trae_gpt5");
        // as the agents' own runs write the model
        assertThat(name("trae", "gpt-5-2025-08-07")).isEqualTo("trae_gpt5");
        assertThat(name("trae", "openai/gpt-5")).isEqualTo("trae_gpt5");
        assertThat(name("trae", "claude-sonnet-4-5-20250929")).isEqualTo("trae_sonnet45");
        assertThat(name("trae", "us.anthropic.claude-sonnet-4-5-20250929-v1:0")).isEqualTo("trae_sonnet45");
        assertThat(name("trae", "us-anthropic-claude-sonnet-4-5-20250929-v1-0")).isEqualTo("trae_sonnet45");
        assertThat(AgentAliases.resolve("trae", "gpt-5").known()).isTrue();
    }

    @Test
    void anUnknownModelOfAListedAgentKeepsTheNameAndSaysSo() {
        for (String model : new String[] {"gpt-5-mini", "gpt-4o", "claude-sonnet-4-20250514", "sonnet-4.55", null}) {
            AgentAliases.Resolved r = AgentAliases.resolve("trae", model);
            assertThat(r.name()).as(model).isEqualTo("trae");
            assertThat(r.known()).as(model).isFalse();
        }
    }

    @Test
    void agentsTheTableDoesNotListAreOnlyNormalised() {
        AgentAliases.Resolved r = AgentAliases.resolve("claude-code", "sonnet-4.5");
        assertThat(r.name()).isEqualTo("claude_code");
        assertThat(r.known()).isTrue();
        assertThat(name("codex", "gpt-5")).isEqualTo("codex");
        assertThat(name("trae_gpt5", "gpt-5")).isEqualTo("trae_gpt5");
        assertThat(AgentAliases.resolve(null, "gpt-5").name()).isNull();
    }
}
