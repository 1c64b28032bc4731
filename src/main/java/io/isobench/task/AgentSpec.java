package io.isobench.task;

import java.nio.file.Path;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * An agent arm: a name, the model behind it, its patch per task (absolute paths), and how {@code isobench agents run}
 * runs it ({@code runner}, null when the suite says nothing: the patches are inputs). A task without a patch for this
 * agent has no arm for it.
 */
public record AgentSpec(String name, String model, Map<String, Path> patches, AgentRunner runner) {

    public AgentSpec {
        Objects.requireNonNull(name, "name");
        patches = Collections.unmodifiableMap(new LinkedHashMap<>(patches));
    }

    /** An agent whose patches are inputs. */
    public AgentSpec(String name, String model, Map<String, Path> patches) {
        this(name, model, patches, null);
    }

    public Optional<Path> patchFor(String taskId) {
        return Optional.ofNullable(patches.get(taskId));
    }
}
