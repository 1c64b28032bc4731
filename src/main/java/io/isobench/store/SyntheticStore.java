package io.isobench.store;

import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/**
 * Fills a store with synthetic runs that look like real ones, for performance tests and benchmarks of readers
 * (tables, reports, exports): per task a baseline, a human and an agent arm with {@code roundsPerArm} rounds each;
 * serving, throughput and latency modes with their primary metric and a few more; about 6 % failed runs with a
 * failure category; every fifth task a single-round legacy row (kind LEGACY, pipeline modal or docker_3way).
 *
 * <p>Generated inside the database ({@code INSERT … SELECT … FROM generate_series}), the same SQL on DuckDB and
 * PostgreSQL. Deterministic for a seed; regenerating with the same seed replaces that seed's runs.
 */
public final class SyntheticStore {

    /** What was generated and how long it took. */
    public record Result(long tasks, long runs, long metrics, long elapsedMs) {
    }

    private SyntheticStore() {
    }

    /**
     * @param tasks        number of tasks (at most 10,000,000)
     * @param roundsPerArm measured rounds per arm (legacy tasks get one)
     * @param seed         varies ids, commits and values
     */
    public static Result generate(Store store, int tasks, int roundsPerArm, long seed) {
        if (tasks < 1 || tasks > 10_000_000) {
            throw new IllegalArgumentException("tasks (" + tasks + ") must be between 1 and 10000000");
        }
        if (roundsPerArm < 1) {
            throw new IllegalArgumentException("roundsPerArm (" + roundsPerArm + ") must be >= 1");
        }
        if (!(store instanceof JdbcStore js)) {
            throw new IllegalArgumentException("synthetic data needs a store opened with Stores.open");
        }
        long s = Math.floorMod(seed, 1_000_003L);
        String prefix = "syn-" + s + "-";
        char letter = "abcdef".charAt((int) (s % 6));
        long start = System.nanoTime();
        // DuckDB builds an index over a loaded table several times faster than it maintains it row by row; a
        // DROP INDEX inside the loading transaction does not help, so indexes go before and come back after it.
        List<String> indexes = js.dialect() == JdbcStore.Dialect.DUCKDB ? dropIndexes(js) : List.of();
        long[] counts;
        try {
            counts = js.withConnection("cannot generate synthetic runs", true, c -> {
                try (Statement st = c.createStatement()) {
                    st.executeUpdate("DELETE FROM metric WHERE run_id LIKE '" + prefix + "%'");
                    st.executeUpdate("DELETE FROM run WHERE run_id LIKE '" + prefix + "%'");
                    st.executeUpdate(fill(TASKS_SQL, tasks, roundsPerArm, s, prefix, letter));
                    long runs = st.executeUpdate(fill(RUNS_SQL, tasks, roundsPerArm, s, prefix, letter));
                    st.executeUpdate(fill(LEGACY_EXTRA_SQL, tasks, roundsPerArm, s, prefix, letter));
                    long metrics = st.executeUpdate(fill(METRICS_SQL, tasks, roundsPerArm, s, prefix, letter));
                    return new long[] {runs, metrics};
                }
            });
        } finally {
            js.withConnection("cannot recreate indexes", false, c -> {
                try (Statement st = c.createStatement()) {
                    for (String sql : indexes) {
                        st.execute(sql);
                    }
                }
                return null;
            });
        }
        return new Result(tasks, counts[0], counts[1], (System.nanoTime() - start) / 1_000_000);
    }

    /** Drops the secondary indexes of run and metric; returns the statements that recreate them. */
    private static List<String> dropIndexes(JdbcStore js) {
        return js.withConnection("cannot drop indexes", false, c -> {
            List<String> names = new ArrayList<>();
            List<String> sqls = new ArrayList<>();
            try (Statement st = c.createStatement()) {
                try (ResultSet rs = st.executeQuery("SELECT index_name, sql FROM duckdb_indexes() "
                        + "WHERE table_name IN ('run', 'metric') AND sql IS NOT NULL")) {
                    while (rs.next()) {
                        names.add(rs.getString(1));
                        sqls.add(rs.getString(2));
                    }
                }
                for (String name : names) {
                    st.execute("DROP INDEX " + name);
                }
            }
            return sqls;
        });
    }

    private static String fill(String sql, int tasks, int rounds, long s, String prefix, char letter) {
        return sql.replace("{LAST_TASK}", Integer.toString(tasks - 1))
                .replace("{LAST_ROUND}", Integer.toString(rounds - 1))
                .replace("{S}", Long.toString(s))
                .replace("{PREFIX}", prefix)
                .replace("{LETTER}", String.valueOf(letter))
                .replace("{MODELS}", MODELS);
    }

    private static final String MODELS = "CASE t % 4 WHEN 0 THEN 'meta-llama/Llama-3.1-8B-Instruct' "
            + "WHEN 1 THEN 'Qwen/Qwen2.5-7B-Instruct' WHEN 2 THEN 'mistralai/Mistral-7B-Instruct-v0.3' "
            + "ELSE 'meta-llama/Llama-3.1-70B-Instruct' END";

    /** Commit ids are hex-valid and unique per task: a letter from the seed, then the task number in 7 digits. */
    private static final String COMMIT_SHORT = "'{LETTER}' || lpad(CAST(t AS VARCHAR), 7, '0')";
    private static final String COMMIT_LONG = "substr(md5('{S}:' || CAST(t AS VARCHAR)), 1, 32)";
    private static final String MODE_NO = "CASE WHEN t % 21 < 7 THEN 0 WHEN t % 21 < 14 THEN 1 ELSE 2 END";

    private static final String TASKS_SQL = """
            INSERT INTO task (task_id, repo, commit_id, parent_commit, subject, perf_command, model, gpu_config, gpu_count)
            SELECT cs, 'vllm', cs || tail, substr(md5('parent:' || cs), 1, 40), 'Synthetic perf commit ' || CAST(t AS VARCHAR),
                   CASE mode_no WHEN 0 THEN 'vllm bench serve --model ' || model || ' --num-prompts 100'
                                WHEN 1 THEN 'vllm bench throughput --model ' || model || ' --num-prompts 1000'
                                ELSE 'vllm bench latency --model ' || model || ' --batch-size 8' END,
                   model,
                   CASE WHEN t %% 4 = 3 THEN 'H100:4' ELSE 'H100:1' END,
                   CASE WHEN t %% 4 = 3 THEN 4 ELSE 1 END
            FROM (SELECT t, %s AS cs, %s AS tail, %s AS mode_no, {MODELS} AS model
                  FROM generate_series(CAST(0 AS BIGINT), {LAST_TASK}) AS g(t)) x
            ON CONFLICT (task_id) DO NOTHING
            """.formatted(COMMIT_SHORT, COMMIT_LONG, MODE_NO);

    private static final String RUNS_SQL = """
            INSERT INTO run (%s)
            SELECT '{PREFIX}' || CAST(t AS VARCHAR) || '-' || CAST(a AS VARCHAR) || '-' || CAST(r AS VARCHAR),
                   CASE WHEN legacy THEN NULL ELSE '{PREFIX}session-' || CAST(t - t %% 10000 AS VARCHAR) END,
                   CASE WHEN legacy THEN 'LEGACY' ELSE 'MEASURED' END,
                   cs || tail, cs, agent,
                   CASE a WHEN 0 THEN 'baseline' WHEN 1 THEN 'human' ELSE 'agent:' || agent END,
                   r,
                   CASE WHEN failed THEN 'FAILED' ELSE 'SUCCESS' END,
                   CASE WHEN failed THEN CASE fc WHEN 0 THEN 'SERVER_CRASHED' WHEN 1 THEN 'GPU_OOM' WHEN 2 THEN 'TIMEOUT'
                        WHEN 3 THEN 'BUILD_FAILED' ELSE 'INFRA_TRANSIENT' END END,
                   CASE WHEN failed THEN CASE fc WHEN 0 THEN 'server exited with code 1 before serving'
                        WHEN 1 THEN 'CUDA out of memory' WHEN 2 THEN 'benchmark exceeded its time limit'
                        WHEN 3 THEN 'building the engine failed' ELSE 'connection reset while downloading' END END,
                   CASE WHEN failed THEN CASE fc WHEN 0 THEN 'RuntimeError: Engine core initialization failed.'
                        WHEN 1 THEN 'torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB'
                        WHEN 2 THEN 'timeout after 1800 s'
                        WHEN 3 THEN 'error: command ''/usr/bin/gcc'' failed with exit code 1'
                        ELSE 'ConnectionResetError: [Errno 104] Connection reset by peer' END END,
                   CASE WHEN failed THEN fc = 4 END,
                   CASE mode_no WHEN 0 THEN 'serving' WHEN 1 THEN 'throughput' ELSE 'latency' END,
                   model,
                   CASE WHEN NOT legacy THEN 'native' WHEN t %% 10 = 0 THEN 'modal' ELSE 'docker_3way' END,
                   NULL,
                   CASE mode_no WHEN 0 THEN 'tpot_ms_mean' WHEN 1 THEN 'total_throughput_tok_s' ELSE 'latency_ms_avg' END,
                   CASE WHEN failed THEN NULL ELSE
                        CASE mode_no WHEN 0 THEN (8 + (t %% 40) * 0.5) * CASE a WHEN 0 THEN 1.0 WHEN 1 THEN 0.9 ELSE 0.88 + (t %% 10) * 0.012 END
                                     WHEN 1 THEN (2000 + (t %% 50) * 100) * CASE a WHEN 0 THEN 1.0 WHEN 1 THEN 1.1 ELSE 0.98 + (t %% 10) * 0.02 END
                                     ELSE (500 + (t %% 60) * 20) * CASE a WHEN 0 THEN 1.0 WHEN 1 THEN 0.92 ELSE 0.9 + (t %% 10) * 0.01 END
                        END * (1 + (u2 - 0.5) * 0.04) END,
                   CASE WHEN legacy THEN 'raw' ELSE 'measured' END,
                   CASE mode_no WHEN 0 THEN '{"requests":100,"input_tokens":512,"output_tokens":128,"seed":0,"dataset":"random"}'
                                WHEN 1 THEN '{"requests":1000,"input_tokens":1024,"output_tokens":256,"seed":0,"dataset":"random"}'
                                ELSE '{"batch_size":8,"input_tokens":128,"output_tokens":128}' END,
                   TIMESTAMP '2026-01-01 00:00:00' + INTERVAL '1 second' * (t * 600 + a * 150 + r * 40),
                   60000 + u1 * 60000,
                   '0.6.' || CAST(t %% 6 AS VARCHAR),
                   'synthetic:' || cs,
                   CASE mode_no WHEN 0 THEN '["vllm","bench","serve","--model","' || model || '","--num-prompts","100"]'
                                WHEN 1 THEN '["vllm","bench","throughput","--model","' || model || '","--num-prompts","1000"]'
                                ELSE '["vllm","bench","latency","--model","' || model || '","--batch-size","8"]' END,
                   NULL,
                   CASE WHEN legacy THEN 'synthetic legacy row' END,
                   '{"synthetic":true}'
            FROM (
                SELECT t, a, r, t %% 5 = 0 AS legacy, %s AS cs, %s AS tail, %s AS mode_no, {MODELS} AS model,
                       CASE t %% 3 WHEN 0 THEN 'claude_code' WHEN 1 THEN 'codex' ELSE 'trae' END AS agent,
                       ((t * 7919 + a * 104729 + r * 1299709 + {S}) %% 10007) < 600 AS failed,
                       CAST((t * 7919 + a * 104729 + r * 1299709 + {S}) %% 10007 AS DOUBLE PRECISION) / 10007.0 AS u1,
                       CAST((t * 15485863 + a * 49979687 + r * 32452843 + {S} * 7) %% 9973 AS DOUBLE PRECISION) / 9973.0 AS u2,
                       (t * 31 + a * 17 + r * 13) %% 5 AS fc
                FROM generate_series(CAST(0 AS BIGINT), {LAST_TASK}) AS g1(t)
                CROSS JOIN generate_series(CAST(0 AS BIGINT), 2) AS g2(a)
                CROSS JOIN generate_series(CAST(0 AS BIGINT), {LAST_ROUND}) AS g3(r)
            ) x
            WHERE NOT (legacy AND r > 0)
            """.formatted(RunRows.RUN_COLUMNS, COMMIT_SHORT, COMMIT_LONG, MODE_NO);

    /**
     * Legacy rows carry their primary value per mode the way the legacy importer stores it ({@code primary_by_mode}
     * in extra_json, the value as the decimal text "as parsed"), so the 3-way rules read them like imported data.
     */
    private static final String LEGACY_EXTRA_SQL = """
            UPDATE run SET extra_json = '{"synthetic":true,"path":"synthetic/' || commit_short || '/' || arm
                   || '","primary_by_mode":{"' || mode || '":{"value":"'
                   || CAST(round(CAST(primary_value AS NUMERIC), 4) AS VARCHAR) || '","origin":"raw"}}}'
            WHERE run_id LIKE '{PREFIX}%' AND kind = 'LEGACY' AND primary_value IS NOT NULL
            """;

    private static final String METRICS_SQL = """
            INSERT INTO metric (run_id, seq, name, value, unit, better)
            SELECT r.run_id, m.seq, m.name,
                   CASE WHEN m.inv = 1 THEN CAST(m.factor AS DOUBLE PRECISION) / r.primary_value
                        ELSE CAST(m.factor AS DOUBLE PRECISION) * r.primary_value END,
                   m.unit, m.better
            FROM run r
            JOIN (VALUES
                ('serving', 0, 'tpot_ms_mean', 1.0, 0, 'ms', 'lower'),
                ('serving', 1, 'ttft_ms_mean', 12.0, 0, 'ms', 'lower'),
                ('serving', 2, 'itl_ms_mean', 0.98, 0, 'ms', 'lower'),
                ('serving', 3, 'ttft_ms_p99', 31.0, 0, 'ms', 'lower'),
                ('serving', 4, 'output_throughput_tok_s', 250000.0, 1, 'tok/s', 'higher'),
                ('serving', 5, 'request_throughput_rps', 1000.0, 1, 'req/s', 'higher'),
                ('throughput', 0, 'total_throughput_tok_s', 1.0, 0, 'tok/s', 'higher'),
                ('throughput', 1, 'output_throughput_tok_s', 0.2, 0, 'tok/s', 'higher'),
                ('throughput', 2, 'request_throughput_rps', 0.0008, 0, 'req/s', 'higher'),
                ('latency', 0, 'latency_ms_avg', 1.0, 0, 'ms', 'lower'),
                ('latency', 1, 'latency_ms_p50', 0.99, 0, 'ms', 'lower'),
                ('latency', 2, 'latency_ms_p90', 1.08, 0, 'ms', 'lower'),
                ('latency', 3, 'latency_ms_p99', 1.2, 0, 'ms', 'lower')
            ) AS m(mode, seq, name, factor, inv, unit, better) ON m.mode = r.mode
            WHERE r.run_id LIKE '{PREFIX}%' AND r.primary_value IS NOT NULL
            """;
}
