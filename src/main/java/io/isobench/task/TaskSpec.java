package io.isobench.task;

import io.isobench.Mode;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * One task: a performance commit and how to measure it.
 *
 * @param id       unique within the suite ({@code [A-Za-z0-9._-]+}), e.g. the commit's first 8 hex digits
 * @param commits  the human commit and the baseline
 * @param workload what is measured: the benchmark command, model, mode and server (or the generic adapter's)
 * @param limits   GPUs and the per-run time limit
 * @param gates    the correctness gate, the accuracy hook and the patch-review settings
 * @param setup    how the arms come to be: the task's build step and its prebuilt-artifact arms
 * @param line     the line of the task in the suite file (1-based); 0 when built in memory
 */
public record TaskSpec(String id, Commits commits, Workload workload, Limits limits, Gates gates, Setup setup,
                       int line) {

    /**
     * The commits of a task.
     *
     * @param human  the merged commit (the human arm); null, with no parent either, for a track task
     *               ({@code isobench track}: its commits are a range given on the command line)
     * @param parent the baseline commit; null means the human commit's first parent
     */
    public record Commits(String human, String parent) {
        public Commits {
            if (human == null && parent != null) {
                throw new IllegalArgumentException("parent commit " + parent + " without a human commit");
            }
        }
    }

    /**
     * What a task measures.
     *
     * @param perfCommand   the benchmark command; null or blank is linted as {@code NO_PERF_COMMAND}
     * @param model         the model the task targets; null to take it from the command
     * @param modeLabel     serving|throughput|latency|prefix_caching (or ISO-Bench's standalone); null to infer
     * @param serverCommand server template for serving tasks ({@code {model} {host} {port} {server_flags}}); null
     *                      for {@code python -m vllm.entrypoints.openai.api_server}
     * @param generic       the generic engine adapter's offline command or server ({@code engine.name: generic});
     *                      null for the vllm and toy adapters, which read {@code perfCommand}
     * @param sweep         a serving task's load sweep ({@code sweep:}); null: one load, the command's
     */
    public record Workload(String perfCommand, String model, String modeLabel, String serverCommand,
                           GenericTask generic, Sweep sweep) {
        /** A workload of the vllm or toy adapter. */
        public Workload(String perfCommand, String model, String modeLabel, String serverCommand) {
            this(perfCommand, model, modeLabel, serverCommand, null, null);
        }

        /** A workload without a sweep. */
        public Workload(String perfCommand, String model, String modeLabel, String serverCommand,
                        GenericTask generic) {
            this(perfCommand, model, modeLabel, serverCommand, generic, null);
        }
    }

    /**
     * A task's resources.
     *
     * @param gpus     GPUs the task needs; null to derive them from the command and the model
     * @param timeoutS per-run limit overriding the suite's; null for the suite's
     */
    public record Limits(Integer gpus, Integer timeoutS) {
        /** No limits of its own: GPUs from the command and model, the suite's timeout. */
        public static final Limits NONE = new Limits(null, null);
    }

    /**
     * A task's gates besides speed.
     *
     * @param correctness the greedy-output gate; null when the task has none
     * @param accuracy    the accuracy hook; null when the task has none
     * @param review      patch-review settings (suite-level {@code review:} merged with the task's); null for
     *                    defaults
     */
    public record Gates(Correctness correctness, Accuracy accuracy, Review review) {
        /** No gates: no correctness gate, no accuracy hook, default review settings. */
        public static final Gates NONE = new Gates(null, null, null);
    }

    /**
     * How a task's arms come to be.
     *
     * @param build     this task's build argv, overriding {@code engine.build}; empty = no build; null = the engine's
     * @param artifacts prebuilt-artifact arms: the versions and artifact sources this task names per arm
     *                  ({@code versions:}, {@code artifacts:}); null: the engine's template and the commits
     */
    public record Setup(List<String> build, ArmArtifacts artifacts) {
        /** The engine's build step and artifacts. */
        public static final Setup ENGINE = new Setup(null, null);

        public Setup {
            build = build == null ? null : List.copyOf(build);
        }
    }

    /**
     * What a task says about its arms' prebuilt artifacts.
     *
     * @param versions by arm (baseline, human): the version the arm's artifact must install; absent: its commit
     * @param sources  by arm: where its artifact is, overriding {@code engine.artifact.source}
     */
    public record ArmArtifacts(Map<String, String> versions, Map<String, String> sources) {
        public ArmArtifacts {
            versions = versions == null ? Map.of() : Map.copyOf(versions);
            sources = sources == null ? Map.of() : Map.copyOf(sources);
        }
    }

    /** A task built in memory (line 0) with no limits or gates of its own, built by the engine's step. */
    public static TaskSpec of(String id, String humanCommit, String parentCommit, Workload workload) {
        return new TaskSpec(id, new Commits(humanCommit, parentCommit), workload, null, null, null, 0);
    }

    /** The merged commit (the human arm); null for a track task. */
    public String humanCommit() {
        return commits.human();
    }

    /** A track task: it names no commits ({@code isobench track} measures it over a range of commits). */
    public boolean tracked() {
        return commits.human() == null;
    }

    /** This task on other commits (a track task's pair of commits, compared by a confirming session). */
    public TaskSpec withCommits(String human, String parent) {
        return new TaskSpec(id, new Commits(human, parent), workload, limits, gates, setup, line);
    }

    /** The baseline commit; null means the human commit's first parent. */
    public String parentCommit() {
        return commits.parent();
    }

    /** The benchmark command; null or blank is linted as {@code NO_PERF_COMMAND}. */
    public String perfCommand() {
        return workload.perfCommand();
    }

    /** The model the task targets; null to take it from the command. */
    public String model() {
        return workload.model();
    }

    /** serving|throughput|latency|prefix_caching (or ISO-Bench's standalone); null to infer. */
    public String modeLabel() {
        return workload.modeLabel();
    }

    /** The server template for serving tasks; null for the adapter's default. */
    public String serverCommand() {
        return workload.serverCommand();
    }

    /** The generic engine adapter's offline command or server; null for the vllm and toy adapters. */
    public GenericTask generic() {
        return workload.generic();
    }

    /** The task's load sweep; null when it measures one load (the command's). */
    public Sweep sweep() {
        return workload.sweep();
    }

    /** GPUs the task needs; null to derive them from the command and the model. */
    public Integer gpus() {
        return limits.gpus();
    }

    /** The per-run limit overriding the suite's; null for the suite's. */
    public Integer timeoutS() {
        return limits.timeoutS();
    }

    /** The greedy-output gate; null when the task has none. */
    public Correctness correctness() {
        return gates.correctness();
    }

    /** The accuracy hook; null when the task has none. */
    public Accuracy accuracy() {
        return gates.accuracy();
    }

    /** Patch-review settings; null for defaults. */
    public Review review() {
        return gates.review();
    }

    /** This task's build argv, overriding {@code engine.build}; empty = no build; null = the engine's. */
    public List<String> build() {
        return setup.build();
    }

    /** Prebuilt-artifact arms' versions and sources; null: the engine's template and the commits. */
    public ArmArtifacts artifacts() {
        return setup.artifacts();
    }

    /**
     * Greedy outputs of each arm compared with the baseline's (and the human's): {@code prompts} prompts ×
     * {@code maxTokens}.
     *
     * @param tolerance       largest fraction of probes allowed to differ from the baseline's (0 = all identical)
     * @param maxLogprobDrift largest |Δ logprob| allowed on identical tokens; null: reported, not gated
     * @param logprobs        ask the server for logprobs and token ids with each probe
     * @param offlineCommand  probe through this command (the offline entry point) instead of the arm's server;
     *                        placeholders {@code {prompts_file} {max_tokens} {model} {suite_dir}}; null: the server
     */
    public record Correctness(int prompts, int maxTokens, double tolerance, Double maxLogprobDrift, boolean logprobs,
                              String offlineCommand) {
        public static final Correctness DEFAULT = new Correctness(8, 32, 0.0);

        public Correctness(int prompts, int maxTokens, double tolerance) {
            this(prompts, maxTokens, tolerance, null, false, null);
        }

        /** The offline probe argv with {@code {suite_dir}} filled in (the other placeholders stay for the executor). */
        public List<String> offlineArgv(String suiteDir) {
            List<String> out = new ArrayList<>();
            for (List<Shell.Word> seg : Shell.tokenize(offlineCommand).segments()) {
                for (Shell.Word w : seg) {
                    out.add(w.text().replace("{suite_dir}", suiteDir));
                }
            }
            return List.copyOf(out);
        }

        public Correctness {
            if (prompts < 1) {
                throw new IllegalArgumentException("prompts (" + prompts + ") must be >= 1");
            }
            if (maxTokens < 1) {
                throw new IllegalArgumentException("maxTokens (" + maxTokens + ") must be >= 1");
            }
            if (!(tolerance >= 0 && tolerance <= 1)) {
                throw new IllegalArgumentException("tolerance (" + tolerance + ") must be in 0..1");
            }
        }
    }

    /**
     * The accuracy hook: a command run once per arm, in the arm's environment, after the benchmark rounds; its
     * score is compared with the baseline's.
     *
     * @param command        argv template ({@code {model} {suite_dir}} placeholders), run without a shell
     * @param scoreRegex     the score is the first group (else the whole match) of the last match in the output
     * @param jsonPath       or: a dotted path ({@code results.toy.exact_match}, {@code [0]} for lists) into the
     *                       last JSON object in the output
     * @param toleranceAbs   allowed loss in score units
     * @param toleranceRel   allowed loss as a fraction of the baseline's score
     * @param higherIsBetter direction of the score
     * @param timeoutS       limit of the command; null for the task's run limit
     */
    public record Accuracy(List<String> command, String scoreRegex, String jsonPath, double toleranceAbs,
                           double toleranceRel, boolean higherIsBetter, Integer timeoutS) {
        /** The argv with {@code {model}} and {@code {suite_dir}} filled in. */
        public List<String> argv(String model, String suiteDir) {
            return command.stream().map(w -> w.replace("{model}", model == null ? "" : model)
                    .replace("{suite_dir}", suiteDir)).toList();
        }

        public Accuracy {
            command = List.copyOf(command);
            if (command.isEmpty()) {
                throw new IllegalArgumentException("accuracy command must not be empty");
            }
            if ((scoreRegex == null) == (jsonPath == null)) {
                throw new IllegalArgumentException("accuracy needs exactly one of scoreRegex and jsonPath");
            }
        }
    }

    /**
     * Patch-review settings of a task (docs/patch-review.md); null fields keep the defaults.
     *
     * @param failOn         check names (lower case, e.g. benchmark_edit) whose findings fail the arm
     * @param maxPatchLines  OVERSIZED_PATCH above this many changed lines
     * @param maxPatchBytes  OVERSIZED_PATCH above this many bytes
     * @param engineRoots    the engine's source tree (OUTSIDE_SOURCE_TREE)
     */
    public record Review(List<String> failOn, Integer maxPatchLines, Long maxPatchBytes, List<String> engineRoots) {
        public Review {
            failOn = failOn == null ? null : List.copyOf(failOn);
            engineRoots = engineRoots == null ? null : List.copyOf(engineRoots);
        }

        /** This task's settings over the suite's: a field set here wins. */
        public Review over(Review suite) {
            if (suite == null) {
                return this;
            }
            return new Review(failOn != null ? failOn : suite.failOn, maxPatchLines != null ? maxPatchLines
                    : suite.maxPatchLines, maxPatchBytes != null ? maxPatchBytes : suite.maxPatchBytes,
                    engineRoots != null ? engineRoots : suite.engineRoots);
        }
    }

    public TaskSpec {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(commits, "commits");
        workload = workload == null ? new Workload(null, null, null, null) : workload;
        limits = limits == null ? Limits.NONE : limits;
        gates = gates == null ? Gates.NONE : gates;
        setup = setup == null ? Setup.ENGINE : setup;
    }

    /**
     * The perf_command parsed and linted against this task's model, mode label and GPU count; for a generic task, its
     * declared command in the same shape (no findings: the suite loader checked it).
     */
    public ParsedPerfCommand parsedCommand() {
        if (generic() != null) {
            return GenericCommands.parsed(this);
        }
        return PerfCommand.parse(perfCommand(), new PerfCommand.Hints(model(), modeLabel(), gpus()));
    }

    /** This task with its perf_command parsed once: mode, servers, GPUs and model read from one parse. */
    public ParsedTask parsed() {
        return new ParsedTask(this, parsedCommand());
    }

    /** The mode the task runs: {@link ParsedTask#mode}. */
    public Optional<Mode> mode() {
        return parsed().mode();
    }

    /** The server's words, its host and port as slots: {@link ParsedTask#server}. */
    public List<Word> server() {
        return parsed().server();
    }

    /** Template placeholders {@code server_command} may use. */
    public static final List<String> SERVER_PLACEHOLDERS = List.of("{model}", "{host}", "{port}", "{server_flags}");
}
