package io.isobench.harbor;

import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * The text files of one exported Harbor task (Harbor task format schema_version 1.4, harbor 0.20.0; docs/harbor.md,
 * "What a task folder holds"): task.toml, instruction.md, the agent's and the verifier's Dockerfiles, tests/test.sh
 * and solution/solve.sh. Pure functions of the task's facts: the same facts give the same bytes.
 */
final class HarborFiles {

    /** The format version written ({@code schema_version}). */
    static final String SCHEMA_VERSION = "1.4";
    /** The citation every file carries. */
    static final String CITE = "Harbor task format schema_version 1.4, harbor 0.20.0";
    /** The verifier's suite, beside the copied suite files. */
    static final String VERIFIER_SUITE = "isobench-harbor.yaml";
    /** The collected patch, relative to the verifier's suite (the suite names it; test.sh writes it). */
    static final String PATCH = "../work/agent.diff";
    /** The uid of the agent's user (isobench's agent sandbox: never root). */
    static final int AGENT_UID = 10001;

    private HarborFiles() {
    }

    /** Harbor's {@code [task].name}: {@code isobench/<suite>__<task>}, slugged to its org/name pattern. */
    static String name(String suite, String task) {
        return "isobench/" + slug(suite + "__" + task);
    }

    /** Characters outside {@code [A-Za-z0-9._-]} become '-', '..' becomes '.', leading non-alphanumerics go. */
    static String slug(String s) {
        String out = s.replaceAll("[^A-Za-z0-9._-]", "-");
        while (out.contains("..")) {
            out = out.replace("..", ".");
        }
        out = out.replaceFirst("^[^A-Za-z0-9]+", "");
        return out.isEmpty() ? "task" : out;
    }

    static String taskToml(HarborExport.TaskFacts f, HarborExport.Options o) {
        StringBuilder b = new StringBuilder();
        b.append("# ").append(CITE).append(".\n");
        b.append("# Written by `isobench tasks export harbor` from suite ").append(f.suiteName()).append(", task ")
                .append(f.task().id()).append(" (isobench docs/harbor.md).\n");
        if (f.gpus() > 0) {
            b.append("# ").append(gpuNote(f.gpus())).append('\n');
        }
        b.append("schema_version = ").append(Toml.quote(SCHEMA_VERSION)).append('\n');
        b.append("# the agent's tree, copied into the separate verifier container at the same path\n");
        b.append("artifacts = [{ source = ").append(Toml.quote(HarborExport.REPO))
                .append(", exclude = [\".git\"] }]\n\n");
        b.append("[task]\n");
        kv(b, "name", name(f.suiteName(), f.task().id()));
        kv(b, "version", o.isobenchVersion());
        kv(b, "description", "Make " + f.metric() + " " + (f.lowerIsBetter() ? "lower" : "higher") + " on "
                + f.engine() + " at " + f.parent().substring(0, 12) + " without changing its outputs (isobench task "
                + f.task().id() + ")");
        b.append("keywords = [\"isobench\", \"performance\", ").append(Toml.quote(f.engine())).append("]\n\n");
        b.append("[metadata]\n");
        kv(b, "category", "performance");
        kv(b, "isobench_suite", f.suiteName());
        kv(b, "isobench_task", f.task().id());
        kv(b, "engine", f.engine());
        kv(b, "parent_commit", f.parent());
        kv(b, "sealed_commit", f.sealed());
        kv(b, "human_commit", f.human());
        kv(b, "metric", f.metric());
        kv(b, "better", f.lowerIsBetter() ? "lower" : "higher");
        if (f.task().perfCommand() != null) {
            kv(b, "perf_command", f.task().perfCommand());
        }
        kv(b, "prompt_sha256", f.promptSha256());
        kv(b, "prompt_template_sha256", f.templateSha256());
        kv(b, "hints", f.hints());
        kv(b, "isobench_version", o.isobenchVersion());
        kv(b, "reward", "1 iff isobench's verdict of the agent vs the baseline is better (docs/harbor.md)");
        if (f.gpus() > 0) {
            kv(b, "gpu_note", gpuNote(f.gpus()));
        }
        b.append("\n[agent]\n");
        b.append("timeout_sec = ").append(num(f.agentTimeoutS())).append('\n');
        kv(b, "user", "agent");
        b.append("\n[environment]\n");
        b.append("build_timeout_sec = 1800.0\n");
        b.append("cpus = ").append(f.cpus()).append('\n');
        b.append("memory_mb = ").append(f.memoryMb()).append('\n');
        b.append("gpus = ").append(f.gpus()).append('\n');
        b.append("\n[verifier]\n");
        b.append("timeout_sec = ").append(num(f.verifierTimeoutS())).append('\n');
        kv(b, "environment_mode", "separate");
        b.append("\n[verifier.environment]\n");
        kv(b, "network_mode", "no-network");
        b.append("build_timeout_sec = 1800.0\n");
        if (o.verifierImage() != null) {
            kv(b, "docker_image", o.verifierImage());
        }
        b.append("cpus = ").append(f.cpus()).append('\n');
        b.append("memory_mb = ").append(Math.max(f.memoryMb(), 4096)).append('\n');
        b.append("gpus = ").append(f.gpus()).append('\n');
        return b.toString();
    }

    /** The one line a GPU task carries: Harbor's docker environment refuses GPUs. */
    static String gpuNote(int gpus) {
        return "needs " + gpus + " GPU(s): Harbor's docker environment refuses GPU tasks; run it on a GPU-capable"
                + " provider (Modal, GKE, Daytona)";
    }

    /** isobench's prompt for the task, with the paths inside the container, and how the change is read. */
    static String instruction(HarborExport.TaskFacts f) {
        StringBuilder b = new StringBuilder(f.prompt().strip()).append("\n\n");
        b.append("The repository at ").append(HarborExport.REPO).append(" holds one commit. When you finish, your"
                + " change is read as the diff of ").append(HarborExport.REPO).append(" against that commit (new"
                + " files included, agent scratch such as __pycache__/ left out): do not commit.");
        if (!f.setup().isEmpty()) {
            b.append(" The benchmark's inputs were made in ").append(HarborExport.WORK).append(" when this"
                    + " environment was built.");
        }
        b.append(" A separate verifier builds and measures your change against the original commit with isobench"
                + " (interleaved rounds, an A/A arm, the outputs compared).\n");
        return b.toString();
    }

    static String environmentDockerfile(HarborExport.TaskFacts f, HarborExport.Options o, boolean setupFiles) {
        StringBuilder b = new StringBuilder();
        b.append("# ").append(CITE).append(": the agent's environment of isobench task ").append(f.task().id())
                .append(".\n");
        b.append("# It holds only the task's parent tree sealed as one commit (no history, no human commit, no"
                + " isobench)\n# and the inputs the suite's setup makes. The agent runs as user agent (uid ")
                .append(AGENT_UID).append("), never root.\n");
        b.append("FROM ").append(o.baseImage()).append('\n');
        b.append("ADD sealed.tar ").append(HarborExport.REPO).append("/\n");
        b.append("RUN ").append(sealCommands(HarborExport.REPO, f.sealed())).append('\n');
        if (setupFiles) {
            b.append("COPY suite/ ").append(HarborExport.SUITE).append("/\n");
        }
        b.append("WORKDIR ").append(HarborExport.WORK).append('\n');
        for (List<String> argv : f.setup()) {
            b.append("RUN ").append(argv.stream().map(HarborFiles::json).collect(Collectors.joining(", ", "[", "]")))
                    .append('\n');
        }
        b.append("RUN useradd -u ").append(AGENT_UID).append(" -m agent && chown -R agent:agent /app\n");
        b.append("USER agent\n");
        b.append("WORKDIR ").append(HarborExport.REPO).append('\n');
        return b.toString();
    }

    /**
     * Shell commands that turn the extracted tree in {@code dir} into the sealed commit and fail unless its id is
     * {@code sealed}: isobench's seal (one commit, identity isobench, date 2000-01-01T00:00:00Z, hooks off).
     */
    static String sealCommands(String dir, String sealed) {
        String env = "GIT_AUTHOR_NAME=isobench GIT_AUTHOR_EMAIL=isobench@localhost GIT_COMMITTER_NAME=isobench"
                + " GIT_COMMITTER_EMAIL=isobench@localhost GIT_AUTHOR_DATE=2000-01-01T00:00:00Z"
                + " GIT_COMMITTER_DATE=2000-01-01T00:00:00Z";
        return "cd " + dir + " && git init -q -b main && git -c core.hooksPath=/dev/null add -A -f && " + env
                + " git -c core.hooksPath=/dev/null -c commit.gpgsign=false commit -q --allow-empty"
                + " -m \"isobench: the task's parent tree\" && test \"$(git rev-parse HEAD)\" = " + sealed;
    }

    static String testsDockerfile(HarborExport.TaskFacts f, HarborExport.Options o) {
        return "# " + CITE + ": the separate verifier of isobench task " + f.task().id() + " (no network).\n"
                + "# isobench, the engine's history (engine.bundle), the suite and the sealed tree; test.sh at"
                + " /tests/test.sh.\n"
                + "FROM " + o.verifierBase() + "\n"
                + "RUN java -version 2>&1 | grep -Eq 'version \"(2[1-9]|[3-9][0-9])' || { echo 'the verifier base"
                + " image needs java >= 21 (isobench tasks export harbor --verifier-base)'; exit 1; }\n"
                + "COPY isobench/ /isobench/\n"
                + "COPY test.sh /tests/test.sh\n"
                + "RUN chmod 755 /tests/test.sh\n";
    }

    static String testSh(HarborExport.TaskFacts f) {
        String task = f.task().id();
        return """
                #!/bin/bash
                # %s: the verifier of isobench task %s, run by Harbor as
                # /tests/test.sh in the separate verifier container (tests/Dockerfile). Written by
                # `isobench tasks export harbor`; isobench's docs/harbor.md says what each number of reward.json means.
                #  1. rebuilds the sealed commit the agent started from and checks its id;
                #  2. collects the agent's patch: %s (copied from the agent's container without .git) against
                #     that commit, with isobench's patch rule (isobench tasks collect-patch);
                #  3. measures baseline, its A/A twin, human and the patch with isobench (rounds, correctness gate);
                #  4. writes the verdicts (isobench-verdict.json: strings) and reward.json (numbers only).
                # reward.json is written whatever happens: a failure before a verdict leaves {"reward": 0, "error": 1}.
                set -uo pipefail
                LOGS="${ISOBENCH_HARBOR_LOGS:-/logs/verifier}"
                HOME_DIR="${ISOBENCH_HARBOR_HOME:-/isobench}"
                REPO="${ISOBENCH_HARBOR_REPO:-%s}"
                JAVA="${ISOBENCH_HARBOR_JAVA:-java}"
                SEALED=%s
                WORK="$HOME_DIR/work"
                mkdir -p "$LOGS"
                rm -f "$LOGS/reward.json"
                finish() {
                  local rc=$?
                  if [ ! -s "$LOGS/reward.json" ]; then
                    echo '{"reward": 0, "error": 1}' > "$LOGS/reward.json"
                    echo "isobench verifier: failed before a verdict (exit $rc); see test-stdout.txt" \\
                      | tee "$LOGS/isobench-error.txt"
                  fi
                }
                trap finish EXIT
                set -e
                isobench() { "$JAVA" -jar "$HOME_DIR/isobench.jar" --db "$LOGS/isobench.duckdb" "$@"; }

                rm -rf "$WORK"
                mkdir -p "$WORK/sealed"
                tar -xf "$HOME_DIR/sealed.tar" -C "$WORK/sealed"
                (%s)

                isobench tasks collect-patch --git-dir "$WORK/sealed/.git" --commit "$SEALED" --tree "$REPO" \\
                  --out "$WORK/agent.diff"
                if [ ! -s "$WORK/agent.diff" ]; then
                  echo '{"task": "%s", "agent_verdict": "empty patch"}' > "$LOGS/isobench-verdict.json"
                  echo '{"reward": 0, "patch_empty": 1}' > "$LOGS/reward.json"
                  exit 0
                fi

                isobench run "$HOME_DIR/suite/%s" --workdir "$WORK/run" || echo "isobench run exited $?"
                isobench verdicts --task %s --agent %s --format json > "$LOGS/isobench-verdict.json"
                isobench verdicts --task %s --agent %s --format harbor-reward > "$WORK/reward.json"
                mv "$WORK/reward.json" "$LOGS/reward.json"
                cat "$LOGS/reward.json"
                """.formatted(CITE, task, HarborExport.REPO, HarborExport.REPO, f.sealed(),
                sealCommands("\"$WORK/sealed\"", "\"$SEALED\""), task, VERIFIER_SUITE, task, HarborExport.AGENT,
                task, HarborExport.AGENT);
    }

    static String solveSh(HarborExport.TaskFacts f) {
        return "#!/bin/bash\n"
                + "# " + CITE + ": Harbor's oracle for isobench task " + f.task().id() + ".\n"
                + "# Applies the human commit's change (" + f.human().substring(0, 12) + ", isobench's human arm) to "
                + HarborExport.REPO + ": its reward is 1\n"
                + "# exactly when the task replays on this machine (isobench's replay validity).\n"
                + "set -euo pipefail\n"
                + "cd " + HarborExport.REPO + "\n"
                + "git apply --binary /solution/human.diff\n";
    }

    private static void kv(StringBuilder b, String key, String value) {
        b.append(key).append(" = ").append(Toml.quote(value)).append('\n');
    }

    private static String num(double v) {
        return String.format(Locale.ROOT, "%.1f", v);
    }

    /** A JSON string (Dockerfile exec form). */
    private static String json(String s) {
        StringBuilder b = new StringBuilder("\"");
        for (char c : s.toCharArray()) {
            switch (c) {
                case '"' -> b.append("\\\"");
                case '\\' -> b.append("\\\\");
                case '\n' -> b.append("\\n");
                default -> b.append(c);
            }
        }
        return b.append('"').toString();
    }
}
