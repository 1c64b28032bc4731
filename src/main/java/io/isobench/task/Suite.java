package io.isobench.task;

import java.nio.file.Path;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * A task suite: the engine, the tasks (one per performance commit), the agent arms and the run configuration. Loaded
 * by {@link SuiteLoader}; the format is documented in {@code docs/suite-format.md}.
 *
 * @param file the suite file (relative paths in it resolve against its folder); null for a suite built in memory
 */
public record Suite(Path file, EngineSpec engine, List<TaskSpec> tasks, List<AgentSpec> agents, RunConfig run) {

    public Suite {
        Objects.requireNonNull(engine, "engine");
        Objects.requireNonNull(run, "run");
        tasks = List.copyOf(tasks);
        agents = List.copyOf(agents);
    }

    public Optional<TaskSpec> task(String id) {
        return tasks.stream().filter(t -> t.id().equals(id)).findFirst();
    }
}
