package io.isobench.exec;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.isobench.guard.Secrets;
import io.isobench.proc.MeasuredEnv;

/**
 * The Slurm client commands the executor uses (sbatch, squeue, sacct, scontrol, scancel, sinfo), run without a
 * shell, and the parsing of their output. Status comes from squeue; a job squeue no longer lists comes from sacct
 * when accounting is enabled, else from {@code scontrol show job}.
 */
final class SlurmCli {

    /** A command's outcome; code -1 when it could not be started or timed out. */
    record Out(int code, String out, String err) {
        boolean ok() {
            return code == 0;
        }
    }

    /** A job's state as Slurm reports it; {@code source} says which command answered. */
    record JobState(String state, String reason, String exitCode, String source) {
        boolean pending() {
            return state.equals("PENDING") || state.equals("CONFIGURING") || state.equals("REQUEUED")
                    || state.equals("RESV_DEL_HOLD") || state.equals("REQUEUE_HOLD") || state.equals("SUSPENDED");
        }

        boolean running() {
            return state.equals("RUNNING") || state.equals("COMPLETING") || state.equals("STAGE_OUT")
                    || state.equals("SIGNALING");
        }

        boolean terminal() {
            return !pending() && !running();
        }
    }

    /** Largest node: what one job can get at most. */
    record Capacity(int gpus, int cpus, long memMb) {
    }

    private static final Duration TIMEOUT = Duration.ofSeconds(30);
    private Boolean accounting;

    static boolean onPath(String tool) {
        return onPath(tool, System.getenv().getOrDefault("PATH", ""));
    }

    static boolean onPath(String tool, String path) {
        for (String dir : path.split(File.pathSeparator)) {
            if (!dir.isEmpty() && Files.isExecutable(Path.of(dir, tool))) {
                return true;
            }
        }
        return false;
    }

    static Out run(List<String> argv) {
        return run(argv, null);
    }

    /** Runs {@code argv}; with {@code env}, that whole environment instead of isobench's. */
    static Out run(List<String> argv, Map<String, String> env) {
        try {
            ProcessBuilder pb = new ProcessBuilder(argv).redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
            if (env != null) {
                pb.environment().clear();
                pb.environment().putAll(env);
            }
            Process p = pb.start();
            // both streams are small; read them on two threads so neither blocks
            CompletableFuture<String> err = CompletableFuture.supplyAsync(
                    () -> readAll(p.getErrorStream()));
            String out = readAll(p.getInputStream());
            if (!p.waitFor(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
                p.destroyForcibly();
                return new Out(-1, out, argv.get(0) + " timed out after " + TIMEOUT.toSeconds() + " s");
            }
            return new Out(p.exitValue(), out, err.join());
        } catch (IOException e) {
            return new Out(-1, "", argv.get(0) + ": " + e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new Out(-1, "", "interrupted");
        }
    }

    private static String readAll(InputStream in) {
        try (in) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "";
        }
    }

    /** The controller answers (sinfo), or the one-line reason it does not. */
    Optional<String> unreachable() {
        Out o = run(List.of("sinfo", "-h", "-o", "%T"));
        if (o.ok()) {
            return Optional.empty();
        }
        String msg = (o.err() + " " + o.out()).strip().lines().findFirst().orElse("exit " + o.code());
        return Optional.of(msg);
    }

    /** The largest node's GPUs (GRES gpu), CPUs and memory; null when sinfo does not answer. */
    Capacity capacity() {
        Out o = run(List.of("sinfo", "-h", "-N", "-o", "%c|%m|%G"));
        if (!o.ok()) {
            return null;
        }
        return parseCapacity(o.out());
    }

    static Capacity parseCapacity(String sinfo) {
        int gpus = 0;
        int cpus = 0;
        long mem = 0;
        for (String line : sinfo.strip().lines().toList()) {
            String[] f = line.strip().split("\\|", -1);
            if (f.length < 3) {
                continue;
            }
            cpus = Math.max(cpus, intOr(f[0].replaceAll("[^0-9].*", ""), 0));
            mem = Math.max(mem, intOr(f[1].replaceAll("[^0-9].*", ""), 0));
            gpus = Math.max(gpus, gresGpus(f[2]));
        }
        return new Capacity(gpus, cpus, mem);
    }

    /** {@code gpu:fake:2,gpu:a100:4(S:0-1)} → 6; {@code (null)} → 0. */
    static int gresGpus(String gres) {
        int n = 0;
        Matcher m = Pattern.compile("(?:^|,)gpu(?::[^:,()]+)?:(\\d+)").matcher(gres.strip());
        while (m.find()) {
            n += Integer.parseInt(m.group(1));
        }
        return n;
    }

    /** Submits a script; the job id, or the failure text. */
    Out submit(Path script) {
        return run(List.of("sbatch", "--parsable", script.toString()), submitEnv(System.getenv()));
    }

    /**
     * The environment {@code sbatch} runs with, and so the environment a job gets (sbatch exports the submitter's
     * whole environment by default): the measured processes' allowlist ({@code proc.MeasuredEnv}) plus Slurm's own
     * client settings ({@code SLURM_*}, {@code SBATCH_*}, never a secret-looking name); the script's {@code export}
     * lines add the job's variables. No secret of isobench's environment reaches a job.
     */
    static Map<String, String> submitEnv(Map<String, String> host) {
        Map<String, String> slurm = new TreeMap<>();
        host.forEach((k, v) -> {
            if ((k.startsWith("SLURM_") || k.startsWith("SBATCH_")) && !Secrets.isSecretName(k)) {
                slurm.put(k, v);
            }
        });
        return MeasuredEnv.of(host, List.of(), Set.of(), slurm);
    }

    static String jobIdOf(String parsable) {
        String s = parsable.strip();
        int semi = s.indexOf(';');
        return semi >= 0 ? s.substring(0, semi) : s;
    }

    void cancel(String jobId) {
        run(List.of("scancel", jobId));
    }

    /** Job ids (ascending) of jobs with this name squeue knows, in any state. */
    List<Long> jobsNamed(String name) {
        Out o = run(List.of("squeue", "-h", "-t", "all", "--name=" + name, "-o", "%i"));
        List<Long> ids = new ArrayList<>();
        if (o.ok()) {
            for (String l : o.out().strip().lines().toList()) {
                try {
                    ids.add(Long.parseLong(l.strip()));
                } catch (NumberFormatException e) {
                    // array jobs and the like: not ours
                }
            }
        }
        ids.sort(null);
        return ids;
    }

    /** The job's state: squeue, then sacct (when accounting is on), then scontrol; null when nobody knows it. */
    JobState state(String jobId) {
        Out q = run(List.of("squeue", "-h", "-t", "all", "-j", jobId, "-o", "%T|%r"));
        if (q.ok() && !q.out().isBlank()) {
            String[] f = q.out().strip().lines().findFirst().orElse("").split("\\|", -1);
            return new JobState(f[0].strip(), f.length > 1 ? f[1].strip() : "", null, "squeue");
        }
        if (!Boolean.FALSE.equals(accounting)) {
            Out a = run(List.of("sacct", "-n", "-P", "-X", "-j", jobId, "-o", "State,ExitCode"));
            String text = (a.out() + a.err()).toLowerCase(Locale.ROOT);
            if (!a.ok() || text.contains("accounting storage") || text.contains("disabled")) {
                accounting = false;
            } else {
                accounting = true;
                String line = a.out().strip().lines().findFirst().orElse("");
                if (!line.isEmpty()) {
                    String[] f = line.split("\\|", -1);
                    return new JobState(f[0].strip().split("\\s+")[0], "", f.length > 1 ? f[1].strip() : null,
                            "sacct");
                }
            }
        }
        Out s = run(List.of("scontrol", "show", "job", jobId));
        return s.ok() ? parseScontrol(s.out()) : null;
    }

    static JobState parseScontrol(String text) {
        Map<String, String> kv = new HashMap<>();
        Matcher m = Pattern.compile("(\\w+)=(\\S*)").matcher(text);
        while (m.find()) {
            kv.putIfAbsent(m.group(1), m.group(2));
        }
        String state = kv.get("JobState");
        return state == null ? null : new JobState(state, kv.getOrDefault("Reason", ""), kv.get("ExitCode"),
                "scontrol");
    }

    private static int intOr(String s, int d) {
        try {
            return Integer.parseInt(s);
        } catch (NumberFormatException e) {
            return d;
        }
    }

    /** Pending or running Slurm jobs whose working directory or script lies under {@code dir} (tests, cleanup). */
    static List<String> activeJobsUnder(Path dir) {
        SlurmCli.Out o = run(List.of("squeue", "-h", "-t", "PENDING,RUNNING,CONFIGURING,COMPLETING",
                "-o", "%i|%T|%j|%Z|%o"));
        String prefix = dir.toAbsolutePath().normalize() + "/";
        return o.out().strip().lines().filter(l -> {
            String[] f = l.split("\\|", 5);
            return f.length == 5 && ((f[3] + "/").startsWith(prefix) || f[4].startsWith(prefix));
        }).toList();
    }
}
