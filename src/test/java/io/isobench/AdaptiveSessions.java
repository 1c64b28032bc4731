package io.isobench;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.isobench.analysis.SequentialDesign;
import io.isobench.parse.Metric;
import io.isobench.store.RunRecord;
import io.isobench.store.SessionRecord;
import io.isobench.store.Store;
import io.isobench.store.TaskRecord;

import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * A native session run with adaptive rounds (the default design: a look after every round from 3 to 8, O'Brien–Fleming
 * spending, futility below 3 %; stored in the session's stats settings as a session stores it), for the report and
 * export tests. Four serving tasks, arms baseline, baseline-aa, human and {@code agent:x}, lower tpot is better, each
 * stored with as many rounds as an adaptive session runs for it:
 * <ul>
 *   <li>{@code fast}: human 2× and the agent 1.6× faster, little noise: decided at the first look (3 rounds);</li>
 *   <li>{@code same}: human 1.25× faster, the agent the baseline's code: equivalent within ±2 % at the first look;</li>
 *   <li>{@code noisy}: human 1.25× faster, the agent about the baseline with 3 % noise: futile after 5 rounds;</li>
 *   <li>{@code long}: human 1.25× faster, the agent 1.5 % faster: neither beyond nor inside the margin at the last
 *       look (8 rounds);</li>
 *   <li>{@code unstable}: the A/A arm 6 % slower than the baseline in every round: the A/A check is unstable and every
 *       verdict of the task inconclusive (A/A unstable), decided at the first look (3 rounds).</li>
 * </ul>
 * In all, 22 of up to 40 rounds: 18 saved against running every task to 8.
 */
public final class AdaptiveSessions {

    public static final String SESSION = "s-adaptive";
    public static final SequentialDesign DESIGN = SequentialDesign.defaultAdaptive();
    public static final String[] ARMS = {"baseline", "baseline-aa", "human", "agent:x"};

    /**
     * One task: its id, commit, the rounds a session runs for it, per arm (ARMS order) the tpot level and the per-run
     * noise (relative sd), and the seed of that noise.
     */
    public record Task(String id, String commit, int rounds, double[] tpot, double[] noise, long seed) {
    }

    private static final double[] QUIET = {0.003, 0.003, 0.003, 0.003};

    public static final List<Task> TASKS = List.of(
            new Task("fast", "aaaa000011112222333344445555666677778888", 3, new double[] {10, 10, 5, 6.25}, QUIET,
                    3135580L),
            new Task("same", "bbbb000011112222333344445555666677778888", 3, new double[] {10, 10, 8, 10},
                    new double[] {0.002, 0.002, 0.002, 0.002}, 3522662L),
            new Task("noisy", "cccc000011112222333344445555666677778888", 5, new double[] {10, 10, 8, 9.9},
                    new double[] {0.003, 0.003, 0.003, 0.03}, 104998702L),
            new Task("long", "dddd000011112222333344445555666677778888", 8, new double[] {10, 10, 8, 9.85},
                    new double[] {0.003, 0.003, 0.003, 0.006}, 3120L),
            new Task("unstable", "eeee000011112222333344445555666677778888", 3, new double[] {10, 10.6, 5, 6.25},
                    QUIET, -5995756L));

    private static final ObjectMapper JSON = new ObjectMapper();

    private AdaptiveSessions() {
    }

    /** The session record (with its design, as a session stores it), the tasks and their measured runs. */
    public static void session(Store store, Instant started) {
        session(store, started, TASKS);
    }

    /** The session with {@code tasks} instead of {@link #TASKS}. */
    public static void session(Store store, Instant started, List<Task> tasks) {
        session(store, SESSION, started, tasks);
    }

    /** The session, of id {@code id}, with {@code tasks} instead of {@link #TASKS}. */
    public static void session(Store store, String id, Instant started, List<Task> tasks) {
        Map<String, Object> settings = new LinkedHashMap<>();
        settings.put(SequentialDesign.KEY, DESIGN.toMap(0.95));
        store.putSession(SessionRecord.builder(id).time(started, started.plusSeconds(600))
                .machine("host-b", "2 cpu", "none", "{}").statsConfigJson(json(settings)).seed(11L)
                .status("complete").build());
        List<RunRecord> runs = new ArrayList<>();
        int job = 0;
        for (Task t : tasks) {
            store.putTask(TaskRecord.builder(t.id()).repo("/repo/toyllm").commit(t.commit(), "baseline")
                    .subject("task " + t.id()).perfCommand("vllm bench serve --model toy-1m").model("toy-1m")
                    .gpus("H100:1", 1).build());
            Random noise = new Random(t.seed());
            for (int r = 0; r < t.rounds(); r++) {
                for (int a = 0; a < ARMS.length; a++) {
                    String arm = ARMS[a];
                    double v = t.tpot()[a] * (1 + t.noise()[a] * noise.nextGaussian());
                    Map<String, Object> x = new LinkedHashMap<>();
                    x.put("task", t.id());
                    x.put("job_index", job++);
                    if (arm.startsWith("agent:")) {
                        x.put("agent_model", "model-x");
                    }
                    runs.add(RunRecord.builder(id + "/" + t.id() + "/" + arm + "/r" + r)
                            .session(id)
                            .kind(RunRecord.RunKind.MEASURED)
                            .commit(t.commit(), t.commit().substring(0, 8))
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
                            .argvJson("[]")
                            .detailsJson(json(x))
                            .metrics(List.of(Metric.of("tpot_ms_mean", v), Metric.of("ttft_ms_mean", 30 + v)))
                            .build());
                }
            }
        }
        store.putRuns(runs);
    }

    private static String json(Object o) {
        try {
            return JSON.writeValueAsString(o);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }
}
