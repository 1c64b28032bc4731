package io.isobench.export;

import io.isobench.analysis.AgentAttempts;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;

/**
 * The agent-attempt columns of the HF export (docs/hf-export.md, docs/agents.md): on a native session's agent row
 * whose patch came from a stored attempt of {@code isobench agents run} (same arm {@code agent:NAME@k}, task and patch
 * sha256; {@link AgentAttempts#forArm}), the attempt's number, adapter, CLI version, executor, status, usage, wall
 * time, prompt hash, patch hash and the normalised trajectory (the stored JSON text; the store redacted secrets when
 * it was written). Null on every other row.
 */
final class AttemptColumns {

    private AttemptColumns() {
    }

    /** The columns, appended after the other {@code isobench_} columns. */
    static final List<HfSchema.Column> COLUMNS = List.of(
            new HfSchema.Column("isobench_agent_attempt", HfSchema.Type.INT32, "k: which attempt of the agent made the"
                    + " patch (isobench agents run; the arm is agent:NAME@k); null when the patch was not made by an attempt"),
            new HfSchema.Column("isobench_agent_adapter", HfSchema.Type.STRING, "adapter that ran the agent: claude-code"
                    + " | codex | command"),
            new HfSchema.Column("isobench_agent_cli_version", HfSchema.Type.STRING, "the agent CLI's version as it reported it"),
            new HfSchema.Column("isobench_agent_executor", HfSchema.Type.STRING, "where the agent ran: local | docker"),
            new HfSchema.Column("isobench_agent_status", HfSchema.Type.STRING, "the attempt's outcome: OK | AGENT_TIMEOUT"
                    + " | BUDGET_EXCEEDED | AGENT_CRASH | EMPTY_PATCH"),
            new HfSchema.Column("isobench_agent_turns", HfSchema.Type.INT32, "model turns the attempt used"),
            new HfSchema.Column("isobench_agent_tokens_in", HfSchema.Type.INT32, "input tokens the attempt used (null"
                    + " beyond the int32 range)"),
            new HfSchema.Column("isobench_agent_tokens_out", HfSchema.Type.INT32, "output tokens the attempt used (null"
                    + " beyond the int32 range)"),
            new HfSchema.Column("isobench_agent_cost_usd", HfSchema.Type.FLOAT64, "cost in USD the agent reported; null"
                    + " when unknown"),
            new HfSchema.Column("isobench_agent_wall_s", HfSchema.Type.FLOAT64, "wall time of the attempt, seconds"),
            new HfSchema.Column("isobench_agent_prompt_sha256", HfSchema.Type.STRING, "sha256 of the prompt the agent got"),
            new HfSchema.Column("isobench_agent_patch_sha256", HfSchema.Type.STRING, "sha256 of the attempt's patch (the"
                    + " one the agent arm measured)"),
            new HfSchema.Column("isobench_agent_trajectory", HfSchema.Type.STRING, "the attempt's normalised trajectory,"
                    + " Harbor's ATIF-v1.7 JSON text (docs/agents.md \"ATIF trajectories\"; attempts stored before"
                    + " isobench wrote ATIF hold its older isobench-trajectory-1 shape as stored; secrets redacted)"));

    /**
     * Fills the columns of {@code values} (a row in {@link HfSchema#EXPORT} order) from {@code attempt}; nothing
     * when it is empty.
     */
    static void fill(Object[] values, Optional<AgentAttempts.Attempt> attempt,
                     Function<String, Optional<byte[]>> artifacts) {
        if (attempt.isEmpty()) {
            return;
        }
        AgentAttempts.Attempt a = attempt.get();
        set(values, "isobench_agent_attempt", a.attempt());
        set(values, "isobench_agent_adapter", a.text("adapter"));
        set(values, "isobench_agent_cli_version", a.text("cli_version"));
        set(values, "isobench_agent_executor", a.text("executor"));
        set(values, "isobench_agent_status", a.status());
        set(values, "isobench_agent_turns", int32(a.count("turns")));
        set(values, "isobench_agent_tokens_in", int32(a.count("tokens_in")));
        set(values, "isobench_agent_tokens_out", int32(a.count("tokens_out")));
        set(values, "isobench_agent_cost_usd", a.number("cost_usd"));
        set(values, "isobench_agent_wall_s", a.number("wall_s"));
        set(values, "isobench_agent_prompt_sha256", a.text("prompt_sha256"));
        set(values, "isobench_agent_patch_sha256", a.text("patch_sha256"));
        String sha = a.text("trajectory_sha256");
        if (sha != null) {
            set(values, "isobench_agent_trajectory", artifacts.apply(sha)
                    .map(b -> new String(b, StandardCharsets.UTF_8)).orElse(null));
        }
    }

    private static Integer int32(Long v) {
        return v == null || v > Integer.MAX_VALUE || v < Integer.MIN_VALUE ? null : v.intValue();
    }

    private static void set(Object[] values, String column, Object v) {
        values[HfSchema.V5.size() + RowBuilder.isoIndex(column)] = v;
    }
}
