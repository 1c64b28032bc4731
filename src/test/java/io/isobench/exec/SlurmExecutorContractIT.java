package io.isobench.exec;

import io.isobench.SharedData;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.parallel.ResourceLock;
import io.isobench.ItLocks;

/**
 * The executor contract on the Slurm executor: every scenario as a real batch job of the single-node cluster
 * (scripts/provision-slurm), the orchestrator-kill scenario included (the resumed session adopts the running job by
 * name). Leftovers: pending or running Slurm jobs whose script lies under the test's work root.
 */
@ResourceLock(ItLocks.SLURM)
class SlurmExecutorContractIT extends ExecutorContract {

    @Override
    protected void requireEnvironment() {
        SharedData.requireService(SlurmExecutorIT.clusterUp(),
                "a Slurm cluster (sbatch on PATH, slurmctld answering sinfo)");
        SharedData.requireService(Cli.has("python3") && Cli.has("git"), "python3 and git for the toy engine");
    }

    @Override
    protected Executor executor() {
        // frugal requests (1 CPU and 512 MB per job) so that the 2-CPU test node can run two jobs at once; the
        // defaults (8 CPUs and 64 GB per GPU, capped at the node) would make Slurm run them one after the other
        return SlurmExecutor.connect(new SlurmConfig(null, null, 1, 1, 512, 512, false, "127.0.0.1", null, 3600,
                List.of()));
    }

    @Override
    protected String executorName() {
        return "slurm";
    }

    @Override
    protected List<String> leftovers(Path workRoot) {
        return SlurmCli.activeJobsUnder(workRoot);
    }
}
