package io.isobench.task;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * {@code isobench tasks import}: a suite from ISO-Bench data — one task per commit with its commit, parent (when the
 * data has it), perf_command, model, mode label and GPU count ({@code gpu_config}). Commands are kept verbatim, bad
 * ones included: lint reports them and the planner does not run them.
 */
public final class TaskImport {

    public static final String DEFAULT_REPO = "https://github.com/vllm-project/vllm";
    private static final Set<String> LABELS = Set.of("serving", "throughput", "latency", "prefix_caching", "standalone");

    /**
     * @param suite       the imported suite (no file yet; engine repo as given)
     * @param source      the data file
     * @param agentsSeen  agent names in the data (their patches are not in the table, so no agent arms are made)
     * @param notes       rows skipped and why
     */
    public record Result(Suite suite, Path source, List<String> agentsSeen, List<String> notes) {
        public List<TaskSpec> tasks() {
            return suite.tasks();
        }

        public long notRunnable() {
            return suite.tasks().stream().filter(t -> t.parsedCommand().hasErrors()).count();
        }
    }

    private TaskImport() {
    }

    public static Result fromIsoBench(Path file, String repo) {
        List<IsoBenchRows.Row> rows = IsoBenchRows.read(file);
        List<TaskSpec> tasks = new ArrayList<>();
        Set<String> ids = new HashSet<>();
        Map<String, String> agents = new LinkedHashMap<>();
        List<String> notes = new ArrayList<>();
        for (IsoBenchRows.Row r : rows) {
            if (!IsoBenchRows.blank(r.agentName())) {
                agents.putIfAbsent(io.isobench.Arm.normalizeAgent(r.agentName()), r.agentName().trim());
            }
            if (IsoBenchRows.blank(r.commit())) {
                notes.add(file + ":" + r.line() + ": skipped: no commit_hash");
                continue;
            }
            String commit = r.commit().trim();
            String id = commit.substring(0, Math.min(8, commit.length()));
            for (int k = 2; !ids.add(id); k++) {
                id = commit.substring(0, Math.min(8, commit.length())) + "-" + k;
            }
            String label = r.modeLabel() == null ? null : r.modeLabel().trim().toLowerCase(Locale.ROOT);
            if (label != null && !LABELS.contains(label)) {
                if (!label.isEmpty()) {
                    notes.add(file + ":" + r.line() + ": benchmark_mode '" + r.modeLabel() + "' dropped (not a mode)");
                }
                label = null;
            }
            String model = PerfCommand.usable(r.model()) ? r.model().trim() : null;
            String perf = IsoBenchRows.blank(r.perfCommand()) ? null : r.perfCommand();
            String parent = IsoBenchRows.blank(r.parentCommit()) ? null : r.parentCommit().trim();
            tasks.add(new TaskSpec(id, new TaskSpec.Commits(commit, parent), new TaskSpec.Workload(perf, model, label,
                    null), new TaskSpec.Limits(r.gpus(), null), null, null, 0));
        }
        EngineSpec engine = new EngineSpec(repo, EngineSpec.looksLikeUrl(repo) ? null
                : Path.of(repo).toAbsolutePath().normalize(), "vllm");
        Suite suite = Suite.imported(engine, tasks);
        return new Result(suite, file, List.copyOf(agents.values()), notes);
    }
}
