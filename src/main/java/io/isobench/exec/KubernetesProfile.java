package io.isobench.exec;

import io.isobench.IsobenchException;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;
import org.yaml.snakeyaml.error.YAMLException;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * How the Kubernetes executor turns jobs into batch/v1 Jobs: the {@code kubernetes:} section of a profile file
 * (docs/kubernetes-executor.md). Other top-level sections of the same file (docker:, slurm:) are left to their
 * executors.
 *
 * @param namespace          where Jobs are created
 * @param context            kubeconfig context; null for the current one
 * @param images             image template per arm: {@code human}, {@code baseline}, {@code agent}; placeholders
 *                           {@code {human_commit}}, {@code {parent_commit}}, {@code {task}}, {@code {agent}},
 *                           {@code {patch_sha256}} (and {@code _short} forms: first 12 characters)
 * @param applyPatch         agent arms: apply the patch in init containers (false: the agent image already holds it)
 * @param sourceDir          where the engine source tree lives in the image (cwd of every command)
 * @param clientImage        serving/check client: an image with isobench on PATH; null uses the arm's image
 * @param clientCommand      the argv prefix that runs isobench in the client image
 * @param serverPort         port the server binds inside the pod
 * @param imagePullPolicy    Always | IfNotPresent | Never
 * @param imagePullSecrets   secret names for private registries
 * @param serviceAccount     the pods' service account; null for the namespace default
 * @param nodeSelector       node labels the pods need
 * @param tolerations        taints the pods tolerate
 * @param cpu                CPU request (and limit) of the benchmark container, e.g. "8"; null for none
 * @param memory             memory request and limit, e.g. "64Gi"; null for none
 * @param shmSize            size of the /dev/shm emptyDir (medium Memory); null for none
 * @param hfCache            PVC mounted as the HuggingFace cache; null for none
 * @param hfTokenSecret      secret holding the HF token (env HF_TOKEN from secretKeyRef); null for none
 * @param extraEnv           plain environment for every container (no secrets here)
 * @param ttlSecondsAfterFinished Job cleanup after it ends
 * @param startSlackS        seconds added to the Job's activeDeadlineSeconds for scheduling and image pulls
 * @param pollIntervalMs     how often pods are inspected between watch events
 * @param labels             extra labels on every Job and pod
 */
public record KubernetesProfile(String namespace, String context, Map<String, String> images, boolean applyPatch,
                                String sourceDir, String clientImage, List<String> clientCommand, int serverPort,
                                String imagePullPolicy, List<String> imagePullSecrets, String serviceAccount,
                                Map<String, String> nodeSelector, List<Toleration> tolerations, String cpu,
                                String memory, String shmSize, HfCache hfCache, SecretRef hfTokenSecret,
                                Map<String, String> extraEnv, int ttlSecondsAfterFinished, int startSlackS,
                                int pollIntervalMs, Map<String, String> labels) {

    /** A toleration: key, operator (Equal|Exists), value, effect (NoSchedule|PreferNoSchedule|NoExecute). */
    public record Toleration(String key, String operator, String value, String effect) {
    }

    /** The HuggingFace cache: a PersistentVolumeClaim mounted at {@code mountPath} (HF_HOME points there). */
    public record HfCache(String claimName, String mountPath, boolean readOnly) {
    }

    /** A key of a Kubernetes Secret. */
    public record SecretRef(String name, String key) {
    }

    public static final List<String> ARMS = List.of("human", "baseline", "agent");
    private static final List<String> KEYS = List.of("namespace", "context", "images", "apply_patch", "source_dir",
            "client_image", "client_command", "server_port", "image_pull_policy", "image_pull_secrets",
            "service_account", "node_selector", "tolerations", "resources", "shm_size", "hf_cache", "hf_token_secret",
            "env", "ttl_seconds_after_finished", "start_slack_s", "poll_interval_ms", "labels");
    private static final Set<String> PULL = Set.of("Always", "IfNotPresent", "Never");

    public KubernetesProfile {
        Objects.requireNonNull(namespace, "namespace");
        images = Map.copyOf(images);
        clientCommand = List.copyOf(clientCommand);
        imagePullSecrets = List.copyOf(imagePullSecrets);
        nodeSelector = Map.copyOf(nodeSelector);
        tolerations = List.copyOf(tolerations);
        extraEnv = Map.copyOf(extraEnv);
        labels = Map.copyOf(labels);
    }

    /** The image template of an arm label (baseline, human, agent:NAME). */
    public String imageTemplate(String arm) {
        // the A/A arm runs the baseline's code: the baseline's image
        String key = arm.startsWith("agent:") ? "agent" : arm.equals(io.isobench.Arm.BASELINE_AA.label()) ? "baseline"
                : arm;
        String t = images.get(key);
        if (t == null && key.equals("agent")) {
            t = images.get("baseline");
        }
        return t;
    }

    /** Reads the {@code kubernetes:} section of a profile file. */
    public static KubernetesProfile load(Path file) {
        String text;
        try {
            text = Files.readString(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new IsobenchException.BadInput("profile " + file + ": cannot read it (" + e.getMessage() + ")");
        }
        Object root;
        try {
            root = new Yaml(new SafeConstructor(new LoaderOptions())).load(text);
        } catch (YAMLException e) {
            throw new IsobenchException.BadInput("profile " + file + ": not YAML (" + e.getMessage().lines().findFirst()
                    .orElse("") + ")");
        }
        if (!(root instanceof Map<?, ?> top) || !(top.get("kubernetes") instanceof Map<?, ?> k)) {
            throw new IsobenchException.BadInput("profile " + file + ": no kubernetes: section (fix: add one, see "
                    + "docs/kubernetes-executor.md)");
        }
        return fromMap(file.toString(), k);
    }

    static KubernetesProfile fromMap(String label, Map<?, ?> k) {
        List<String> problems = new ArrayList<>();
        for (Object key : k.keySet()) {
            if (!KEYS.contains(String.valueOf(key))) {
                problems.add("kubernetes." + key + ": unknown key (known: " + String.join(", ", KEYS) + ")");
            }
        }
        Map<String, String> images = strings(k.get("images"), "images", problems);
        for (String arm : images.keySet()) {
            if (!ARMS.contains(arm)) {
                problems.add("kubernetes.images." + arm + ": unknown arm (use human, baseline, agent)");
            }
        }
        if (!images.containsKey("human") || !images.containsKey("baseline")) {
            problems.add("kubernetes.images: needs human and baseline templates, e.g. human: "
                    + "registry/vllm:{human_commit}, baseline: registry/vllm:{parent_commit}");
        }
        String pull = str(k.get("image_pull_policy"), "IfNotPresent");
        if (!PULL.contains(pull)) {
            problems.add("kubernetes.image_pull_policy: " + pull + " (use Always, IfNotPresent or Never)");
        }
        List<Toleration> tolerations = new ArrayList<>();
        if (k.get("tolerations") instanceof List<?> tl) {
            for (Object o : tl) {
                if (o instanceof Map<?, ?> m) {
                    tolerations.add(new Toleration(str(m.get("key"), null), str(m.get("operator"), "Equal"),
                            str(m.get("value"), null), str(m.get("effect"), null)));
                } else {
                    problems.add("kubernetes.tolerations: each entry is a map (key, operator, value, effect)");
                }
            }
        }
        Map<String, String> resources = strings(k.get("resources"), "resources", problems);
        HfCache hf = null;
        if (k.get("hf_cache") instanceof Map<?, ?> m) {
            String claim = str(m.get("pvc"), null);
            if (claim == null) {
                problems.add("kubernetes.hf_cache.pvc: missing (the PersistentVolumeClaim of the HF cache)");
            }
            hf = new HfCache(claim, str(m.get("mount_path"), "/root/.cache/huggingface"),
                    Boolean.parseBoolean(str(m.get("read_only"), "false")));
        }
        SecretRef token = null;
        if (k.get("hf_token_secret") instanceof Map<?, ?> m) {
            token = new SecretRef(str(m.get("name"), null), str(m.get("key"), "token"));
            if (token.name() == null) {
                problems.add("kubernetes.hf_token_secret.name: missing (the Secret holding the HF token)");
            }
        }
        List<String> clientCommand = list(k.get("client_command"));
        if (!problems.isEmpty()) {
            throw new IsobenchException.BadInput("profile " + label + ": " + String.join("; ", problems));
        }
        return new KubernetesProfile(str(k.get("namespace"), "default"), str(k.get("context"), null), images,
                Boolean.parseBoolean(str(k.get("apply_patch"), "true")), str(k.get("source_dir"), "/workspace"),
                str(k.get("client_image"), null), clientCommand.isEmpty() ? List.of("isobench") : clientCommand,
                Integer.parseInt(str(k.get("server_port"), "8000")), pull, list(k.get("image_pull_secrets")),
                str(k.get("service_account"), null), strings(k.get("node_selector"), "node_selector", problems),
                tolerations, resources.get("cpu"), resources.get("memory"), str(k.get("shm_size"), null), hf, token,
                strings(k.get("env"), "env", problems),
                Integer.parseInt(str(k.get("ttl_seconds_after_finished"), "600")),
                Integer.parseInt(str(k.get("start_slack_s"), "900")),
                Integer.parseInt(str(k.get("poll_interval_ms"), "2000")), strings(k.get("labels"), "labels", problems));
    }

    private static String str(Object o, String dflt) {
        return o == null ? dflt : String.valueOf(o);
    }

    private static List<String> list(Object o) {
        List<String> out = new ArrayList<>();
        if (o instanceof List<?> l) {
            l.forEach(x -> out.add(String.valueOf(x)));
        } else if (o != null) {
            out.add(String.valueOf(o));
        }
        return out;
    }

    private static Map<String, String> strings(Object o, String field, List<String> problems) {
        Map<String, String> out = new LinkedHashMap<>();
        if (o == null) {
            return out;
        }
        if (!(o instanceof Map<?, ?> m)) {
            problems.add("kubernetes." + field + ": must be a map");
            return out;
        }
        m.forEach((a, b) -> out.put(String.valueOf(a), String.valueOf(b)));
        return out;
    }
}
