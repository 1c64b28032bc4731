package io.isobench.exec;

import io.isobench.plan.Plan;
import io.isobench.task.Suite;

import java.util.EnumSet;
import java.util.Set;

/**
 * One kind of executor as a suite's {@code run.executor} or {@code --executor} names it: its name, what it can do
 * (the session and the planner ask for a {@link Capability}, never compare names), how one is made, and what
 * {@code --dry-run} prints for it. Each kind declares itself beside its implementation ({@code LocalExecutor.KIND},
 * {@link SshPlacement#KIND}…); the one registry is {@link Executors#KINDS}.
 */
public final class ExecutorKind {

    /** What an executor kind can do; a kind declares the ones it has. */
    public enum Capability {
        /**
         * Jobs run on this machine: its hardware is fingerprinted with the session and its GPUs are sampled during
         * measured runs (docs/gpu-telemetry.md).
         */
        RUNS_ON_THIS_HOST,
        /** Arms are git worktrees checked out here from {@code engine.repo}: a URL repository needs a local clone. */
        NEEDS_LOCAL_CLONE,
        /** Runs a generic engine's offline commands (their CPU time measured on the node). */
        RUNS_GENERIC_OFFLINE,
        /** Installs arms from prebuilt artifacts ({@code engine.artifact}). */
        INSTALLS_ARTIFACTS,
        /** Runs the tasks' accuracy commands. */
        RUNS_ACCURACY,
        /** Confines measured arms by the suite's {@code run.confine} (the session records the sandbox it used). */
        CONFINES_ARMS
    }

    /** Makes an executor of the kind, for a suite (null outside one). */
    interface Factory {
        /**
         * @throws io.isobench.IsobenchException.EnvironmentMissing when it cannot run here (what is missing and how
         *                                                           to get it)
         */
        Executor create(Suite suite);
    }

    /** What {@code --dry-run} prints for a plan on the kind ({@code format}: text or json). */
    interface DryRun {
        String render(Plan plan, String sessionId, String format);

        /** The plan itself: kinds that generate no per-job spec. */
        DryRun PLAN = (plan, sessionId, format) -> "json".equals(format) ? plan.toJson() : plan.toText();
    }

    private final String name;
    private final Set<Capability> capabilities;
    private final Factory factory;
    private final DryRun dryRun;

    ExecutorKind(String name, Set<Capability> capabilities, Factory factory, DryRun dryRun) {
        this.name = name;
        this.capabilities = capabilities.isEmpty() ? Set.of() : Set.copyOf(EnumSet.copyOf(capabilities));
        this.factory = factory;
        this.dryRun = dryRun;
    }

    ExecutorKind(String name, Set<Capability> capabilities, Factory factory) {
        this(name, capabilities, factory, DryRun.PLAN);
    }

    /** The name a suite or {@code --executor} gives. */
    public String name() {
        return name;
    }

    /** Whether the kind has {@code c}. */
    public boolean can(Capability c) {
        return capabilities.contains(c);
    }

    Executor create(Suite suite) {
        return factory.create(suite);
    }

    String dryRun(Plan plan, String sessionId, String format) {
        return dryRun.render(plan, sessionId, format);
    }

    @Override
    public String toString() {
        return name;
    }
}
