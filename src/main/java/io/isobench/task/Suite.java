package io.isobench.task;

import io.isobench.IsobenchException;

import java.nio.file.Path;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * A task suite: the engine, the tasks (one per performance commit), the agent arms and the run configuration. Loaded
 * by {@link SuiteLoader}; the format is documented in {@code docs/suite-format.md}.
 *
 * @param file  the suite file (relative paths in it resolve against its folder); null for a suite built in memory
 * @param setup argv lists run once per session before the environments, in the work folder ({@code setup:};
 *              {@code {suite_dir}} filled in, {@code {workdir}} left for the planner)
 * @param agentPrompt the prompt of {@code isobench agents run} ({@code agent_prompt:}; default when absent)
 */
public record Suite(Path file, EngineSpec engine, List<TaskSpec> tasks, List<AgentSpec> agents, RunConfig run,
                    List<Recipe> recipes, List<List<String>> setup, AgentPrompt agentPrompt) {

    public Suite {
        agentPrompt = agentPrompt == null ? AgentPrompt.DEFAULT : agentPrompt;
        Objects.requireNonNull(engine, "engine");
        Objects.requireNonNull(run, "run");
        tasks = List.copyOf(tasks);
        agents = List.copyOf(agents);
        recipes = recipes == null ? List.of() : List.copyOf(recipes);
        setup = setup == null ? List.of() : setup.stream().map(List::copyOf).toList();
    }

    /** A suite with the default agent prompt. */
    public Suite(Path file, EngineSpec engine, List<TaskSpec> tasks, List<AgentSpec> agents, RunConfig run,
                 List<Recipe> recipes, List<List<String>> setup) {
        this(file, engine, tasks, agents, run, recipes, setup, AgentPrompt.DEFAULT);
    }

    /** A suite built in memory from imported tasks: no file, no agents, the default run configuration. */
    public static Suite imported(EngineSpec engine, List<TaskSpec> tasks) {
        return new Suite(null, engine, tasks, List.of(), RunConfig.DEFAULT);
    }

    /** A suite without session setup steps. */
    public Suite(Path file, EngineSpec engine, List<TaskSpec> tasks, List<AgentSpec> agents, RunConfig run,
                 List<Recipe> recipes) {
        this(file, engine, tasks, agents, run, recipes, List.of());
    }

    /** A suite without fix recipes. */
    public Suite(Path file, EngineSpec engine, List<TaskSpec> tasks, List<AgentSpec> agents, RunConfig run) {
        this(file, engine, tasks, agents, run, List.of());
    }

    /**
     * The same suite on another local engine repository (a clone or a git bundle file), e.g. one built after the
     * suite file was written; the engine keeps its adapter, build step and artifacts.
     */
    public Suite withEngineRepo(Path repo) {
        EngineSpec e = new EngineSpec(repo.toString(), repo.toAbsolutePath().normalize(), engine.name(),
                engine.build(), engine.artifact());
        return new Suite(file, e, tasks, agents, run, recipes, setup, agentPrompt);
    }

    /** The same suite run with another configuration (a {@code run} option that overrides the suite's). */
    public Suite withRun(RunConfig other) {
        return new Suite(file, engine, tasks, agents, other, recipes, setup, agentPrompt);
    }

    /** The same suite with other agent arms (the attempts of an agents run, {@code isobench run --attempts-of}). */
    public Suite withAgents(List<AgentSpec> other) {
        return new Suite(file, engine, tasks, other, run, recipes, setup, agentPrompt);
    }

    /**
     * Fails, in one line naming the task, when a task names no commits (a track task): a session compares two commits
     * of each task; a track task is measured over a range by {@code isobench track}.
     */
    public void requireCommits() {
        for (TaskSpec t : tasks) {
            if (t.tracked()) {
                throw new IsobenchException.BadInput("task " + t.id() + " names no human_commit: it is a track task"
                        + " (fix: isobench track SUITE --range REV1..REV2, or give it human_commit to run it)");
            }
        }
    }

    /** The same suite with other tasks (a track task on a pair of commits, {@code isobench track}). */
    public Suite withTasks(List<TaskSpec> other) {
        return new Suite(file, engine, other, agents, run, recipes, setup, agentPrompt);
    }

    /** The recipes that apply to one arm of one task, in suite order. */
    public List<Recipe> recipesFor(String taskId, String armLabel) {
        return recipes.stream().filter(r -> r.appliesTo(taskId, armLabel)).toList();
    }

    /** The build argv of a task's environments: the task's own, else the engine's; empty = no build step. */
    public List<String> buildArgv(TaskSpec task) {
        if (task.build() != null) {
            return task.build();
        }
        return engine.build();
    }

    /** Tasks whose perf_command has no lint error: the ones a run executes. */
    public List<TaskSpec> runnableTasks() {
        return tasks.stream().filter(t -> !t.parsedCommand().hasErrors()).toList();
    }

    /** Tasks that are not run, each with its lint errors (the reason reported instead of a result). */
    public Map<String, List<Finding>> notRunnable() {
        Map<String, List<Finding>> out = new LinkedHashMap<>();
        for (TaskSpec t : tasks) {
            List<Finding> errors = t.parsedCommand().errors();
            if (!errors.isEmpty()) {
                out.put(t.id(), errors);
            }
        }
        return Collections.unmodifiableMap(out);
    }

    public Optional<TaskSpec> task(String id) {
        return tasks.stream().filter(t -> t.id().equals(id)).findFirst();
    }
}
