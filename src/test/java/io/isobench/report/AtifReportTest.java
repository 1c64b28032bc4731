package io.isobench.report;

import io.isobench.AttemptSessions;
import io.isobench.Golden;
import io.isobench.atif.AtifImport;
import io.isobench.store.Store;
import io.isobench.store.Stores;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The report reads ATIF (docs/agents.md, "ATIF trajectories"): Harbor's fixture renders with its steps, reasoning,
 * tool calls, observations (results naming no call shown as observations), tokens and cost (golden of the rendered
 * trajectory); content-part arrays read as their text, images as their path; an imported trajectory shows on its
 * task's page like isobench's own.
 */
class AtifReportTest {

    static final Path HARBOR = Path.of("src/test/resources/atif/harbor/hello-world-invalid-json.trajectory.json");

    @TempDir
    Path dir;

    @Test
    void harborsFixtureRendersAsGolden() throws Exception {
        AttemptTrajectory t = AttemptTrajectory.parse(Files.readAllBytes(HARBOR));
        assertThat(t.unreadable()).isNull();
        assertThat(t.steps()).hasSize(5);
        assertThat(t.steps().get(1).reasoning()).isNotBlank();
        assertThat(t.steps().get(2).calls()).extracting(AttemptTrajectory.ToolCall::name).containsExactly("bash_command");
        assertThat(t.steps().get(2).calls().get(0).result()).as("the result naming the call").isNotBlank();
        assertThat(t.steps().get(1).results()).as("a result naming no call").hasSize(1);
        assertThat(t.steps().get(1).costUsd()).isNotNull();
        StringBuilder b = new StringBuilder();
        AttemptSection.steps(b, t);
        Golden.check(Path.of("src/test/resources/atif/harbor/hello-world-invalid-json.report.html"), b.toString());
    }

    @Test
    void contentPartsReadAsTextAndImagePaths() {
        String doc = """
                {"schema_version": "ATIF-v1.6", "agent": {"name": "a", "version": "1"}, "steps": [
                  {"step_id": 1, "source": "user", "message": [{"type": "text", "text": "look <b>"},
                    {"type": "image", "source": {"media_type": "image/png", "path": "shots/1.png"}}]},
                  {"step_id": 2, "source": "agent", "message": "ok", "tool_calls": [{"tool_call_id": "c",
                    "function_name": "view", "arguments": {"p": 1}}], "observation": {"results": [
                    {"source_call_id": "c", "content": [{"type": "text", "text": "seen"}]}]}}]}
                """;
        AttemptTrajectory t = AttemptTrajectory.parse(doc.getBytes(StandardCharsets.UTF_8));
        assertThat(t.steps().get(0).message()).isEqualTo("look <b>\n[image: shots/1.png]");
        assertThat(t.steps().get(1).calls().get(0).result()).isEqualTo("seen");
        assertThat(t.steps().get(1).calls().get(0).arguments()).isEqualTo("{\"p\":1}");
        StringBuilder b = new StringBuilder();
        AttemptSection.steps(b, t);
        assertThat(b.toString()).contains("look &lt;b&gt;").doesNotContain("<b>");
    }

    @Test
    void anImportedTrajectoryShowsOnItsTaskPage() throws Exception {
        Instant t0 = Instant.parse("2026-11-26T10:00:00Z");
        try (Store store = Stores.open(dir.resolve("r.duckdb").toString())) {
            AttemptSessions.session(store, t0);
            AttemptSessions.attempts(store, t0.minusSeconds(3600));
            AtifImport.importFiles(store, List.of(HARBOR), "tpot", null);
            ReportScope scope = new ReportScope(null, 5.0, Instant.parse("2026-11-27T00:00:00Z"));
            try (ReportModel model = ReportModel.build(store, scope)) {
                NativeTask task = model.tasks().get(0);
                StringBuilder page = new StringBuilder();
                AttemptSection.taskHtml(page, model.attempts().ofTask("tpot"), model.trajectories(),
                        task.extra().patch, task.extra().attemptRun);
                String html = page.toString();
                assertThat(html).contains("terminus_2 attempt 1: imported", "bash_command", "openai/gpt-4o",
                        "imported from hello-world-invalid-json.trajectory.json");
                assertThat(html).doesNotContain("Trajectory unreadable");
            }
        }
    }

    @Test
    void importedTrajectoriesOfAnUnmeasuredTaskGetTheirOwnPageLinkedFromTheOverview() throws Exception {
        Path site = dir.resolve("site");
        try (Store store = Stores.open(dir.resolve("u.duckdb").toString())) {
            AtifImport.importFiles(store, List.of(HARBOR, HARBOR.resolveSibling("hello-world-timeout.trajectory.json")),
                    "hello-world", null);
            ReportScope scope = new ReportScope(null, 5.0, Instant.parse("2026-11-29T00:00:00Z"));
            try (ReportModel model = ReportModel.build(store, scope)) {
                assertThat(model.tasks()).as("no measured session").isEmpty();
                assertThat(model.unmeasuredAttempts().all()).hasSize(2);
                HtmlReport.write(model, site);
            }
        }
        String index = Files.readString(site.resolve("index.html"));
        assertThat(index).contains("2 agent attempt(s) at 1 task(s) no session measured (2 imported trajectories)",
                "href=\"attempts.html\"");
        String page = Files.readString(site.resolve("attempts.html"));
        assertThat(page).contains("Task hello-world", "terminus_2 attempt 1: imported", "terminus_2 attempt 2: imported",
                "bash_command", "imported from hello-world-timeout.trajectory.json").doesNotContain(
                "Trajectory unreadable", "No trajectory stored");
    }

    @Test
    void aStoreWithoutUnmeasuredAttemptsWritesNoAttemptsPage() throws Exception {
        Path site = dir.resolve("site0");
        try (Store store = Stores.open(dir.resolve("m.duckdb").toString())) {
            Instant t0 = Instant.parse("2026-11-26T10:00:00Z");
            AttemptSessions.session(store, t0);
            AttemptSessions.attempts(store, t0.minusSeconds(3600));
            try (ReportModel model = ReportModel.build(store, new ReportScope(null, 5.0,
                    Instant.parse("2026-11-27T00:00:00Z")))) {
                assertThat(model.unmeasuredAttempts().all()).as("every attempt is at a measured task").isEmpty();
                HtmlReport.write(model, site);
            }
        }
        assertThat(site.resolve("attempts.html")).doesNotExist();
        assertThat(Files.readString(site.resolve("index.html"))).doesNotContain("unmeasured-attempts");
    }
}
