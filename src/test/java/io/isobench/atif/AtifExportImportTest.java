package io.isobench.atif;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.isobench.AtifStores;
import io.isobench.AttemptSessions;
import io.isobench.IsobenchException;
import io.isobench.store.RunFilter;
import io.isobench.store.RunRecord;
import io.isobench.store.Store;
import io.isobench.store.Stores;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@code agents export --format atif} and {@code agents import}: an old store's pre-ATIF trajectories are converted
 * on export and valid; Harbor's two fixtures import (v1.7 and v1.6), stored byte for byte with their source, and
 * export back byte for byte; an invalid file stops the import with one line naming the file, the error's path and
 * the fix, and nothing is stored.
 */
class AtifExportImportTest {

    static final Path HARBOR = AtifValidatorTest.HARBOR;
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;

    private static List<RunRecord> attempts(Store store) {
        List<RunRecord> runs = new ArrayList<>();
        store.forEachRun(RunFilter.runs().ofKinds(Set.of(RunRecord.RunKind.AGENT_ATTEMPT)), runs::add);
        return runs;
    }

    @Test
    void anOldStoresTrajectoriesAreConvertedOnExportAndValid() throws Exception {
        try (Store store = Stores.open(dir.resolve("old.duckdb").toString())) {
            AttemptSessions.attempts(store, Instant.parse("2026-11-26T09:00:00Z"));
            List<AtifExport.Written> w = AtifExport.export(store, AttemptSessions.AGENTS_SESSION, null,
                    dir.resolve("out"));
            assertThat(w).extracting(x -> x.file().getFileName().toString()).containsExactly(
                    "agents-run-1_tpot_a_1.trajectory.json", "agents-run-1_tpot_a_2.trajectory.json",
                    "agents-run-1_tpot_a_3.trajectory.json", "agents-run-1_tpot_b_1.trajectory.json");
            assertThat(w).allMatch(AtifExport.Written::converted);
            for (AtifExport.Written x : w) {
                AtifStores.assertValid(Files.readString(x.file()));
            }
            JsonNode d = JSON.readTree(w.get(1).file().toFile());
            assertThat(d.path("session_id").asText()).isEqualTo(AttemptSessions.AGENTS_SESSION);
            JsonNode call = d.path("steps").get(1).path("tool_calls").get(0);
            assertThat(call.path("arguments").path("command").asText()).isEqualTo("cat toyllm/engine.py");
            assertThat(d.path("steps").get(1).path("message").asText()).contains(AttemptSessions.HOSTILE);
            assertThat(d.path("final_metrics").has("total_turns")).isFalse();
            assertThat(d.path("final_metrics").path("extra").path("isobench_total_turns").asInt()).isEqualTo(2);
            assertThat(d.path("final_metrics").path("total_steps").asInt()).isEqualTo(2);

            assertThat(AtifExport.export(store, null, "tpot", dir.resolve("all"))).hasSize(4);
            assertThatThrownBy(() -> AtifExport.export(store, "agents-nope", null, dir.resolve("none")))
                    .isInstanceOf(IsobenchException.BadInput.class).hasMessageContaining("no agent attempt in"
                            + " session agents-nope");
            assertThat(dir.resolve("none")).doesNotExist();
        }
    }

    @Test
    void harborsFixturesImportByteForByteAndExportBack() throws Exception {
        Path v17 = HARBOR.resolve("hello-world-invalid-json.trajectory.json");
        Path v16 = HARBOR.resolve("hello-world-timeout.trajectory.json");
        try (Store store = Stores.open(dir.resolve("import.duckdb").toString())) {
            AtifImport.Result r = AtifImport.importFiles(store, List.of(v17, v16), "tpot", null);
            assertThat(r.sessionId()).startsWith("agents-import-");
            assertThat(r.attempts()).extracting(AtifImport.Imported::runId).containsExactly(
                    r.sessionId() + "/tpot/terminus-2@1", r.sessionId() + "/tpot/terminus-2@2");
            List<RunRecord> runs = attempts(store);
            assertThat(runs).hasSize(2);
            RunRecord first = runs.stream().filter(x -> x.runId().endsWith("@1")).findFirst().orElseThrow();
            JsonNode d = first.details().section("agent_attempt");
            byte[] file = Files.readAllBytes(v17);
            assertThat(d.path("status").asText()).isEqualTo("imported");
            assertThat(d.path("patch_sha256").isNull()).isTrue();
            assertThat(d.path("source_sha256").asText()).isEqualTo(sha256(file));
            assertThat(d.path("trajectory_sha256").asText()).as("no secret in it: stored byte for byte")
                    .isEqualTo(sha256(file));
            assertThat(store.artifact(d.path("trajectory_sha256").asText()).orElseThrow()).isEqualTo(file);
            assertThat(d.path("schema_version").asText()).isEqualTo("ATIF-v1.7");
            assertThat(d.path("model").asText()).isEqualTo("openai/gpt-4o");
            JsonNode fm = JSON.readTree(file).path("final_metrics");
            assertThat(d.path("tokens_in").asLong()).isEqualTo(fm.path("total_prompt_tokens").asLong());
            assertThat(d.path("cost_usd").asDouble()).isEqualTo(fm.path("total_cost_usd").asDouble());
            assertThat(d.path("turns").asInt()).isEqualTo(4);
            assertThat(first.arm().label()).isEqualTo("agent:terminus_2@1");
            assertThat(AtifStores.assertEveryTrajectoryValid(store)).isEqualTo(2);

            List<AtifExport.Written> w = AtifExport.export(store, r.sessionId(), null, dir.resolve("back"));
            assertThat(w).noneMatch(AtifExport.Written::converted);
            assertThat(Files.readAllBytes(w.get(0).file())).isEqualTo(file);
            assertThat(Files.readAllBytes(w.get(1).file())).isEqualTo(Files.readAllBytes(v16));

            AtifImport.Result named = AtifImport.importFiles(store, List.of(v17), null, "harbor-t2");
            assertThat(named.attempts().get(0).runId()).isEqualTo(named.sessionId() + "/imported/harbor-t2@1");
        }
    }

    @Test
    void anInvalidFileStopsTheImportAndNothingIsStored() throws Exception {
        Path good = HARBOR.resolve("hello-world-invalid-json.trajectory.json");
        Path bad = dir.resolve("bad.trajectory.json");
        Files.writeString(bad, Files.readString(good).replace("\"source\": \"agent\"", "\"source\": \"assistant\""));
        Path notJson = dir.resolve("broken.json");
        Files.writeString(notJson, "{\"steps\": [");
        try (Store store = Stores.open(dir.resolve("bad.duckdb").toString())) {
            assertThatThrownBy(() -> AtifImport.importFiles(store, List.of(good, bad), null, null))
                    .isInstanceOf(IsobenchException.BadInput.class)
                    .hasMessageStartingWith(bad + ": not valid ATIF: trajectory.steps.1.source: Input should be"
                            + " 'system', 'user' or 'agent', got 'assistant' (and ")
                    .hasMessageContaining("fix: correct the document")
                    .hasMessageContaining("nothing was imported")
                    .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n"));
            assertThatThrownBy(() -> AtifImport.importFiles(store, List.of(notJson), null, null))
                    .hasMessageStartingWith(notJson + ": not valid ATIF: trajectory: Invalid JSON");
            assertThat(attempts(store)).isEmpty();
            assertThat(store.sessions()).isEmpty();
        }
    }

    private static String sha256(byte[] b) throws Exception {
        return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(b));
    }
}
