package io.isobench.task;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * A declarative fix recipe (DESIGN §3): a named change applied to an arm's environment after checkout (and after the
 * agent patch), before the build. Applied to every task and arm alike unless {@code tasks} / {@code arms} narrow it;
 * every application is recorded on the run's provenance.
 *
 * @param name   unique name within the suite
 * @param kind   what it does
 * @param params the kind's parameters, in suite order: {@code pip_pin → {spec}}; {@code env → {VAR: value, …}};
 *               {@code apply_patch → {path}} (absolute, resolved against the suite's folder);
 *               {@code replace_in_file → {path, from, to}} (path relative to the worktree; literal text)
 * @param tasks  task ids it applies to; empty = all tasks
 * @param arms   arms it applies to: {@code baseline}, {@code human}, {@code agent} (every agent arm) or
 *               {@code agent:NAME}; empty = all arms
 * @param line   line of the recipe in the suite file (1-based); 0 when built in memory
 */
public record Recipe(String name, Kind kind, Map<String, String> params, List<String> tasks, List<String> arms,
                     int line) {

    /** The recipe kinds; {@link #key()} is the suite key. */
    public enum Kind {
        PIP_PIN, ENV, APPLY_PATCH, REPLACE_IN_FILE;

        public String key() {
            return name().toLowerCase(Locale.ROOT);
        }

        public static Optional<Kind> fromKey(String key) {
            for (Kind k : values()) {
                if (k.key().equals(key)) {
                    return Optional.of(k);
                }
            }
            return Optional.empty();
        }
    }

    public Recipe {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(kind, "kind");
        params = Collections.unmodifiableMap(new LinkedHashMap<>(params));
        tasks = List.copyOf(tasks);
        arms = List.copyOf(arms);
    }

    /**
     * Whether this recipe applies to the arm {@code armLabel} (baseline, human, agent:NAME) of task {@code taskId}.
     * The A/A arm ({@code baseline-aa}) is the baseline started again: it gets exactly the baseline's recipes.
     */
    public boolean appliesTo(String taskId, String armLabel) {
        if (!tasks.isEmpty() && !tasks.contains(taskId)) {
            return false;
        }
        if (armLabel.equals(io.isobench.Arm.BASELINE_AA.label())) {
            armLabel = io.isobench.Arm.BASELINE.label();
        }
        if (arms.isEmpty()) {
            return true;
        }
        for (String a : arms) {
            if (a.equals(armLabel) || (a.equals("agent") && armLabel.startsWith("agent:"))
                    || (a.startsWith("agent:") && armLabel.startsWith("agent:")
                    && io.isobench.Arm.normalizeAgent(a.substring(6)).equals(
                    io.isobench.Arm.normalizeAgent(armLabel.substring(6))))) {
                return true;
            }
        }
        return false;
    }
}
