package io.isobench.cli;

import io.isobench.SharedData;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayInputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import java.util.zip.GZIPInputStream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 15, point 3: every shape of secret the issue lists is planted (an env recipe's HF_TOKEN and a password, an
 * {@code --api-key sk-…} in a server_command, a perf_command lint flags SECRET_IN_COMMAND, a legacy file's error
 * field, tokens in ANSI colour codes, glued to a word, JSON-escaped, a bearer header), then a session runs, the legacy
 * file is imported, and every output is taken: dry-run (text and JSON), lint, run, report (stdout, file, HTML), table,
 * HF export. A full dump of the store (every table, every column as text, artifacts decompressed) and every output
 * must hold none of them.
 */
class SecretsLeakTest {

    @TempDir
    Path dir;

    private static final String ENV_HF = "hf_EnvTokenAAbbCCddEEffGGhhIIjjKKll";
    private static final String PASSWORD = "hunter2 plain words";
    private static final String SERVER_SK = "sk-proj-ServerKey11AbCdEf22GhIjKl33MnOp";
    private static final String PERF_HF = "hf_PerfCommandZZyyXXwwVVuuTTssRRqq";
    private static final String ANSI_HF = "hf_AnsiWrappedQQppOOnnMMllKKjjIIhh";
    private static final String GLUED_HF = "hf_GluedToWordGGffEEddCCbbAAzzYYxx";
    private static final String ESCAPED_HF = "hf_JsonEscapedWWvvUUttSSrrQQppOOnn";
    private static final String BEARER = "BearerValue.9f8e7d6c5b4a";
    private static final String LEGACY_HF = "hf_LegacyErrorMMnnOOppQQrrSSttUUvv";
    private static final String LEGACY_SK = "sk-LegacyRawOutput44Qw55Er66Ty77Ui";

    /** The part of each secret that must never appear (the shapes' prefixes alone may, as in hf_***). */
    private static final List<String> SECRETS = List.of(ENV_HF.substring(3), PASSWORD, SERVER_SK.substring(8),
            PERF_HF.substring(3), ANSI_HF.substring(3), GLUED_HF.substring(3), ESCAPED_HF.substring(3), BEARER,
            LEGACY_HF.substring(3), LEGACY_SK.substring(3), "hunter2");

    private final StringBuilder outputs = new StringBuilder();

    private int cli(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int code = Main.run(new PrintWriter(out, true), new PrintWriter(err, true), args);
        outputs.append("\n$ ").append(String.join(" ", args)).append('\n').append(out).append(err);
        return code;
    }

    @Test
    void noPlantedSecretReachesTheStoreOrAnyOutput() throws Exception {
        Path repo = dir.resolve("repo");
        io.isobench.ToyRepo.build(repo);
        // JSON-escaped: the token's first letters as \\u escapes, and a token inside an escaped colour code
        String escaped = "\\\\u0068\\\\u0066\\\\u005f" + ESCAPED_HF.substring(3);
        String build = "import sys; print('\\x1b[31m" + ANSI_HF + "\\x1b[0m'); print('token" + GLUED_HF + "');"
                + " print('{\"k\": \"" + escaped + "\"}'); print('Authorization: Bearer " + BEARER + "')";
        Path suite = dir.resolve("suite.yaml");
        Files.writeString(suite, String.join("\n",
                "engine:",
                "  repo: ./repo",
                "  name: toy",
                "  build: [python3, -c, \"" + build.replace("\\", "\\\\").replace("\"", "\\\"") + "\"]",
                "tasks:",
                "  - id: srv",
                "    human_commit: task-tpot",
                "    parent_commit: baseline",
                "    mode: serving",
                "    model: toy-1m",
                "    server_command: python3 -m toyllm.entrypoints.api_server --host {host} --port {port} --model"
                        + " {model} --api-key " + SERVER_SK,
                "    perf_command: vllm bench serve --model toy-1m --dataset-name random --random-input-len 8"
                        + " --random-output-len 4 --num-prompts 2",
                "    correctness: {prompts: 1, max_tokens: 2}",
                "  - id: lat",
                "    human_commit: task-latency",
                "    parent_commit: baseline",
                "    mode: latency",
                "    perf_command: HF_TOKEN=" + PERF_HF + " python3 benchmarks/benchmark_latency.py --model toy-1m",
                "recipes:",
                "  - name: creds",
                "    env: {HF_TOKEN: " + ENV_HF + ", DB_PASSWORD: '" + PASSWORD + "'}",
                "run: {rounds: 1, seed: 1, warmup_requests: 0, timeouts: {server_start_s: 20, run_s: 60, build_s: 60}}",
                ""));

        Path legacyRoot = dir.resolve("legacy");
        Path rel = Path.of("archive/results/2026-01/omniperf_results_3way_codex/results/3476ed08_human_result.json");
        String original = Files.readString(SharedData.isobenchData().resolve(rel));
        Path legacy = legacyRoot.resolve(rel);
        Files.createDirectories(legacy.getParent());
        Files.writeString(legacy, original
                .replace("\"No metrics in output\"", "\"401 Unauthorized: \\u001b[31m" + LEGACY_HF + "\\u001b[0m\"")
                .replace("\"raw_output\": \"", "\"raw_output\": \"key " + LEGACY_SK + " "));
        assertThat(Files.readString(legacy)).contains(LEGACY_HF).contains(LEGACY_SK);

        String db = dir.resolve("store.duckdb").toString();
        String work = dir.resolve("work").toString();
        cli("tasks", "lint", suite.toString());
        cli("run", suite.toString(), "--dry-run", "--workdir", work);
        cli("run", suite.toString(), "--dry-run", "--format", "json", "--workdir", work);
        cli("--db", db, "run", suite.toString(), "--workdir", work);
        cli("--db", db, "import", "legacy", legacyRoot.toString());
        cli("--db", db, "report");
        cli("--db", db, "report", "--out", dir.resolve("out/report.md").toString());
        cli("--db", db, "report", "--format", "html", "--out", dir.resolve("out/html").toString());
        cli("--db", db, "table", "--agent", "codex", "--format", "csv");
        cli("--db", db, "export", "hf", "--out", dir.resolve("out/hf").toString());

        String all = outputs + "\n" + dumpStore(db) + "\n" + files(dir.resolve("out"));
        assertThat(all).contains("hf_***").contains("sk-***");
        for (String secret : SECRETS) {
            assertThat(all).as("secret " + secret).doesNotContain(secret);
        }
    }

    /** Every table of the DuckDB store, every column as text; artifacts decompressed. */
    private static String dumpStore(String db) throws Exception {
        StringBuilder sb = new StringBuilder();
        try (Connection c = DriverManager.getConnection("jdbc:duckdb:" + db);
             Statement st = c.createStatement()) {
            List<String> tables = new ArrayList<>();
            try (ResultSet rs = st.executeQuery("SELECT table_name FROM information_schema.tables"
                    + " WHERE table_schema = 'main'")) {
                while (rs.next()) {
                    tables.add(rs.getString(1));
                }
            }
            assertThat(tables).contains("run", "artifact", "session", "task", "source", "metric");
            for (String t : tables) {
                try (ResultSet rs = st.executeQuery("SELECT * FROM " + t)) {
                    ResultSetMetaData md = rs.getMetaData();
                    while (rs.next()) {
                        for (int i = 1; i <= md.getColumnCount(); i++) {
                            if (md.getColumnName(i).equals("compressed")) {
                                byte[] gz = rs.getBytes(i);
                                sb.append(new String(new GZIPInputStream(new ByteArrayInputStream(gz)).readAllBytes(),
                                        StandardCharsets.ISO_8859_1));
                            } else {
                                sb.append(rs.getString(i));
                            }
                            sb.append('\t');
                        }
                        sb.append('\n');
                    }
                }
            }
        }
        return sb.toString();
    }

    /** Every file written (parquet read back through DuckDB). */
    private static String files(Path root) throws Exception {
        StringBuilder sb = new StringBuilder();
        try (Stream<Path> s = Files.walk(root)) {
            for (Path p : s.filter(Files::isRegularFile).toList()) {
                if (p.toString().endsWith(".parquet")) {
                    try (Connection c = DriverManager.getConnection("jdbc:duckdb:");
                         Statement st = c.createStatement();
                         ResultSet rs = st.executeQuery("SELECT * FROM read_parquet('" + p + "')")) {
                        while (rs.next()) {
                            for (int i = 1; i <= rs.getMetaData().getColumnCount(); i++) {
                                sb.append(rs.getString(i)).append('\t');
                            }
                        }
                    }
                } else {
                    sb.append(new String(Files.readAllBytes(p), StandardCharsets.ISO_8859_1));
                }
            }
        }
        return sb.toString();
    }
}
