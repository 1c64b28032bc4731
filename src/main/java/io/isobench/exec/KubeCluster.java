package io.isobench.exec;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.api.model.DeletionPropagation;
import io.isobench.plan.Job;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/** The calls on the cluster for one executor (its namespace): the latest pod of a Job, its logs, deleting a Job. */
final class KubeCluster {

    private final KubernetesClient client;
    private final KubernetesProfile profile;

    KubeCluster(KubernetesClient client, KubernetesProfile profile) {
        this.client = client;
        this.profile = profile;
    }

    Pod latestPod(String jobName) {
        List<Pod> pods = new ArrayList<>(client.pods().inNamespace(profile.namespace()).withLabel("job-name", jobName)
                .list().getItems());
        pods.sort(Comparator.comparing(p -> String.valueOf(p.getMetadata().getCreationTimestamp())));
        return pods.isEmpty() ? null : pods.get(pods.size() - 1);
    }

    /** All logs of the pod, labelled per container: init steps, server, then the benchmark or client. */
    String logs(Job job, Pod pod) {
        StringBuilder sb = new StringBuilder();
        List<String> names = new ArrayList<>();
        pod.getSpec().getInitContainers().forEach(c -> names.add(c.getName()));
        pod.getSpec().getContainers().forEach(c -> names.add(c.getName()));
        for (String c : names) {
            String text = log(pod, c);
            if (text.isEmpty()) {
                continue;
            }
            if (names.size() > 1) {
                sb.append("--- container ").append(c).append(" ---\n");
            }
            sb.append(text);
            if (!text.endsWith("\n")) {
                sb.append('\n');
            }
        }
        return sb.toString();
    }

    String log(Pod pod, String container) {
        try {
            String s = client.pods().inNamespace(profile.namespace()).withName(pod.getMetadata().getName())
                    .inContainer(container).getLog();
            return s == null ? "" : s;
        } catch (KubernetesClientException e) {
            return "";
        }
    }

    void delete(String name) {
        try {
            client.batch().v1().jobs().inNamespace(profile.namespace()).withName(name)
                    .withPropagationPolicy(DeletionPropagation.FOREGROUND).delete();
        } catch (KubernetesClientException e) {
            // already gone
        }
        cleanupPatch(name);
    }

    void cleanupPatch(String name) {
        try {
            client.configMaps().inNamespace(profile.namespace()).withName(name + "-patch").delete();
        } catch (KubernetesClientException e) {
            // none, or gone with its Job
        }
    }
}
