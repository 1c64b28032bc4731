package io.isobench.exec;

import io.isobench.parse.Failure;
import io.isobench.parse.FailureCategory;
import io.isobench.parse.FailureClassifier;
import io.isobench.plan.Job;

import java.util.List;
import java.util.Locale;
import java.util.Optional;

/** What a failed Slurm job was (DESIGN §7 categories): sbatch refusals, server crashes, the states Slurm ended it. */
final class SlurmFailures {

    private SlurmFailures() {
    }

    static Failure submitFailure(SlurmCli.Out o) {
        String msg = (o.err() + " " + o.out()).strip();
        String line = msg.lines().findFirst().orElse("sbatch exit " + o.code());
        String low = msg.toLowerCase(Locale.ROOT);
        if (low.contains("requested node configuration is not available") || low.contains("invalid generic resource")
                || low.contains("more processors requested than permitted") || low.contains("memory specification")) {
            return new Failure(FailureCategory.RESOURCES_INSUFFICIENT, "sbatch refused the request: " + line,
                    List.of(line));
        }
        if (low.contains("unable to contact") || low.contains("socket timed out") || low.contains("zero bytes")
                || low.contains("connection refused") || low.contains("try again")) {
            return new Failure(FailureCategory.INFRA_TRANSIENT, "sbatch could not reach the controller: " + line,
                    List.of(line));
        }
        return new Failure(FailureCategory.ENV_MISSING, "sbatch failed: " + line, List.of(line));
    }

    static Failure crash(Job job, SlurmWatch w, int exit, List<String> argv) {
        String text = w.readLog();
        if (exit == 127) {
            return new Failure(FailureCategory.ENV_MISSING, "the server command " + argv.get(0)
                    + " does not exist or is not executable", LocalExecutor.tail(text));
        }
        if (exit == 200) {
            return new Failure(FailureCategory.ENV_MISSING, "the environment " + job.cwd() + " is not visible on the"
                    + " compute node", LocalExecutor.tail(text));
        }
        return LocalExecutor.serverFailure(text, argv, FailureCategory.SERVER_CRASHED,
                "the server exited with code " + exit + " before it was ready");
    }

    /** A job that ended without the script writing an exit code: Slurm killed it (DESIGN §7 categories). */
    static Failure clusterFailure(SlurmWatch w, String log) {
        SlurmCli.JobState s = w.state(true);
        String st = s == null ? "UNKNOWN" : s.state();
        String evidence = "Slurm job " + w.jobId + " state " + st + (s == null || s.reason().isEmpty()
                || s.reason().equals("None") ? "" : " (" + s.reason() + ")")
                + (s == null || s.exitCode() == null ? "" : " ExitCode=" + s.exitCode())
                + (s == null ? "" : " [" + s.source() + "]");
        return classifyState(st, evidence, log);
    }

    static Failure classifyState(String state, String evidence, String log) {
        String st = state.replaceAll("[^A-Z_].*", "");
        return switch (st) {
            case "NODE_FAIL", "BOOT_FAIL", "PREEMPTED", "REVOKED" -> new Failure(FailureCategory.INFRA_TRANSIENT,
                    "the cluster ended the job: " + st, List.of(evidence));
            case "CANCELLED" -> new Failure(FailureCategory.INFRA_TRANSIENT,
                    "the job was cancelled outside isobench (scancel by a user or an administrator)", List.of(evidence));
            case "OUT_OF_MEMORY" -> new Failure(FailureCategory.RESOURCES_INSUFFICIENT,
                    "the job exceeded its memory request (--mem) and was killed; raise ISOBENCH_SLURM_MEM_PER_GPU_MB"
                            + " / ISOBENCH_SLURM_MEM_MB", List.of(evidence));
            case "TIMEOUT", "DEADLINE" -> new Failure(FailureCategory.TIMEOUT, "Slurm's time limit (--time) ended the"
                    + " job", List.of(evidence));
            default -> {
                Optional<Failure> f = FailureClassifier.classify(log);
                yield f.filter(x -> x.category() != FailureCategory.UNKNOWN).orElse(new Failure(
                        FailureCategory.UNKNOWN, "the job ended without an exit code: " + st, List.of(evidence)));
            }
        };
    }
}
