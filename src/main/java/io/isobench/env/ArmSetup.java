package io.isobench.env;

import io.isobench.task.Recipe;

import java.util.List;
import java.util.function.LongConsumer;

/**
 * What an arm's environment gets after checkout and the agent patch: the fix recipes that apply to it (suite order),
 * then the build step.
 *
 * @param recipes       recipes applied in order; the first that fails stops the preparation
 * @param build         the build argv (run without a shell in the worktree); empty = no build step
 * @param buildTimeoutS limit of the build and of each {@code pip_pin} install, seconds
 * @param groupStarted  told the process group of each build or pip command as it starts (the session records it in a
 *                      placeholder, so a resumed session reaps what a killed one left)
 * @param walls         the walls the build step runs in (the executor's: {@link #withWalls}); default
 *                      {@link ArmWalls#OPEN}, the allowlisted environment without a sandbox
 */
public record ArmSetup(List<Recipe> recipes, List<String> build, int buildTimeoutS, LongConsumer groupStarted,
                       ArmWalls walls) {

    public static final ArmSetup NONE = new ArmSetup(List.of(), List.of(), 3600);

    public ArmSetup {
        recipes = recipes == null ? List.of() : List.copyOf(recipes);
        build = build == null ? List.of() : List.copyOf(build);
        groupStarted = groupStarted == null ? pgid -> { } : groupStarted;
        walls = walls == null ? ArmWalls.OPEN : walls;
        if (buildTimeoutS < 1) {
            throw new IllegalArgumentException("buildTimeoutS (" + buildTimeoutS + ") must be >= 1");
        }
    }

    public ArmSetup(List<Recipe> recipes, List<String> build, int buildTimeoutS) {
        this(recipes, build, buildTimeoutS, null, null);
    }

    public ArmSetup(List<Recipe> recipes, List<String> build, int buildTimeoutS, LongConsumer groupStarted) {
        this(recipes, build, buildTimeoutS, groupStarted, null);
    }

    /** This setup with its build step inside {@code w}. */
    public ArmSetup withWalls(ArmWalls w) {
        return new ArmSetup(recipes, build, buildTimeoutS, groupStarted, w);
    }
}
