package io.isobench.exec;

import io.isobench.exec.KubernetesExecutor.Arms;
import io.isobench.exec.KubernetesExecutor.Resolved;
import io.isobench.parse.Failure;
import io.isobench.parse.FailureCategory;
import io.isobench.task.Suite;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;

/** The arms of a suite on Kubernetes: image templates filled with the task's commits, agent patches read from disk. */
final class KubeSuiteArms {

    private KubeSuiteArms() {
    }

    /** The human commit's first parent from the local clone, or null without one. */
    static String parentOf(Path repo, String human) {
        if (repo == null) {
            return null;
        }
        try {
            Process p = new ProcessBuilder("git", "-C", repo.toString(), "rev-parse", "--verify", "--quiet",
                    human + "^").redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
            return p.waitFor() == 0 && out.matches("[0-9a-f]{40}") ? out : null;
        } catch (IOException e) {
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        }
    }

    /** Arms of a suite: image templates filled with the task's commits, agent patches read from disk. */
    static Arms suiteArms(Suite suite, KubernetesProfile profile,
                          Function<String, String> parentOf) {
        return (taskId, arm) -> {
            var task = suite.task(taskId).orElse(null);
            if (task == null) {
                return new Resolved(null, null, new Failure(FailureCategory.ENV_MISSING, "no task " + taskId
                        + " in the suite", List.of()));
            }
            String template = profile.imageTemplate(arm);
            String human = task.humanCommit();
            String parent = task.parentCommit() != null ? task.parentCommit() : parentOf.apply(human);
            String commit = arm.equals("human") ? human : parent;
            String patch = null;
            String patchSha = null;
            String agent = "";
            if (arm.startsWith("agent:")) {
                agent = arm.substring(6);
                String a = agent;
                Optional<Path> file = suite.agents().stream().filter(x -> x.name().replace('-', '_').equals(a.replace('-', '_'))).findFirst()
                        .flatMap(x -> x.patchFor(taskId));
                if (file.isEmpty()) {
                    return new Resolved(null, commit, new Failure(FailureCategory.ENV_MISSING, "agent " + a
                            + " has no patch for task " + taskId, List.of()));
                }
                try {
                    patch = Files.readString(file.get());
                } catch (IOException e) {
                    return new Resolved(null, commit, new Failure(FailureCategory.PATCH_FAILED, "cannot read the "
                            + "patch " + file.get() + ": " + e.getMessage(), List.of()));
                }
                if (patch.isBlank()) {
                    return new Resolved(null, commit, new Failure(FailureCategory.EMPTY_PATCH, "the patch "
                            + file.get() + " is empty", List.of()));
                }
                patchSha = sha256(patch);
            }
            String image = fill(template, taskId, human, parent, agent, patchSha);
            if (image.contains("{")) {
                return new Resolved(null, commit, new Failure(FailureCategory.ENV_MISSING, "the " + arm + " image "
                        + "template " + template + " needs a value isobench does not have (" + image + "): set "
                        + "parent_commit in the suite or use a local engine.repo", List.of()));
            }
            return new Resolved(new KubeJobSpec.ArmImage(image, patch, patchSha), commit, null);
        };
    }

    static String fill(String template, String task, String human, String parent, String agent, String patchSha) {
        String s = template.replace("{task}", task).replace("{agent}", KubeJobSpec.slug(agent));
        s = replace(s, "human_commit", human);
        s = replace(s, "parent_commit", parent);
        s = replace(s, "patch_sha256", patchSha);
        return s;
    }

    private static String replace(String s, String key, String value) {
        if (value == null) {
            return s;
        }
        return s.replace("{" + key + "_short}", value.substring(0, Math.min(12, value.length())))
                .replace("{" + key + "}", value);
    }

    static String sha256(String text) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256")
                    .digest(text.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
