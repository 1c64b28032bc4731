package io.isobench.agent;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Usage is never negative or impossible (issue 27): the command adapter refuses usage lines with negative,
 * fractional, non-numeric or absurd values (they count for nothing and the report says so), and {@link Usage} itself
 * refuses negative counts and costs from any source.
 */
class CommandAdapterUsageTest {

    private final CommandAdapter adapter = new CommandAdapter();

    @Test
    void negativeAndImpossibleUsageLinesAreRefused() {
        String stdout = String.join("\n",
                "isobench-usage: {\"turns\":1,\"tokens_in\":100,\"tokens_out\":20,\"cost_usd\":0.01}",
                "isobench-usage: {\"turns\":-99,\"tokens_in\":1,\"tokens_out\":1,\"cost_usd\":-999.5}",
                "isobench-usage: {\"turns\":1,\"cost_usd\":-0.5}",
                "isobench-usage: {\"tokens_in\":-5}",
                "isobench-usage: {\"turns\":1.5}",
                "isobench-usage: {\"turns\":\"7\"}",
                "isobench-usage: {\"tokens_out\":1e30}",
                "isobench-usage: {\"turns\":2000000000}",
                "done");
        AgentReport r = adapter.parse(new AgentOutput(stdout, "", 0));
        assertThat(r.usage()).isEqualTo(new Usage(1, 100, 20, 0.01));
        assertThat(r.detail()).contains("refused 7 usage line(s)").contains("turns -99");
        // the same lines streamed one by one while the attempt runs
        Usage u = Usage.NONE;
        for (String line : stdout.split("\n")) {
            u = adapter.observe(line, u);
        }
        assertThat(u).isEqualTo(new Usage(1, 100, 20, 0.01));
    }

    @Test
    void usageItselfIsNeverNegative() {
        assertThatThrownBy(() -> new Usage(-99, 0, 0, null)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("never negative");
        assertThatThrownBy(() -> new Usage(1, 0, 0, -999.5)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new Usage(1, -1, 0, null)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new Usage(1, 0, 0, Double.NaN)).isInstanceOf(IllegalArgumentException.class);
        assertThat(new Usage(0, 0, 0, 0.0).tokens()).isZero();
    }
}
