package io.isobench.export;

import io.isobench.Arm;
import io.isobench.analysis.AgentOutcome;
import io.isobench.analysis.SessionAnalysis;
import io.isobench.analysis.StatsConfig;
import io.isobench.analysis.TaskAnalysis;
import io.isobench.parse.Metric;
import io.isobench.store.RunRecord;
import io.isobench.store.SessionRecord;
import io.isobench.store.Store;
import io.isobench.store.TaskRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.Statement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/**
 * Native sessions in the HF export: one row per (task, agent) whose statistics are exactly those of
 * {@link SessionAnalysis} (the Markdown report's), read back from the parquet with DuckDB, on both export paths.
 */
class HfSessionRowsTest {

    @TempDir
    Path dir;

    static final String SESSION = "s-test-1";
    static final String COMMIT = "abcdef0123456789abcdef0123456789abcdef01";
    static final String PARENT = "1111111111111111111111111111111111111111";

    /** One serving task, 5 rounds: human ~2x faster, agent "fast" ~2.5x, agent "wrong" fast but incorrect, agent "broken" PATCH_FAILED. */
    static void session(Store store, Instant started) {
        session(store, started, SESSION);
    }

    static void session(Store store, Instant started, String sid) {
        store.putTask(TaskRecord.builder("tpot").repo("/repo/toyllm").commit(COMMIT, "baseline").subject("faster detok")
                .perfCommand("vllm bench serve --model toy-1m").model("toy-1m").gpus("H100:1", 1).build());
        store.putSession(SessionRecord.builder(sid).time(started, started.plusSeconds(60))
                .machine("host", "2 cpu", "none", "{}")
                .suiteJson("{\"arms\":[{\"task\":\"tpot\",\"arm\":\"agent:fast\",\"patch\":\"/p/fast.patch\"}]}")
                .statsConfigJson("{}").seed(42L).status("complete").build());
        String[] arms = {"baseline", "human", "agent:fast", "agent:wrong", "agent:broken"};
        double[] base = {13.0, 6.0, 5.2, 5.5, 0};
        int job = 0;
        for (String arm : arms) {
            // correctness checks
            Map<String, Object> x = extra(arm, job++);
            RunRecord.FailureInfo fi = null;
            RunRecord.RunStatus st = RunRecord.RunStatus.SUCCESS;
            if (arm.equals("agent:wrong")) {
                x.put("correctness", "mismatch");
                x.put("mismatch_fraction", 0.75);
                fi = new RunRecord.FailureInfo("OUTPUT_MISMATCH", "75 % differ", "prompt 0", false);
                st = RunRecord.RunStatus.FAILED;
            } else if (arm.equals("agent:broken")) {
                fi = new RunRecord.FailureInfo("PATCH_FAILED", "git apply --check", "error", false);
                st = RunRecord.RunStatus.FAILED;
            } else if (!arm.equals("baseline")) {
                x.put("correctness", "match");
                x.put("mismatch_fraction", 0.0);
            }
            store.putRun(run(sid, sid + "/tpot/" + arm + "/check", arm, -1, st, fi, "native-check", null, x, started));
        }
        for (int r = 0; r < 5; r++) {
            for (int a = 0; a < arms.length; a++) {
                String arm = arms[a];
                Map<String, Object> x = extra(arm, job++);
                if (arm.equals("agent:broken")) {
                    store.putRun(run(sid, sid + "/tpot/" + arm + "/r" + r, arm, r, RunRecord.RunStatus.FAILED,
                            new RunRecord.FailureInfo("PATCH_FAILED", "git apply --check", "error", false), "native",
                            null, x, started));
                    continue;
                }
                double v = base[a] * (1 + 0.004 * ((r * 7 + a * 3) % 5 - 2));
                store.putRun(run(sid, sid + "/tpot/" + arm + "/r" + r, arm, r, RunRecord.RunStatus.SUCCESS, null,
                        "native", v, x, started.plusSeconds(job)));
            }
        }
    }

    static Map<String, Object> extra(String arm, int job) {
        Map<String, Object> x = new LinkedHashMap<>();
        x.put("task", "tpot");
        x.put("job_index", job);
        if (arm.startsWith("agent:")) {
            x.put("agent_model", "model-" + arm.substring(6));
        }
        if (arm.equals("baseline")) {
            x.put("verified_commit", PARENT);
        }
        if (!arm.equals("agent:broken")) {
            x.put("build", Map.of("argv", List.of("python3", "-m", "compileall", "-q", "."), "status", "ok"));
        }
        x.put("recipes", List.of(Map.of("name", "utf8-io", "kind", "env", "ok", true)));
        return x;
    }

    static RunRecord run(String sid, String id, String arm, int round, RunRecord.RunStatus status, RunRecord.FailureInfo fi,
                         String pipeline, Double tpot, Map<String, Object> extra, Instant at) {
        List<Metric> metrics = new ArrayList<>();
        if (tpot != null) {
            metrics.add(Metric.of("tpot_ms_mean", tpot));
            metrics.add(Metric.of("ttft_ms_mean", 30 + tpot));
            metrics.add(Metric.of("output_throughput_tok_s", 4000 / tpot));
        }
        String agent = arm.startsWith("agent:") ? arm.substring(6) : null;
        try {
            return RunRecord.builder(id)
                    .session(sid)
                    .kind(RunRecord.RunKind.MEASURED)
                    .commit(COMMIT, COMMIT.substring(0, 8))
                    .agent(agent)
                    .armLabel(arm)
                    .round(Math.max(0, round))
                    .status(status)
                    .failure(fi)
                    .modeLabel("serving")
                    .model("toy-1m")
                    .pipelineLabel(pipeline)
                    .primary(tpot == null ? null : "tpot_ms_mean", tpot, tpot == null ? null : "measured")
                    .startedAt(at)
                    .durationMs(1000.0)
                    .envRef("git-worktree:x")
                    .argvJson("[]")
                    .detailsJson(new com.fasterxml.jackson.databind.ObjectMapper().writeValueAsString(extra))
                    .metrics(metrics)
                    .build();
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    static List<Map<String, Object>> read(Path parquet) throws Exception {
        List<Map<String, Object>> rows = new ArrayList<>();
        try (Connection c = DriverManager.getConnection("jdbc:duckdb:"); Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SELECT * FROM read_parquet('" + parquet + "') ORDER BY commit_short, isobench_agent")) {
            ResultSetMetaData md = rs.getMetaData();
            while (rs.next()) {
                Map<String, Object> row = new LinkedHashMap<>();
                for (int i = 1; i <= md.getColumnCount(); i++) {
                    row.put(md.getColumnName(i), rs.getObject(i));
                }
                rows.add(row);
            }
        }
        return rows;
    }

    @Test
    void sessionRowsCarryTheReportsStatisticsOnBothExportPaths() throws Exception {
        try (Store store = TestStores.open(dir, "s")) {
            session(store, Instant.parse("2026-11-26T01:00:00Z"));
            SessionAnalysis a = SessionAnalysis.of(store, SESSION, StatsConfig.defaults());
            TaskAnalysis ta = a.tasks().get(0).analysis();
            for (boolean sql : new boolean[] {true, false}) {
                Path out = dir.resolve("out-" + sql);
                HfExporter.export(store, out, sql);
                List<Map<String, Object>> rows = read(out.resolve(HfExporter.PARQUET));
                assertThat(rows).as("one row per agent, sql=%s", sql).extracting(r -> r.get("isobench_agent"))
                        .containsExactly("broken", "fast", "wrong");
                assertThat(rows.get(0).keySet()).containsExactlyElementsOf(
                        HfSchema.EXPORT.stream().map(HfSchema.Column::name).toList());
                Map<String, Object> fast = rows.get(1);
                AgentOutcome o = ta.agent("agent:fast").orElseThrow();
                // schema v5 from the session and its task
                assertThat(fast).containsEntry("commit_hash", COMMIT).containsEntry("commit_short", "abcdef01")
                        .containsEntry("repo", "/repo/toyllm").containsEntry("parent_commit", PARENT)
                        .containsEntry("agent_name", "fast").containsEntry("agent_model", "model-fast")
                        .containsEntry("benchmark_mode", "serving").containsEntry("patch_path", "/p/fast.patch")
                        .containsEntry("benchmark_date", "2026-11-26").containsEntry("has_agent_patch", true)
                        .containsEntry("gpu_config", "H100:1").containsEntry("data_source", "native");
                assertThat((Double) fast.get("baseline_tpot_mean"))
                        .isEqualTo(ta.summaries().get(Arm.BASELINE).median());
                assertThat((Double) fast.get("agent_tpot_mean"))
                        .isEqualTo(ta.summaries().get(Arm.ofStored("agent:fast")).median());
                assertThat((Double) fast.get("agent_improvement_tpot_mean")).isCloseTo(o.vsBaseline().deltaPct(), within(1e-9));
                // statistics: the analysis' numbers exactly
                assertThat(fast).containsEntry("isobench_session_id", SESSION).containsEntry("isobench_task_id", "tpot")
                        .containsEntry("isobench_n_rounds", 5).containsEntry("isobench_status", "complete_3way_same_run")
                        .containsEntry("isobench_human_verdict", ta.humanVsBaseline().verdict().label())
                        .containsEntry("isobench_human_ci_low", ta.humanVsBaseline().ciLowSpeedup())
                        .containsEntry("isobench_human_ci_high", ta.humanVsBaseline().ciHighSpeedup())
                        .containsEntry("isobench_human_speedup", ta.humanVsBaseline().speedup())
                        .containsEntry("isobench_human_p_value", ta.humanVsBaseline().pValue())
                        .containsEntry("isobench_agent_verdict", o.vsBaseline().verdict().label())
                        .containsEntry("isobench_agent_ci_low", o.vsBaseline().ciLowSpeedup())
                        .containsEntry("isobench_agent_speedup", o.vsBaseline().speedup())
                        .containsEntry("isobench_agent_p_value", o.vsBaseline().pValue())
                        .containsEntry("isobench_agent_vs_human_verdict", o.vsHuman().verdict().label())
                        .containsEntry("isobench_agent_vs_human_ci_high", o.vsHuman().ciHighSpeedup())
                        .containsEntry("isobench_agent_vs_human_speedup", o.vsHuman().speedup())
                        .containsEntry("isobench_noise_floor_pct", ta.noiseBand().bandPct())
                        .containsEntry("isobench_replay_validity", ta.replayValidity().label())
                        .containsEntry("isobench_opt_base", o.optBase()).containsEntry("isobench_opt_human", o.optHuman())
                        .containsEntry("isobench_n_baseline", 5).containsEntry("isobench_n_agent", 5)
                        .containsEntry("isobench_correctness_baseline", "reference")
                        .containsEntry("isobench_correctness_agent", "match").containsEntry("isobench_exact_match_agent", 1.0)
                        .containsEntry("isobench_build", "ok")
                        .containsEntry("isobench_recipes", "utf8-io (env) [baseline, human, agent]");
                // the designed effects: human and agent clearly better, the agent better than the human
                assertThat(fast.get("isobench_human_verdict")).isEqualTo("better");
                assertThat(fast.get("isobench_replay_validity")).isEqualTo("valid");
                assertThat(fast.get("isobench_agent_verdict")).isEqualTo("better");
                assertThat(fast.get("isobench_agent_vs_human_verdict")).isEqualTo("better");
                assertThat(fast.get("isobench_opt_human")).isEqualTo(true);
                assertThat((String) fast.get("isobench_verdict_rule")).contains("paired rounds").contains("TOST");
                assertThat(fast.get("isobench_agent_pairs")).isEqualTo(5);
                assertThat(fast.get("isobench_agent_inconclusive_reason")).isNull();
                assertThat(fast.get("isobench_aa_verdict")).isNull(); // this session ran no A/A arm
                assertThat(fast.get("isobench_legacy_agent_result")).isNull(); // rounds: no single-run result
                // how the verdicts were read: fixed rounds (no design recorded), a 95 % t interval, the 2 % margin
                assertThat(fast).containsEntry("isobench_margin_pct", ta.humanVsBaseline().marginPct())
                        .containsEntry("isobench_ci_level", 0.95)
                        .containsEntry("isobench_ci_method", "paired_t_own_pairs")
                        .containsEntry("isobench_sweep_grid", null).containsEntry("isobench_rounds_run", 5)
                        .containsEntry("isobench_look_rounds", 5).containsEntry("isobench_max_rounds", 5)
                        .containsEntry("isobench_stop_reason", "fixed");
                assertThat((Double) fast.get("isobench_margin_pct")).isCloseTo(2.0, within(1e-9));

                Map<String, Object> wrong = rows.get(2);
                assertThat(wrong).containsEntry("isobench_agent_verdict", "incorrect")
                        .containsEntry("isobench_correctness_agent", "mismatch")
                        .containsEntry("isobench_exact_match_agent", 0.25)
                        .containsEntry("isobench_opt_base", false);
                assertThat((String) wrong.get("isobench_issues")).contains("correctness gate");

                Map<String, Object> broken = rows.get(0);
                assertThat(broken).containsEntry("isobench_agent_verdict", "failed")
                        .containsEntry("isobench_failure_agent", "PATCH_FAILED")
                        .containsEntry("isobench_status", "incomplete")
                        .containsEntry("isobench_correctness_agent", "check_failed")
                        .containsEntry("isobench_n_agent", 0);
                assertThat(broken.get("isobench_build")).isEqualTo("baseline=ok; human=ok; agent=not_reached");
                assertThat(broken.get("agent_tpot_mean")).isNull();

                // the JSONL twin has the same rows
                assertThat(Files.readAllLines(out.resolve(HfExporter.JSONL))).hasSize(3);
                assertThat(Files.readString(out.resolve(HfExporter.CARD))).contains("isobench_opt_human")
                        .contains("isobench_exact_match_agent")
                        .contains("- **Between sessions.** A session's confidence interval describes that session only"
                                + " and does not cover session-to-session variation, which is not measured here");
            }
        }
    }

    @Test
    void theLatestSessionWinsAndAStoreWithoutSessionsHasNoSessionRows() throws Exception {
        try (Store store = TestStores.open(dir, "two")) {
            session(store, Instant.parse("2026-11-26T01:00:00Z"));
            session(store, Instant.parse("2026-11-20T01:00:00Z"), "s-older");
            List<SessionRows.Row> rows = SessionRows.compute(store).rows();
            int sid = HfSchema.EXPORT.indexOf(HfSchema.EXPORT.stream()
                    .filter(c -> c.name().equals("isobench_session_id")).findFirst().orElseThrow());
            assertThat(rows).hasSize(3).allMatch(r -> SESSION.equals(r.values()[sid]));
            Path out = dir.resolve("out");
            HfExporter.export(store, out);
            assertThat(read(out.resolve(HfExporter.PARQUET))).extracting(r -> r.get("isobench_session_id"))
                    .containsOnly(SESSION).hasSize(3);
            // the card states what the rows' intervals do not cover, with the spread the two sessions measured (the
            // same runs twice: none); failed and incorrect agents are outcomes, never pooled
            assertThat(SessionRows.compute(store).between().groups()).extracting(g -> g.comparison())
                    .containsExactly("human vs baseline", "agent:fast vs baseline");
            assertThat(Files.readString(out.resolve(HfExporter.CARD))).contains("- **Between sessions.**"
                    + " A session's confidence interval describes that session only and does not cover"
                    + " session-to-session variation, measured here as a between-session spread (τ, random effects) of"
                    + " ±0.0 % over 2 comparisons of 1 task measured in 2 sessions on the same hardware.\n");
            // the card's leaderboard states the false wins the analysis' leaderboard simulates, never the nominal 2.5 %
            // per test for an agent measured here
            Map<String, Double> falseWins = SessionRows.compute(store).falseWins();
            assertThat(falseWins).isNotEmpty();
            String card = Files.readString(out.resolve(HfExporter.CARD));
            for (Map.Entry<String, Double> e : falseWins.entrySet()) {
                assertThat(card).contains(String.format(Locale.ROOT, "| %.2f (of ", e.getValue()));
            }
            assertThat(card).doesNotContain("nominal floor").contains("False wins expected by chance = the sum over");
        }
        try (Store empty = TestStores.open(dir, "empty")) {
            assertThat(SessionRows.compute(empty).rows()).isEmpty();
        }
    }
}
