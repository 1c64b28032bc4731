package io.isobench;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.isobench.parse.Metric;
import io.isobench.store.RunRecord;
import io.isobench.store.SessionRecord;
import io.isobench.store.Store;
import io.isobench.store.TaskRecord;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A store with agent attempts (docs/agents.md, docs/statistics.md §18), for the report and export tests: one native
 * session measuring task {@code tpot} (5 rounds; lower tpot is better) with arms baseline (10 ms), human (8 ms:
 * speedup 1.25, replay valid), {@code agent:a@1} (9.0 ms: better, but 1.11 &lt; 0.95 × 1.25), {@code agent:a@2}
 * (7.9 ms: 1.27, counts at every fraction) and {@code agent:b@1} (8.3 ms: 1.20, counts at 0.95 and 0.90, not 1.00);
 * and the attempts of {@code isobench agents run} (kind AGENT_ATTEMPT, session {@link #AGENTS_SESSION}) that made
 * those patches, plus {@code a@3}, an EMPTY_PATCH attempt that was never measured. The trajectory of {@code a@2}
 * holds markup that must be escaped.
 */
public final class AttemptSessions {

    public static final String SESSION = "s-attempts";
    public static final String AGENTS_SESSION = "agents-run-1";
    public static final String COMMIT = "abcdef0123456789abcdef0123456789abcdef01";
    public static final String PARENT = "1111111111111111111111111111111111111111";
    public static final String[] ARMS = {"baseline", "human", "agent:a@1", "agent:a@2", "agent:b@1"};
    static final double[] TPOT = {10.0, 8.0, 9.0, 7.9, 8.3};
    public static final String HOSTILE = "<script>alert('x')</script> & \"quotes\"";

    private static final ObjectMapper JSON = new ObjectMapper();

    private AttemptSessions() {
    }

    /** The patch text of an agent arm ({@code a@1} …). */
    public static String patch(String agent) {
        return "diff --git a/toyllm/engine.py b/toyllm/engine.py\n--- a/toyllm/engine.py\n+++ b/toyllm/engine.py\n"
                + "@@ -1 +1 @@\n-SLOW = True\n+SLOW = False  # " + agent + "\n";
    }

    /** The measured session (task, session record and runs); agent runs carry their patch's sha256. */
    public static void session(Store store, Instant started) {
        session(store, started, null);
    }

    /**
     * The measured session; with {@code attemptsOf} its agent runs also name the stored attempt they measured (the
     * run id {@code attemptsOf/tpot/NAME@k}), as a session planned by {@code run --attempts-of} records it; null: as
     * runs recorded before that key.
     */
    public static void session(Store store, Instant started, String attemptsOf) {
        store.putTask(TaskRecord.builder("tpot").repo("/repo/toyllm").commit(COMMIT, "baseline").subject("faster decode")
                .perfCommand("vllm bench serve --model toy-1m").model("toy-1m").gpus("H100:1", 1).build());
        store.putSession(SessionRecord.builder(SESSION).time(started, started.plusSeconds(60))
                .machine("host", "2 cpu", "none", "{}").statsConfigJson("{}").seed(42L).status("complete").build());
        List<RunRecord> runs = new ArrayList<>();
        int job = 0;
        for (int r = 0; r < 5; r++) {
            for (int a = 0; a < ARMS.length; a++) {
                String arm = ARMS[a];
                Map<String, Object> x = new LinkedHashMap<>();
                x.put("task", "tpot");
                x.put("job_index", job++);
                if (arm.startsWith("agent:")) {
                    x.put("agent_model", "model-x");
                    x.put("patch_sha256", store.putArtifact("patch",
                            patch(arm.substring(6)).getBytes(StandardCharsets.UTF_8)));
                    if (attemptsOf != null) {
                        x.put("agent_attempt_run", attemptsOf + "/tpot/" + arm.substring(6));
                    }
                }
                if (arm.equals("baseline")) {
                    x.put("verified_commit", PARENT);
                }
                double v = TPOT[a] * (1 + 0.004 * ((r * 7 + a * 3) % 5 - 2));
                runs.add(RunRecord.builder(SESSION + "/tpot/" + arm + "/r" + r)
                        .session(SESSION)
                        .kind(RunRecord.RunKind.MEASURED)
                        .commit(COMMIT, COMMIT.substring(0, 8))
                        .agent(arm.startsWith("agent:") ? arm.substring(6) : null)
                        .armLabel(arm)
                        .round(r)
                        .status(RunRecord.RunStatus.SUCCESS)
                        .modeLabel("serving")
                        .model("toy-1m")
                        .pipelineLabel("native")
                        .primary("tpot_ms_mean", v, "measured")
                        .workload("{\"requests\":8}")
                        .startedAt(started.plusSeconds(job))
                        .durationMs(1000.0)
                        .envRef("git-worktree:x")
                        .argvJson("[\"python3\",\"-m\",\"toyllm\"]")
                        .detailsJson(json(x))
                        .metrics(List.of(Metric.of("tpot_ms_mean", v), Metric.of("ttft_ms_mean", 30 + v)))
                        .build());
            }
        }
        store.putRuns(runs);
    }

    /** The stored attempts: a@1, a@2, b@1 (OK, their patches measured), a@3 (EMPTY_PATCH, not measured). */
    public static void attempts(Store store, Instant started) {
        attempts(store, started, new AgentsRun(AGENTS_SESSION, "2.1.332"));
    }

    /**
     * An agents run: its session id and the agent CLI version its attempts report.
     */
    public record AgentsRun(String session, String cliVersion) {
    }

    /**
     * The same attempts stored by agents run {@code run}: the same patches (the agents are deterministic), told
     * apart by their run ids and CLI version.
     */
    public static void attempts(Store store, Instant started, AgentsRun run) {
        attempt(store, run, started, "a", 1, "OK", null);
        attempt(store, run, started.plusSeconds(100), "a", 2, "OK", null);
        attempt(store, run, started.plusSeconds(200), "a", 3, "EMPTY_PATCH", "the worktree has no change");
        attempt(store, run, started.plusSeconds(300), "b", 1, "OK", null);
    }

    /** An attempt's trajectory in the pre-ATIF shape older stores hold (read unchanged; exported converted). */
    public static String trajectory(String agent, int k) {
        String message = k == 2 ? "I will edit the engine. " + HOSTILE : "Reading the engine.";
        return """
                {
                  "schema_version" : "isobench-trajectory-1 (ATIF-like)",
                  "agent" : { "name" : "claude-code", "version" : "2.1.332", "model_name" : "model-x" },
                  "steps" : [ {
                    "step_id" : 1,
                    "source" : "user",
                    "message" : "Make tpot_ms_mean lower."
                  }, {
                    "step_id" : 2,
                    "source" : "agent",
                    "message" : %s,
                    "tool_calls" : [ {
                      "tool_call_id" : "call_1",
                      "function_name" : "Bash",
                      "arguments" : "{\\"command\\":\\"cat toyllm/engine.py\\"}"
                    } ],
                    "observation" : { "results" : [ { "source_call_id" : "call_1", "content" : "SLOW = True" } ] },
                    "metrics" : { "prompt_tokens" : 1200, "completion_tokens" : 80 }
                  } ],
                  "final_metrics" : { "total_prompt_tokens" : 1200, "total_completion_tokens" : 80,
                    "total_cost_usd" : 0.0123, "total_turns" : 2, "total_steps" : 2, "total_tool_calls" : 1 }
                }
                """.formatted(quote(message + " (" + agent + "@" + k + ")"));
    }

    private static void attempt(Store store, AgentsRun run, Instant at, String agent, int k, String status,
                                String detail) {
        boolean withPatch = status.equals("OK");
        String name = agent + "@" + k;
        String traj = store.putArtifact("trajectory", trajectory(agent, k).getBytes(StandardCharsets.UTF_8));
        String stdout = store.putArtifact("agent-stdout", ("{\"type\":\"result\",\"agent\":\"" + name + "\"}\n")
                .getBytes(StandardCharsets.UTF_8));
        String patchSha = withPatch ? store.putArtifact("patch", patch(name).getBytes(StandardCharsets.UTF_8)) : null;
        Map<String, Object> s = new LinkedHashMap<>();
        s.put("task", "tpot");
        s.put("agent", agent);
        s.put("attempt", k);
        s.put("adapter", "claude-code");
        s.put("cli_version", run.cliVersion());
        s.put("executor", "docker");
        s.put("model", "model-x");
        s.put("prompt_template_sha256", "7".repeat(64));
        s.put("prompt_sha256", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
        s.put("hints", "none");
        s.put("turns", 2 + k);
        s.put("tokens_in", 1200L * k);
        s.put("tokens_out", 80L * k);
        s.put("cost_usd", agent.equals("b") ? null : 0.0123 * k);
        s.put("wall_s", 30.5 * k);
        s.put("status", status);
        s.put("detail", detail);
        s.put("patch_sha256", patchSha);
        s.put("patch_lines", withPatch ? 5 : 0);
        s.put("trajectory_sha256", traj);
        s.put("stderr_sha256", null);
        s.put("budget", Map.of("wall_s", 3600, "turns", 100));
        s.put("parent_commit", PARENT);
        s.put("sealed_commit", "2222222222222222222222222222222222222222");
        boolean ok = status.equals("OK");
        store.putRun(RunRecord.builder(run.session() + "/tpot/" + name)
                .session(run.session())
                .kind(RunRecord.RunKind.AGENT_ATTEMPT)
                .round(k)
                .commit(PARENT, PARENT.substring(0, 8))
                .agent(name)
                .arm(Arm.agent(name))
                .status(ok ? RunRecord.RunStatus.SUCCESS : RunRecord.RunStatus.FAILED)
                .failure(ok ? null : new RunRecord.FailureInfo(status, detail, detail, false))
                .model("model-x")
                .startedAt(at)
                .durationMs(30_500.0 * k)
                .logArtifact(stdout)
                .argvJson("[\"claude\",\"-p\",\"--output-format\",\"stream-json\"]")
                .detailsJson(json(Map.of("agent_attempt", s)))
                .build());
    }

    private static String json(Object o) {
        try {
            return JSON.writeValueAsString(o);
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    private static String quote(String s) {
        return json(s);
    }
}
