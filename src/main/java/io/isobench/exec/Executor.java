package io.isobench.exec;

import io.isobench.env.ArmSetup;
import io.isobench.env.Artifacts;
import io.isobench.env.Environment;
import io.isobench.env.Worktrees;
import io.isobench.plan.ArmSpec;
import io.isobench.plan.Job;

import java.nio.file.Path;
import java.util.function.BooleanSupplier;
import java.util.function.LongConsumer;

/**
 * Runs one job of a plan: a job in, a result out. {@link Executors#create} picks the implementation by the name of
 * its {@link ExecutorKind} from the one registry ({@link Executors#KINDS}); all implement the same contract. A new
 * kind whose jobs are commands started somewhere is a {@link Placement} under {@link LocalExecutor} (as docker's
 * containers and ssh's hosts are) and needs no entry in the permits list. An executor never throws for a failing
 * job: failures are classified in the {@link JobResult}. A session with {@code --parallel} above 1 calls
 * {@link #execute} from several threads at once: implementations are thread-safe.
 */
public sealed interface Executor permits LocalExecutor, DockerExecutor, SlurmExecutor, KubernetesExecutor {

    /** The executor's kind: its name and what it can do. */
    ExecutorKind kind();

    /** The executor's name as a suite or {@code --executor} names it ({@link ExecutorKind#name()}). */
    default String name() {
        return kind().name();
    }

    /**
     * @param job   the job (its {@code cwd} is the prepared environment)
     * @param hooks where the executor reports the process group it started (so a resumed session can reap it) and
     *              how it learns of a cancellation
     */
    JobResult execute(Job job, Hooks hooks);

    /**
     * The GPUs this executor hands out on this node (local, docker: the discovered or {@code ISOBENCH_GPUS} ones); 0
     * when it has none or a cluster places the jobs. The session runner packs concurrent jobs into them.
     */
    default int gpuCapacity() {
        return 0;
    }

    /**
     * Called once by the session runner before the first job of a session (new or resumed). Executors that name
     * their jobs after the session (slurm: {@code isb-<session>-<job>}, so a resumed orchestrator finds and adopts
     * the jobs a killed one submitted) keep the id; the default ignores it.
     */
    default void beginSession(String sessionId) {
    }

    /**
     * Removes what an earlier, killed orchestrator left running for {@code job} beyond its process group (which the
     * session reaps itself): a container, a cluster job. Called by a resumed session for each run it finds in
     * progress; idempotent; the default has nothing to do.
     */
    default void reap(Job job) {
    }

    /**
     * The environment an arm runs in. The local strategy (default) makes a git worktree on this machine, or for an arm
     * from a prebuilt artifact installs it into a prefix of its own; cluster executors whose environment is an image
     * override it (nothing is checked out here).
     *
     * @param setup the arm's fix recipes and build step (the local strategy applies them in the worktree)
     */
    default Environment prepare(ArmSpec arm, Path repo,
                                                ArmSetup setup) {
        if (arm.artifact() != null) {
            return Artifacts.prepare(arm.artifact(), arm.worktree(),
                    Artifacts.cacheFor(arm.worktree()), setup);
        }
        return Worktrees.prepare(repo, arm.commitRef(), arm.patch(), arm.worktree(), setup);
    }

    /**
     * Callbacks of one execution.
     *
     * @param runId the store's run id ({@code <session>/<job id>}), or null outside a session: cluster executors
     *              label what they submit with it, so a resumed session adopts instead of resubmitting
     */
    record Hooks(LongConsumer processGroupStarted, BooleanSupplier cancelled, String runId) {
        public static final Hooks NONE = new Hooks(pgid -> { }, () -> false);

        public Hooks(LongConsumer processGroupStarted, BooleanSupplier cancelled) {
            this(processGroupStarted, cancelled, null);
        }
    }
}
