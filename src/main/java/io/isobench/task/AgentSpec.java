package io.isobench.task;

import java.nio.file.Path;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * An agent arm: a name, the model behind it, its patch per task (absolute paths), how {@code isobench agents run}
 * runs it ({@code runner}, null when the suite says nothing: the patches are inputs), and, for the attempts of an
 * agents run planned by {@code isobench run --attempts-of}, which stored attempt each patch is ({@code attemptRuns}:
 * task id → the attempt's run id; empty for patches a suite names). A task without a patch for this agent has no arm
 * for it.
 */
public record AgentSpec(String name, String model, Map<String, Path> patches, AgentRunner runner,
                        Map<String, String> attemptRuns) {

    public AgentSpec {
        Objects.requireNonNull(name, "name");
        patches = Collections.unmodifiableMap(new LinkedHashMap<>(patches));
        attemptRuns = attemptRuns == null ? Map.of() : Collections.unmodifiableMap(new LinkedHashMap<>(attemptRuns));
    }

    /** An agent as a suite names it: its patches are files, no stored attempt. */
    public AgentSpec(String name, String model, Map<String, Path> patches, AgentRunner runner) {
        this(name, model, patches, runner, Map.of());
    }

    /** An agent whose patches are inputs. */
    public AgentSpec(String name, String model, Map<String, Path> patches) {
        this(name, model, patches, null);
    }

    public Optional<Path> patchFor(String taskId) {
        return Optional.ofNullable(patches.get(taskId));
    }

    /** The run id of the stored attempt whose patch the task's arm measures; empty for a patch a suite names. */
    public Optional<String> attemptRunFor(String taskId) {
        return Optional.ofNullable(attemptRuns.get(taskId));
    }
}
