package io.isobench.plan;

import java.nio.file.Path;
import java.util.List;
import java.util.Objects;

/**
 * A step run once per session before the arms' environments: cloning a git bundle named by {@code engine.repo}, or a
 * suite's {@code setup:} command (e.g. generating a checkpoint into the work folder).
 *
 * @param what    {@code clone} or {@code setup}
 * @param argv    run without a shell
 * @param cwd     where it runs (the work folder)
 * @param creates skipped when this path exists (a clone of an earlier session); null: always run
 */
public record SetupStep(String what, List<String> argv, Path cwd, Path creates) {
    public SetupStep {
        Objects.requireNonNull(what, "what");
        argv = List.copyOf(argv);
        Objects.requireNonNull(cwd, "cwd");
    }
}
