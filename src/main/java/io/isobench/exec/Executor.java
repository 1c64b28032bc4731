package io.isobench.exec;

import io.isobench.plan.Job;

import java.util.function.BooleanSupplier;
import java.util.function.LongConsumer;

/**
 * Runs one job of a plan: a job in, a result out. Only the local executor exists now; docker, Slurm and Kubernetes
 * executors implement the same contract. An executor never throws for a failing job: failures are classified in
 * the {@link JobResult}.
 */
public sealed interface Executor permits LocalExecutor {

    /**
     * @param job   the job (its {@code cwd} is the prepared environment)
     * @param hooks where the executor reports the process group it started (so a resumed session can reap it) and
     *              how it learns of a cancellation
     */
    JobResult execute(Job job, Hooks hooks);

    /** Callbacks of one execution. */
    record Hooks(LongConsumer processGroupStarted, BooleanSupplier cancelled) {
        public static final Hooks NONE = new Hooks(pgid -> { }, () -> false);
    }

    /** The local executor with the default readiness probe. */
    static Executor local() {
        return new LocalExecutor(Readiness.http(java.time.Duration.ofMillis(10)),
                io.isobench.bench.Clients.serving(), java.time.Duration.ofSeconds(5));
    }
}
