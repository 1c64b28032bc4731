package io.isobench.exec;

import io.isobench.IsobenchException;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * How the docker executor runs jobs (docs/docker-executor.md). Loaded from a profile file
 * ({@code ISOBENCH_DOCKER_CONFIG=FILE}, YAML) or {@link #DEFAULT}.
 *
 * @param docker         the docker CLI
 * @param images         image name templates by arm: keys {@code default}, {@code baseline}, {@code human},
 *                       {@code agent} or {@code agent:NAME}; placeholders {@code {task} {arm} {agent} {commit}
 *                       {commit_short}} ({@code {commit}}: the arm's checked-out commit, HEAD of its worktree)
 * @param mountWorktree  true: the arm's worktree is bind-mounted read-write at the same path and is the working
 *                       directory (local-source suites such as the demo); false: the image holds the source at
 *                       {@code sourceDir}, and an agent arm's patch is applied and verified inside the container
 * @param sourceDir      the source tree inside the image (working directory when {@code mountWorktree} is false)
 * @param network        docker network mode: {@code none} (the default: the container's own loopback only; a server
 *                       is reached through its door, a Unix socket in a bound folder relayed by isobench's
 *                       {@code NetBridge} run with the host's JDK mounted read-only), or a network the profile names
 *                       ({@code host}: the container shares the host's network, no wall; docs/docker-executor.md)
 * @param shmSize        {@code --shm-size} (null: docker's default)
 * @param volumes        extra {@code -v} specs (model caches), {@code {home}} expands to the user's home
 * @param secretEnv      names of host environment variables the engine needs (declared: none by default), passed
 *                       to the container through a mode-600 env file (never on a command line), when set
 * @param gpuMode        {@code auto} (nvidia when GPUs come from nvidia-smi, devices when from
 *                       {@code ISOBENCH_GPUS}, none without GPUs), {@code nvidia} ({@code --gpus "device=…"}, needs
 *                       NVIDIA's container runtime), {@code devices} ({@code --device} per leased GPU plus
 *                       {@code CUDA_VISIBLE_DEVICES}), {@code none}
 * @param gpuDevice      device path template for {@code devices} mode ({@code {i}}: the GPU index)
 * @param init           {@code --init} (a signal-forwarding PID 1, so a server stops on SIGTERM)
 * @param runAsOwner     with a mounted worktree: run as the worktree's owner (uid:gid), so files it writes stay
 *                       removable
 * @param extraArgs      more {@code docker run} options, verbatim (e.g. {@code --ipc=host})
 * @param minFreeDiskMb  preflight: free space needed on docker's root dir and the job's directory
 * @param patchDir       where an agent patch is applied inside the image when {@code mountWorktree} is false
 *                       (default: {@code sourceDir}); e.g. the site-packages dir holding an installed {@code vllm/}
 * @param mergeOutput    run the command under {@code sh -c 'exec 2>&1; exec "$@"'} so stdout and stderr reach the
 *                       log in order, as on the host (docker relays the two streams separately); needs /bin/sh in
 *                       the image
 */
public record DockerConfig(String docker, Map<String, String> images, boolean mountWorktree, String sourceDir,
                           String network, String shmSize, List<String> volumes, List<String> secretEnv,
                           String gpuMode, String gpuDevice, boolean init, boolean runAsOwner, List<String> extraArgs,
                           long minFreeDiskMb, boolean mergeOutput, String patchDir) {

    /** The image scripts/provision-docker builds: Debian bookworm minbase with python3 and git. */
    public static final String DEFAULT_IMAGE = "isobench/python:bookworm";
    public static final String ENV = "ISOBENCH_DOCKER_CONFIG";
    /** The default network: none but the container's own loopback (a server is reached through its door). */
    public static final String NETWORK_NONE = "none";
    public static final Set<String> GPU_MODES = Set.of("auto", "nvidia", "devices", "none");

    public static final DockerConfig DEFAULT = new DockerConfig("docker", Map.of("default", DEFAULT_IMAGE), true,
            null, NETWORK_NONE, "8g", List.of(), List.of(), "auto", "/dev/nvidia{i}",
            true, true, List.of(), 2048, true, null);

    private static final List<String> KEYS = List.of("docker", "images", "mount_worktree", "source_dir", "network",
            "shm_size", "volumes", "secret_env", "gpus", "gpu_device", "init", "run_as_owner", "extra_args",
            "min_free_disk_mb", "merge_output", "patch_dir");

    public DockerConfig {
        images = Map.copyOf(images);
        volumes = List.copyOf(volumes);
        secretEnv = List.copyOf(secretEnv);
        extraArgs = List.copyOf(extraArgs);
        if (!images.containsKey("default") && !(images.containsKey("baseline") && images.containsKey("human"))) {
            throw new IllegalArgumentException("images needs a 'default' template or both 'baseline' and 'human'");
        }
        if (patchDir == null) {
            patchDir = sourceDir;
        }
        if (patchDir != null && (patchDir.contains("'") || !patchDir.startsWith("/"))) {
            throw new IllegalArgumentException("patch_dir (" + patchDir + ") must be an absolute path without quotes");
        }
        if (!GPU_MODES.contains(gpuMode)) {
            throw new IllegalArgumentException("gpus (" + gpuMode + ") must be one of " + GPU_MODES);
        }
        if (!mountWorktree && (sourceDir == null || !sourceDir.startsWith("/"))) {
            throw new IllegalArgumentException("source_dir (absolute path in the image) is needed when mount_worktree "
                    + "is false");
        }
    }

    /** The image template for an arm label (baseline, human, agent:NAME): exact, then agent, then default. */
    public String imageTemplate(String arm) {
        if (arm.equals(io.isobench.Arm.BASELINE_AA.label())) {
            arm = io.isobench.Arm.BASELINE.label(); // the A/A arm runs the baseline's code: the baseline's image
        }
        String t = images.get(arm);
        if (t == null && arm.startsWith("agent")) {
            t = images.getOrDefault("agent", images.get("baseline"));
        }
        if (t == null) {
            t = images.get("default");
        }
        return t;
    }

    /** The image of one arm with the placeholders filled in. */
    public String image(String task, String arm, String commit) {
        if (arm.equals(io.isobench.Arm.BASELINE_AA.label())) {
            arm = io.isobench.Arm.BASELINE.label();
        }
        String agent = arm.startsWith("agent:") ? arm.substring(6) : "";
        String c = commit == null ? "" : commit;
        return imageTemplate(arm).replace("{task}", task).replace("{arm}", arm.replace(':', '-'))
                .replace("{agent}", agent).replace("{commit_short}", c.length() > 12 ? c.substring(0, 12) : c)
                .replace("{commit}", c).toLowerCase(Locale.ROOT);
    }

    /** The profile in {@code ISOBENCH_DOCKER_CONFIG}, else the default. */
    public static DockerConfig fromEnvironment() {
        String f = System.getenv(ENV);
        return f == null || f.isBlank() ? DEFAULT : load(Path.of(f));
    }

    /** Reads a profile file (YAML; the keys of docs/docker-executor.md, snake_case). */
    public static DockerConfig load(Path file) {
        Object doc;
        try {
            doc = new Yaml(new SafeConstructor(new LoaderOptions())).load(Files.readString(file, StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new IsobenchException.BadInput(ENV + "=" + file + ": cannot read (" + e.getMessage()
                    + "); point it at a docker profile YAML file");
        } catch (RuntimeException e) {
            throw new IsobenchException.BadInput(file + ": not YAML (" + e.getMessage().lines().findFirst().orElse("")
                    + ")");
        }
        Map<?, ?> m = doc == null ? Map.of() : doc instanceof Map<?, ?> mm ? mm : null;
        if (m == null) {
            throw new IsobenchException.BadInput(file + ": a mapping of docker executor settings is expected");
        }
        Map<?, ?> root = m.get("docker") instanceof Map<?, ?> inner && m.size() == 1 ? inner : m;
        try {
            return fromMap(root);
        } catch (IllegalArgumentException e) {
            throw new IsobenchException.BadInput(file + ": " + e.getMessage());
        }
    }

    /** Settings from a parsed map (unknown keys refused); missing keys keep {@link #DEFAULT}'s values. */
    public static DockerConfig fromMap(Map<?, ?> m) {
        for (Object k : m.keySet()) {
            if (!KEYS.contains(String.valueOf(k))) {
                throw new IllegalArgumentException(k + ": unknown key (known: " + String.join(", ", KEYS) + ")");
            }
        }
        DockerConfig d = DEFAULT;
        Map<String, String> images = new LinkedHashMap<>();
        Object im = m.get("images");
        if (im instanceof String s) {
            images.put("default", s);
        } else if (im instanceof Map<?, ?> mm) {
            mm.forEach((k, v) -> images.put(String.valueOf(k), String.valueOf(v)));
        } else if (im == null) {
            images.putAll(d.images());
        } else {
            throw new IllegalArgumentException("images: a name or a map arm → name template is expected");
        }
        return new DockerConfig(str(m, "docker", d.docker()), images, bool(m, "mount_worktree", d.mountWorktree()),
                str(m, "source_dir", d.sourceDir()), str(m, "network", d.network()), str(m, "shm_size", d.shmSize()),
                list(m, "volumes", d.volumes()), list(m, "secret_env", d.secretEnv()), str(m, "gpus", d.gpuMode()),
                str(m, "gpu_device", d.gpuDevice()), bool(m, "init", d.init()), bool(m, "run_as_owner", d.runAsOwner()),
                list(m, "extra_args", d.extraArgs()),
                m.get("min_free_disk_mb") == null ? d.minFreeDiskMb() : Long.parseLong(String.valueOf(m.get("min_free_disk_mb"))),
                bool(m, "merge_output", d.mergeOutput()), str(m, "patch_dir", d.patchDir()));
    }

    private static String str(Map<?, ?> m, String k, String def) {
        return m.containsKey(k) ? (m.get(k) == null ? null : String.valueOf(m.get(k))) : def;
    }

    private static boolean bool(Map<?, ?> m, String k, boolean def) {
        Object v = m.get(k);
        if (v == null) {
            return def;
        }
        if (v instanceof Boolean b) {
            return b;
        }
        throw new IllegalArgumentException(k + ": true or false expected, got " + v);
    }

    private static List<String> list(Map<?, ?> m, String k, List<String> def) {
        Object v = m.get(k);
        if (v == null) {
            return def;
        }
        if (v instanceof List<?> l) {
            List<String> out = new ArrayList<>();
            l.forEach(x -> out.add(String.valueOf(x)));
            return out;
        }
        throw new IllegalArgumentException(k + ": a list expected, got " + v);
    }
}
