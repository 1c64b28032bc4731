package io.isobench.store;

import io.isobench.IsobenchException;
import io.isobench.parse.Better;
import io.isobench.parse.Metric;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.function.Function;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Behaviour every store backend must have; subclasses say where the store lives. */
abstract class StoreContract {

    /** A spec for a fresh, empty store (a new file, or a new database). */
    abstract String freshSpec() throws Exception;

    protected String spec;
    protected Store store;

    @BeforeEach
    void openStore() throws Exception {
        spec = freshSpec();
        store = Stores.open(spec);
    }

    @AfterEach
    void closeStore() {
        if (store != null) {
            store.close();
        }
    }

    static RunRecord run(String id, String commit, String agent, String arm, int round, RunRecord.RunKind kind,
                         String pipeline, List<Metric> metrics) {
        return RunRecord.builder(id)
                .session("s1")
                .kind(kind)
                .commit(commit, commit.substring(0, 8))
                .agent(agent)
                .armLabel(arm)
                .round(round)
                .status(RunRecord.RunStatus.SUCCESS)
                .modeLabel("serving")
                .model("m")
                .pipelineLabel(pipeline)
                .primary("tpot_ms_mean", metrics.isEmpty() ? null : metrics.get(0).value(), "measured")
                .metrics(metrics)
                .build();
    }

    static RunRecord fullRun() {
        return RunRecord.builder("run-full")
                .session("sess-1")
                .kind(RunRecord.RunKind.LEGACY)
                .commit("0123456789abcdef0123456789abcdef01234567", "01234567")
                .agent("Claude-Code")
                .armLabel("agent:Claude-Code")
                .round(2)
                .status(RunRecord.RunStatus.FAILED)
                .failure(new RunRecord.FailureInfo("GPU_OOM", "CUDA out of memory", "line 1\nline 2 'quoted' \"x\"", true))
                .modeLabel("serving")
                .model("meta-llama/Llama-3.1-8B-Instruct")
                .pipelineLabel("docker_3way")
                .source("src-1")
                .primary("tpot_ms_mean", 12.5, "raw")
                .workload("{\"requests\":100}")
                .startedAt(Instant.parse("2026-01-02T03:04:05.123456Z"))
                .durationMs(61234.5)
                .engineVersion("0.6.3")
                .envRef("wheel:abc")
                .argvJson("[\"vllm\",\"bench\"]")
                .logArtifact("ab".repeat(32))
                .notes("recovered; corrected")
                .detailsJson("{\"subject\":\"é ünïcode ✓\"}")
                .metrics(List.of(new Metric("tpot_ms_mean", 12.5, "ms", Better.LOWER), new Metric("ttft_ms_p99", 230.25, "ms", Better.LOWER), new Metric("output_throughput_tok_s", 1500.0, "tok/s", Better.HIGHER), new Metric("completed_requests", 100, "requests", Better.NONE)))
                .build();
    }

    private List<RunRecord> all(RunFilter filter) {
        List<RunRecord> out = new ArrayList<>();
        store.forEachRun(filter, out::add);
        return out;
    }

    @Test
    void reopeningAppliesNoMigrationTwiceAndKeepsData() {
        store.putTask(TaskRecord.builder("t1").repo("vllm").commit("abc", null).build());
        store.close();
        store = Stores.open(spec);
        store = reopen();
        assertThat(store.task("t1")).isPresent();
        JdbcStore js = (JdbcStore) store;
        int rows = js.withConnection("count", false, c -> {
            try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery("SELECT count(*), max(version) FROM schema_version")) {
                rs.next();
                assertThat(rs.getInt(2)).isEqualTo(Stores.schemaVersion());
                return rs.getInt(1);
            }
        });
        assertThat(rows).isEqualTo(Stores.schemaVersion());
    }

    private Store reopen() {
        store.close();
        return Stores.open(spec);
    }

    @Test
    void schemaNewerThanCodeIsRefused() {
        ((JdbcStore) store).withConnection("bump", false, c -> {
            try (PreparedStatement ps = c.prepareStatement(
                    "INSERT INTO schema_version (version, description, applied_at) VALUES (?, 'future', ?)")) {
                ps.setInt(1, Stores.schemaVersion() + 1);
                StoreSql.setInstant(ps, 2, Instant.now());
                return ps.executeUpdate();
            }
        });
        store.close();
        store = null;
        assertThatThrownBy(() -> Stores.open(spec))
                .isInstanceOf(IsobenchException.BadInput.class)
                .hasMessageContaining("newer than this isobench supports")
                .hasMessageContaining("upgrade isobench");
    }

    @Test
    void runRoundTripsWithEveryField() {
        RunRecord r = fullRun();
        store.putRun(r);
        RunRecord back = store.run("run-full").orElseThrow();
        // agent names (also in agent arm labels) are stored normalised: - and _ interchangeable, lower case
        RunRecord expected = RunRecord.builder(r.runId())
                .session(r.sessionId())
                .kind(r.kind())
                .commit(r.commit(), r.commitShort())
                .agent("claude_code")
                .armLabel("agent:claude_code")
                .round(r.round())
                .status(r.status())
                .failure(r.failure())
                .mode(r.mode())
                .model(r.model())
                .pipeline(r.pipeline())
                .source(r.sourceId())
                .primary(r.primaryMetric(), r.primaryValue(), r.primaryOrigin())
                .workload(r.workload())
                .startedAt(r.startedAt())
                .durationMs(r.durationMs())
                .engineVersion(r.engineVersion())
                .envRef(r.envRef())
                .argvJson(r.argvJson())
                .logArtifact(r.logArtifact())
                .notes(r.notes())
                .details(r.details())
                .metrics(r.metrics())
                .build();
        assertThat(back).isEqualTo(expected);
        assertThat(all(RunFilter.all())).containsExactly(expected);
        assertThat(store.countRuns()).isEqualTo(1);
    }

    @Test
    void nullableFieldsRoundTripAsNull() {
        RunRecord r = RunRecord.builder("bare")
                .kind(RunRecord.RunKind.MICRO)
                .armLabel("baseline")
                .status(RunRecord.RunStatus.NOT_RUN)
                .build();
        store.putRun(r);
        assertThat(store.run("bare")).contains(r);
    }

    @Test
    void putRunReplacesTheRunAndItsMetrics() {
        store.putRun(run("r1", "aaaaaaaa11", "x", "baseline", 0, RunRecord.RunKind.MEASURED, "native",
                List.of(Metric.of("tpot_ms_mean", 10), Metric.of("ttft_ms_mean", 50))));
        RunRecord second = run("r1", "aaaaaaaa11", "x", "baseline", 0, RunRecord.RunKind.MEASURED, "native",
                List.of(Metric.of("tpot_ms_mean", 9)));
        store.putRun(second);
        assertThat(store.countRuns()).isEqualTo(1);
        assertThat(store.run("r1")).contains(second);
        store.putRuns(List.of(
                run("r1", "aaaaaaaa11", "x", "human", 0, RunRecord.RunKind.MEASURED, "native", List.of(Metric.of("tpot_ms_mean", 1))),
                run("r2", "aaaaaaaa11", "x", "human", 1, RunRecord.RunKind.MEASURED, "native", List.of()),
                run("r1", "aaaaaaaa11", "x", "human", 0, RunRecord.RunKind.MEASURED, "native", List.of(Metric.of("tpot_ms_mean", 2)))));
        assertThat(store.countRuns()).isEqualTo(2);
        assertThat(store.run("r1").orElseThrow().metrics()).containsExactly(Metric.of("tpot_ms_mean", 2));
    }

    @Test
    void forEachRunOrdersAndFilters() {
        List<RunRecord> runs = List.of(
                run("a", "bbbbbbbb00", "claude_code", "human", 1, RunRecord.RunKind.MEASURED, "native", List.of(Metric.of("tpot_ms_mean", 1))),
                run("b", "aaaaaaaa00", "claude_code", "human", 0, RunRecord.RunKind.LEGACY, "modal", List.of()),
                run("c", "aaaaaaaa00", "codex", "baseline", 0, RunRecord.RunKind.LEGACY, "docker_3way", List.of(Metric.of("tpot_ms_mean", 3))),
                run("d", "bbbbbbbb00", "claude-code", "human", 0, RunRecord.RunKind.MEASURED, "native", List.of()),
                run("e", "aaaaaaaa00", "codex", "agent:codex", 0, RunRecord.RunKind.LEGACY, "docker_3way", List.of()),
                run("f", "bbbbbbbb00", "claude_code", "baseline", 10, RunRecord.RunKind.MEASURED, "native",
                        List.of(Metric.of("tpot_ms_mean", 5), Metric.of("itl_ms_p99", 7))),
                run("g", "bbbbbbbb00", "claude_code", "baseline", 2, RunRecord.RunKind.MEASURED, "native", List.of()));
        store.putRuns(runs);
        assertThat(all(RunFilter.all())).extracting(RunRecord::runId).containsExactly("e", "c", "b", "g", "f", "d", "a");
        assertThat(all(new RunFilter("CLAUDE-code", null, null, true))).extracting(RunRecord::runId)
                .containsExactly("b", "g", "f", "d", "a");
        assertThat(all(new RunFilter(null, EnumSet.of(RunRecord.RunKind.LEGACY), null, true)))
                .extracting(RunRecord::runId).containsExactly("e", "c", "b");
        assertThat(all(new RunFilter(null, Set.of(), null, true))).isEmpty();
        assertThat(all(new RunFilter(null, null, "nope", true))).isEmpty();
        assertThat(all(new RunFilter(null, null, "s1", true))).hasSize(7);
        RunRecord f = all(RunFilter.all()).stream().filter(r -> r.runId().equals("f")).findFirst().orElseThrow();
        assertThat(f.metrics()).containsExactly(Metric.of("tpot_ms_mean", 5), Metric.of("itl_ms_p99", 7));
        assertThat(all(new RunFilter(null, null, null, false))).allSatisfy(r -> assertThat(r.metrics()).isEmpty())
                .hasSize(7);
    }

    @Test
    void sinkMayUseTheStoreWhileRunsStream() {
        List<RunRecord> runs = new ArrayList<>();
        for (int i = 0; i < 5000; i++) {
            runs.add(run(String.format("r%05d", i), String.format("%08x00", i), "x", "baseline", 0,
                    RunRecord.RunKind.MEASURED, "native", List.of(Metric.of("tpot_ms_mean", i))));
        }
        store.putRuns(runs);
        long[] seen = {0};
        store.forEachRun(RunFilter.all(), r -> {
            seen[0]++;
            if (seen[0] % 1000 == 0) {
                store.putTask(TaskRecord.builder(r.commitShort()).repo("vllm").commit(r.commit(), null).build());
                assertThat(store.task(r.commitShort())).isPresent();
            }
        });
        assertThat(seen[0]).isEqualTo(5000);
        assertThat(store.tasks()).hasSize(5);
        long[] nested = {0, 0};
        store.forEachRun(new RunFilter(null, null, null, false), r -> {
            if (nested[0]++ % 2500 == 0) {
                assertThat(store.run(r.runId()).orElseThrow().metrics()).hasSize(1);
                store.forEachRun(RunFilter.all(), inner -> nested[1]++);
            }
        });
        assertThat(nested).containsExactly(5000, 10000);
    }

    @Test
    void patchArtifactsAreKeptByteForByteWhileLogsStayRedacted() {
        byte[] code = ("+\ttoken = tokenizer.decode(ids)\n+\tself.api_key = api_key\n+\f\n"
                + "+HF_TOKEN=hf_abcdefghijklmnopqrstuvwxyz0123\n+caf\u00e9\n").getBytes(StandardCharsets.ISO_8859_1);
        String patch = store.putArtifact(Store.PATCH_KIND, code);
        assertThat(patch).isEqualTo(ArtifactBytes.sha256(code));
        assertThat(store.artifact(patch)).hasValueSatisfying(b -> assertThat(b).isEqualTo(code));
        String log = store.putArtifact("log", code);
        assertThat(log).isNotEqualTo(patch);
        assertThat(store.artifact(log)).hasValueSatisfying(b -> assertThat(new String(b, StandardCharsets.ISO_8859_1))
                .doesNotContain("hf_abcdefghijklmnopqrstuvwxyz0123").doesNotContain("tokenizer.decode"));
    }

    @Test
    void artifactsAreContentAddressedStoredOnceAndWhole() {
        byte[] log = new byte[11 * 1024 * 1024 + 17];
        Random rnd = new Random(42);
        for (int i = 0; i < log.length; i++) { // text-like, partly random: compresses, but not to nothing
            log[i] = (byte) (i % 97 == 0 ? '\n' : 'a' + rnd.nextInt(20));
        }
        String sha = store.putArtifact("log", log);
        assertThat(sha).isEqualTo(ArtifactBytes.sha256(log)).hasSize(64);
        assertThat(store.putArtifact("log", log.clone())).isEqualTo(sha);
        assertThat(store.artifact(sha)).hasValueSatisfying(b -> assertThat(b).isEqualTo(log));
        String small = store.putArtifact("text", "héllo\n".getBytes(StandardCharsets.UTF_8));
        assertThat(store.artifact(small)).hasValueSatisfying(b -> assertThat(new String(b, StandardCharsets.UTF_8)).isEqualTo("héllo\n"));
        String empty = store.putArtifact("empty", new byte[0]);
        assertThat(store.artifact(empty)).hasValueSatisfying(b -> assertThat(b).isEmpty());
        assertThat(store.artifact("00".repeat(32))).isEmpty();
        int rows = ((JdbcStore) store).withConnection("count", false, c -> {
            try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery("SELECT count(*) FROM artifact")) {
                rs.next();
                return rs.getInt(1);
            }
        });
        assertThat(rows).isEqualTo(3);
    }

    @Test
    void bulkWritesSpanSeveralStatementsLastOneWinsAndRollBackTogether() {
        String kept = store.putArtifact("log", "already here".getBytes(StandardCharsets.UTF_8));
        List<Store.ArtifactInput> arts = new ArrayList<>();
        for (int i = 0; i < 450; i++) { // more than one multi-row statement
            arts.add(new Store.ArtifactInput("log", ("artifact " + i).getBytes(StandardCharsets.UTF_8)));
        }
        arts.add(new Store.ArtifactInput("log", "artifact 7".getBytes(StandardCharsets.UTF_8))); // repeated
        arts.add(new Store.ArtifactInput("log", "already here".getBytes(StandardCharsets.UTF_8)));
        List<String> shas = store.putArtifacts(arts);
        assertThat(shas).hasSize(452);
        assertThat(shas.get(450)).isEqualTo(shas.get(7));
        assertThat(shas.get(451)).isEqualTo(kept);
        assertThat(store.artifact(shas.get(449))).hasValueSatisfying(b ->
                assertThat(new String(b, StandardCharsets.UTF_8)).isEqualTo("artifact 449"));

        List<SourceRecord> sources = new ArrayList<>();
        List<TaskRecord> tasks = new ArrayList<>();
        for (int i = 0; i < 1203; i++) {
            sources.add(SourceRecord.builder(String.format("src-%05d", i)).format("R3").file("p/" + i, "a".repeat(64))
                    .agent("Claude-Code").outcome("imported", null).contentArtifact(shas.get(i % 450)).build());
            tasks.add(TaskRecord.builder(String.format("t%07d", i)).repo("vllm").commit("c" + i, null).gpus(null, i)
                    .build());
        }
        sources.add(SourceRecord.builder("src-00005").format("R6").file("p/5", "a".repeat(64)).outcome("refused", "bad")
                .build());
        tasks.add(TaskRecord.builder("t0000005").repo("vllm").commit("c5", "parent").subject("subject")
                .gpus("H100:4", 4).build());
        store.putSources(sources);
        store.putTasks(tasks);
        assertThat(store.sources()).hasSize(1203);
        assertThat(store.findSource("p/5", "a".repeat(64)).orElseThrow().outcome()).isEqualTo("refused");
        assertThat(store.findSource("p/1202", "a".repeat(64)).orElseThrow().agent()).isEqualTo("claude_code");
        assertThat(store.tasks()).hasSize(1203);
        assertThat(store.task("t0000005").orElseThrow().gpuConfig()).isEqualTo("H100:4");
        assertThat(store.task("t0001202").orElseThrow().gpuCount()).isEqualTo(1202);

        assertThatThrownBy(() -> store.inTransaction(tx -> {
            tx.putArtifacts(List.of(new Store.ArtifactInput("log", "never".getBytes(StandardCharsets.UTF_8))));
            tx.putSources(List.of(SourceRecord.builder("src-never").format("R3").file("p/never", "b".repeat(64))
                    .outcome("imported", null).build()));
            tx.putTasks(List.of(TaskRecord.builder("t-never").build()));
            throw new IllegalStateException("boom");
        })).hasMessage("boom");
        assertThat(store.findSource("p/never", "b".repeat(64))).isEmpty();
        assertThat(store.task("t-never")).isEmpty();
        assertThat(store.artifact(ArtifactBytes.sha256("never".getBytes(StandardCharsets.UTF_8)))).isEmpty();
    }

    @Test
    void transactionRollsBackEverythingWrittenInside() {
        RunRecord before = run("before", "cccccccc00", "x", "baseline", 0, RunRecord.RunKind.MEASURED, "native",
                List.of(Metric.of("tpot_ms_mean", 1)));
        store.putRun(before);
        assertThatThrownBy(() -> store.inTransaction(tx -> {
            tx.putRun(run("inside", "cccccccc00", "x", "human", 0, RunRecord.RunKind.MEASURED, "native",
                    List.of(Metric.of("tpot_ms_mean", 2))));
            tx.putRun(run("before", "cccccccc00", "x", "baseline", 0, RunRecord.RunKind.MEASURED, "native",
                    List.of(Metric.of("tpot_ms_mean", 99))));
            tx.putTask(TaskRecord.builder("t-inside").build());
            assertThat(tx.countRuns()).isEqualTo(2);
            throw new IllegalStateException("boom");
        })).hasMessage("boom");
        assertThat(store.countRuns()).isEqualTo(1);
        assertThat(store.run("before")).contains(before);
        assertThat(store.run("inside")).isEmpty();
        assertThat(store.task("t-inside")).isEmpty();
        int metricRows = ((JdbcStore) store).withConnection("count", false, c -> {
            try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery("SELECT count(*) FROM metric")) {
                rs.next();
                return rs.getInt(1);
            }
        });
        assertThat(metricRows).isEqualTo(1);

        String committed = store.inTransaction(tx -> {
            tx.putRun(run("inside", "cccccccc00", "x", "human", 0, RunRecord.RunKind.MEASURED, "native", List.of()));
            List<String> ids = new ArrayList<>();
            tx.forEachRun(RunFilter.all(), r -> ids.add(r.runId()));
            assertThat(ids).containsExactly("before", "inside");
            return "ok";
        });
        assertThat(committed).isEqualTo("ok");
        assertThat(store.countRuns()).isEqualTo(2);
    }

    @Test
    void sourcesAreFoundByPathAndHashAndRunsDeletedBySource() {
        SourceRecord s = SourceRecord.builder("src-1").format("R3").file("a/b.json", "f".repeat(64)).pipeline("modal")
                .invocationGroup("grp").agent("Claude-Code").outcome("imported", null).build();
        store.putSource(s);
        store.putSource(SourceRecord.builder("src-0").format("R6").file("a/a.json", "e".repeat(64))
                .outcome("skipped", "single version").build());
        assertThat(store.findSource("a/b.json", "f".repeat(64))).hasValueSatisfying(found -> {
            assertThat(found.sourceId()).isEqualTo("src-1");
            assertThat(found.agent()).isEqualTo("claude_code");
            assertThat(found.invocationGroup()).isEqualTo("grp");
        });
        assertThat(store.findSource("a/b.json", "0".repeat(64))).isEmpty();
        assertThat(store.sources()).extracting(SourceRecord::sourceId).containsExactly("src-0", "src-1");
        store.putSource(SourceRecord.builder("src-1").format("R3").file("a/b.json", "f".repeat(64)).pipeline("modal")
                .invocationGroup("grp").outcome("refused", "bad").build());
        assertThat(store.sources()).hasSize(2);
        assertThat(store.findSource("a/b.json", "f".repeat(64)).orElseThrow().outcome()).isEqualTo("refused");

        RunRecord fromSource = RunRecord.builder("imp-1")
                .kind(RunRecord.RunKind.LEGACY)
                .commit("dddddddd", "dddddddd")
                .agent("x")
                .armLabel("baseline")
                .status(RunRecord.RunStatus.SUCCESS)
                .pipelineLabel("modal")
                .source("src-1")
                .metrics(List.of(Metric.of("tpot_ms_mean", 4)))
                .build();
        store.putRun(fromSource);
        store.putRun(run("other", "dddddddd00", "x", "human", 0, RunRecord.RunKind.MEASURED, "native", List.of()));
        assertThat(store.deleteRunsOfSource("src-1")).isEqualTo(1);
        assertThat(all(RunFilter.all())).extracting(RunRecord::runId).containsExactly("other");
    }

    @Test
    void tasksAndSessionsRoundTrip() {
        TaskRecord t = TaskRecord.builder("8aa1c1f8").repo("vllm").commit("8aa1c1f8e1", "0000aaaa")
                .subject("Speed up x").perfCommand("vllm bench serve -tp 2").model("meta-llama/Llama-3.1-70B")
                .gpus("H100:2", 2).build();
        store.putTask(t);
        store.putTask(TaskRecord.builder("00000001").build());
        assertThat(store.task("8aa1c1f8")).contains(t);
        assertThat(store.task("missing")).isEmpty();
        assertThat(store.tasks()).extracting(TaskRecord::taskId).containsExactly("00000001", "8aa1c1f8");

        SessionRecord s = SessionRecord.builder("sess-1").time(Instant.parse("2026-11-25T10:00:00Z"), null)
                .machine("gpu-host", "EPYC", "H100 80GB / 550.54 / 12.4", "{\"gpus\":1}").suiteJson("{\"tasks\":[]}")
                .statsConfigJson("{\"rounds\":5}").seed(-42L).status("running").build();
        store.putSession(s);
        assertThat(store.session("sess-1")).contains(s);
        SessionRecord done = SessionRecord.builder("sess-1")
                .time(s.startedAt(), Instant.parse("2026-11-25T11:00:00.5Z"))
                .machine(s.host(), s.cpu(), s.gpu(), s.machineJson()).suiteJson(s.suiteJson())
                .statsConfigJson(s.statsConfigJson()).status("done").build();
        store.putSession(done);
        assertThat(store.sessions()).containsExactly(done);
    }

    @Test
    void tracksTheirCommitsAndChangesRoundTripUpsertAndOrder() {
        Instant t0 = Instant.parse("2026-11-28T10:00:00Z");
        TrackRecord track = new TrackRecord("tr-b", "engine-task", "suite", "a".repeat(40) + ".." + "b".repeat(40),
                "repo.git", 5, 3, "a".repeat(40), "command_cpu_s", "lower", "sess-track", t0, "running", "{\"k\":1}");
        store.putTrack(track);
        store.putTrack(new TrackRecord("tr-a", "a-task", null, "x..y", null, 1, 1, null, null, null, null, null,
                "done", null));
        assertThat(store.track("tr-b")).contains(track);
        assertThat(store.track("missing")).isEmpty();
        assertThat(store.tracks()).extracting(TrackRecord::trackId).containsExactly("tr-a", "tr-b");
        store.putTrack(track.withStatus("done"));
        assertThat(store.track("tr-b").orElseThrow().status()).isEqualTo("done");

        TrackCommit c0 = new TrackCommit("tr-b", 0, "a".repeat(40), null, "base <b>", true, "measured", null);
        TrackCommit c1 = new TrackCommit("tr-b", 1, "c".repeat(40), "a".repeat(40), "docs", false, "not_selected",
                null);
        TrackCommit c2 = new TrackCommit("tr-b", 2, "b".repeat(40), "c".repeat(40), "speed", true, "pending", null);
        store.putTrackCommits(List.of(c2, c0, c1));
        assertThat(store.trackCommits("tr-b")).containsExactly(c0, c1, c2);
        store.putTrackCommits(List.of(c2.withState("build_failed", "cc: error: x")));
        assertThat(store.trackCommits("tr-b").get(2).state()).isEqualTo("build_failed");
        assertThat(store.trackCommits("tr-b")).hasSize(3);
        assertThat(store.trackCommits("missing")).isEmpty();

        TrackChange cand = new TrackChange("tr-b", "engine-task", 2, "b".repeat(40), "a".repeat(40), "command_cpu_s",
                "faster", -14.5, null, null, "candidate", null, "p=0.001", 0.001, null, null, t0);
        store.putTrackChange(cand);
        TrackChange other = new TrackChange("tr-a", "a-task", 7, "y", "x", "tok_s", "none", null, null, null,
                "rejected", null, null, null, null, null, null);
        store.putTrackChange(other);
        assertThat(store.trackChanges(null)).containsExactly(other, cand);
        TrackChange confirmed = new TrackChange("tr-b", "engine-task", 2, "b".repeat(40), "a".repeat(40),
                "command_cpu_s", "faster", -14.2, -15.0, -13.4, "confirmed", "c".repeat(40), "BETTER", 0.001,
                "sess-confirm", "{\"asked\":[]}", t0.plusSeconds(60));
        store.putTrackChange(confirmed);
        assertThat(store.trackChanges("engine-task")).containsExactly(confirmed);
        assertThat(store.trackChanges("nope")).isEmpty();
    }

    @Test
    void syntheticGeneratorFillsRealisticRuns() {
        SyntheticStore.Result result = SyntheticStore.generate(store, 40, 2, 7);
        assertThat(result.runs()).isEqualTo(store.countRuns());
        assertThat(result.tasks()).isEqualTo(40);
        List<RunRecord> runs = all(RunFilter.all());
        assertThat(runs).extracting(RunRecord::kind).contains(RunRecord.RunKind.MEASURED, RunRecord.RunKind.LEGACY);
        assertThat(runs).extracting(r -> r.mode() == null ? null : r.mode().label()).contains("serving", "throughput", "latency");
        assertThat(runs).filteredOn(r -> r.status() == RunRecord.RunStatus.FAILED).isNotEmpty()
                .allSatisfy(r -> assertThat(r.failure().category()).isNotBlank());
        assertThat(runs).filteredOn(r -> r.status() == RunRecord.RunStatus.SUCCESS).isNotEmpty().allSatisfy(r -> {
            assertThat(r.primaryValue()).isPositive();
            assertThat(r.metrics()).isNotEmpty();
            assertThat(r.metrics().get(0).name()).isEqualTo(r.primaryMetric());
            assertThat(r.metrics().get(0).value()).isEqualTo(r.primaryValue());
        });
        assertThat(runs).filteredOn(r -> r.kind() == RunRecord.RunKind.LEGACY)
                .allSatisfy(r -> assertThat(Pipeline.labelOf(r.pipeline())).isNotEqualTo("native"));
        assertThat(store.tasks()).hasSize(40);
        // regenerating with the same seed replaces, it does not duplicate
        SyntheticStore.generate(store, 40, 2, 7);
        assertThat(store.countRuns()).isEqualTo(result.runs());
    }

    @Test
    void twoStoresOnOneDatabaseSeeEachOthersCommits() {
        try (Store other = Stores.open(spec)) {
            other.putRun(run("x1", "eeeeeeee00", "a", "baseline", 0, RunRecord.RunKind.MEASURED, "native",
                    List.of(Metric.of("tpot_ms_mean", 3))));
        }
        assertThat(store.run("x1")).isPresent();
        List<String> ids = new ArrayList<>();
        store.forEachRun(RunFilter.all(), r -> ids.add(r.runId()));
        assertThat(ids).containsExactly("x1");
    }

    @Test
    void failuresAndNotesAreCountedInTheDatabase() {
        RunRecord.FailureInfo oom = new RunRecord.FailureInfo("GPU_OOM", "CUDA out of memory", "torch.OutOfMemoryError", false);
        List<RunRecord> runs = new ArrayList<>();
        String[] commits = {"cccccccc00", "aaaaaaaa00", "bbbbbbbb00"};
        String[] arms = {"baseline", "human", "agent:codex"};
        for (int i = 0; i < 3; i++) {
            for (int a = 0; a < 3; a++) {
                RunRecord ok = run("f" + i + a, commits[i], "codex", arms[a], 0, RunRecord.RunKind.MEASURED, "native", List.of());
                boolean failed = a == 2 || i == 0;
                runs.add(RunRecord.builder(ok.runId())
                        .session(ok.sessionId())
                        .kind(ok.kind())
                        .commit(ok.commit(), ok.commitShort())
                        .agent(ok.agent())
                        .arm(ok.arm())
                        .status(failed ? RunRecord.RunStatus.FAILED : RunRecord.RunStatus.SUCCESS)
                        .failure(failed ? oom : null)
                        .mode(ok.mode())
                        .model(ok.model())
                        .pipeline(ok.pipeline())
                        .notes(a == 0 ? "Recovered file; status corrected" : null)
                        .build());
            }
        }
        store.putRuns(runs);
        List<Store.FailureCount> counts = store.failureCounts(RunFilter.all(), 2);
        assertThat(counts).hasSize(1);
        Store.FailureCount c = counts.get(0);
        assertThat(c.category()).isEqualTo("GPU_OOM");
        assertThat(List.of(c.baselineRuns(), c.humanRuns(), c.agentRuns())).containsExactly(1L, 1L, 3L);
        assertThat(c.exampleCommits()).containsExactly("aaaaaaaa", "bbbbbbbb");
        assertThat(c.moreCommits()).isTrue();
        assertThat(c.exampleEvidence()).isEqualTo("torch.OutOfMemoryError");
        assertThat(store.failureCounts(new RunFilter("other", null, null, false), 2)).isEmpty();
        assertThat(store.countRuns(RunFilter.all(), "STATUS CORRECTED")).isEqualTo(3);
        assertThat(store.countRuns(new RunFilter("codex", null, null, false), null)).isEqualTo(9);
        assertThat(store.countRuns(new RunFilter(null, Set.of(), null, false), null)).isZero();
    }

    @Test
    void failuresChargedToNoArmAndTheAaArmAreCountedApart() {
        RunRecord.FailureInfo harness = new RunRecord.FailureInfo("HARNESS_ERROR", "harness bug", "NameError", false);
        List<RunRecord> runs = new ArrayList<>();
        String[] arms = {"attempt", "baseline-aa", "agent:codex"};
        for (int a = 0; a < arms.length; a++) {
            RunRecord r = run("na" + a, "dddddddd00", "codex", arms[a], 0, RunRecord.RunKind.LEGACY_ATTEMPT, "modal",
                    List.of());
            runs.add(RunRecord.builder(r.runId()).kind(r.kind()).commit(r.commit(), r.commitShort()).agent(r.agent())
                    .arm(r.arm()).status(RunRecord.RunStatus.FAILED).failure(harness).pipeline(r.pipeline()).build());
        }
        store.putRuns(runs);
        Store.FailureCount c = store.failureCounts(RunFilter.all(), 2).get(0);
        assertThat(List.of(c.baselineRuns(), c.humanRuns(), c.agentRuns(), c.noArmRuns())).containsExactly(1L, 0L, 1L, 1L);
        assertThat(c.runs()).isEqualTo(3);
    }

    @Test
    void runKindsAreSetInPlaceAndScopesFilterByPipelineArmSourceAndUnnamedAgent() {
        RunRecord a = run("sc1", "eeeeeeee00", null, "agent:unknown", 0, RunRecord.RunKind.LEGACY_ATTEMPT, "modal",
                List.of());
        RunRecord b = run("sc2", "eeeeeeee00", "codex", "human", 0, RunRecord.RunKind.LEGACY, "separate", List.of());
        store.putRuns(List.of(
                RunRecord.builder(a.runId()).kind(a.kind()).commit(a.commit(), a.commitShort()).arm(a.arm())
                        .status(a.status()).pipeline(a.pipeline())
                        .details(RunDetails.of(Map.of("root_path",
                                "2026-01/omniperf_results_3way_x/logs/modal/hero_1.json"))).build(),
                RunRecord.builder(b.runId()).kind(b.kind()).commit(b.commit(), b.commitShort()).agent("codex")
                        .arm(b.arm()).status(b.status()).pipeline(b.pipeline())
                        .details(RunDetails.of(Map.of("root_path",
                                "2026-01/omniperf_resultsX3way_x/results/separate_agent/eeeeeeee_human_result.json")))
                        .build()));
        assertThat(store.setRunKinds(Map.of("sc1", RunRecord.RunKind.LEGACY_SUPERSEDED,
                "sc2", RunRecord.RunKind.LEGACY, "nope", RunRecord.RunKind.LEGACY))).isEqualTo(1);
        assertThat(store.run("sc1").orElseThrow().kind()).isEqualTo(RunRecord.RunKind.LEGACY_SUPERSEDED);
        Function<String[], List<String>> ids = scope -> {
            List<String> found = new ArrayList<>();
            store.forEachRun(RunFilter.all().within(scope[0], scope[1], scope[2]), r -> found.add(r.runId()));
            return found;
        };
        assertThat(ids.apply(new String[] {"modal", null, null})).containsExactly("sc1");
        assertThat(ids.apply(new String[] {null, "agent", null})).containsExactly("sc1");
        assertThat(ids.apply(new String[] {null, "human", null})).containsExactly("sc2");
        // '_' in a prefix is a character, not LIKE's wildcard
        assertThat(ids.apply(new String[] {null, null, "2026-01/omniperf_results_3way"})).containsExactly("sc1");
        assertThat(ids.apply(new String[] {null, null, "2026-01/omniperf_results"})).containsExactly("sc1", "sc2");
        List<String> unnamed = new ArrayList<>();
        store.forEachRun(new RunFilter("unknown", null, null, false), r -> unnamed.add(r.runId()));
        assertThat(unnamed).containsExactly("sc1");
    }

    @Test
    void runLabelsReadBackAsStoredAnUnknownPipelineIncluded() {
        store.putRun(run("lab1", "ffffffff00", "x", "baseline-aa", 0, RunRecord.RunKind.MEASURED,
                "some_future_pipeline", List.of()));
        store.putRun(run("lab2", "ffffffff00", "x", "agent:codex", 0, RunRecord.RunKind.LEGACY, "run_2026-01-18/19",
                List.of()));
        RunRecord unknown = store.run("lab1").orElseThrow();
        assertThat(unknown.pipeline().label()).isEqualTo("some_future_pipeline");
        assertThat(unknown.pipeline().id()).isEmpty();
        assertThat(unknown.arm()).isEqualTo(io.isobench.Arm.BASELINE_AA);
        assertThat(unknown.mode()).isEqualTo(io.isobench.Mode.SERVING);
        RunRecord legacy = store.run("lab2").orElseThrow();
        assertThat(legacy.pipeline()).isEqualTo(Pipeline.of(Pipeline.Id.RUN_2026_01_18_19));
        assertThat(legacy.arm()).isEqualTo(io.isobench.Arm.agent("codex"));
        store.putRun(unknown);
        assertThat(store.run("lab1").orElseThrow()).isEqualTo(unknown);
    }
}
