package io.isobench.exec;

import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.Pod;
import io.isobench.plan.Job;

import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** What a Job's pod shows: which containers started or run, and the serving timings from their timestamps. */
final class KubePods {

    private KubePods() {
    }

    /**
     * {@code ready_ms} (server start to client start: the client starts once the sidecar's startup probe passed),
     * {@code client_ms} and {@code teardown_ms} (client end to server end) from the kubelet's container timestamps
     * (whole seconds on a real cluster); absent when the pod does not show them.
     */
    static Map<String, Double> servingTimings(Pod pod) {
        Map<String, Double> out = new LinkedHashMap<>();
        if (pod == null || pod.getStatus() == null) {
            return out;
        }
        var server = nonNull(pod.getStatus().getInitContainerStatuses()).stream()
                .filter(c -> KubeJobSpec.SERVER.equals(c.getName())).findFirst().orElse(null);
        var client = nonNull(pod.getStatus().getContainerStatuses()).stream()
                .filter(c -> KubeJobSpec.MAIN.equals(c.getName())).findFirst().orElse(null);
        var ct = client == null || client.getState() == null ? null : client.getState().getTerminated();
        if (ct == null) {
            return out;
        }
        Instant clientStart = instant(ct.getStartedAt());
        Instant clientEnd = instant(ct.getFinishedAt());
        Instant serverStart = null;
        Instant serverEnd = null;
        if (server != null && server.getState() != null) {
            if (server.getState().getTerminated() != null) {
                serverStart = instant(server.getState().getTerminated().getStartedAt());
                serverEnd = instant(server.getState().getTerminated().getFinishedAt());
            } else if (server.getState().getRunning() != null) {
                serverStart = instant(server.getState().getRunning().getStartedAt());
            }
        }
        if (serverStart != null && clientStart != null) {
            out.put("ready_ms", (double) Math.max(0, clientStart.toEpochMilli() - serverStart.toEpochMilli()));
        }
        if (clientStart != null && clientEnd != null) {
            out.put("client_ms", (double) Math.max(0, clientEnd.toEpochMilli() - clientStart.toEpochMilli()));
        }
        if (clientEnd != null && serverEnd != null) {
            out.put("teardown_ms", (double) Math.max(0, serverEnd.toEpochMilli() - clientEnd.toEpochMilli()));
        }
        return out;
    }

    static Instant instant(String rfc3339) {
        try {
            return rfc3339 == null ? null : Instant.parse(rfc3339);
        } catch (DateTimeParseException e) {
            return null;
        }
    }

    /** The client container of a serving pod left its waiting state (so the server's startup probe passed). */
    static boolean clientStarted(Pod pod) {
        return nonNull(pod.getStatus() == null ? null : pod.getStatus().getContainerStatuses()).stream()
                .anyMatch(cs -> KubeJobSpec.MAIN.equals(cs.getName()) && cs.getState() != null
                        && (cs.getState().getRunning() != null || cs.getState().getTerminated() != null));
    }

    /** The benchmark (offline) or client (serving) container is running. */
    static boolean mainRunning(Pod pod) {
        return nonNull(pod.getStatus() == null ? null : pod.getStatus().getContainerStatuses()).stream()
                .anyMatch(cs -> KubeJobSpec.MAIN.equals(cs.getName()) && cs.getState() != null
                        && cs.getState().getRunning() != null);
    }

    static boolean started(Pod pod) {
        return all(pod).stream().anyMatch(cs -> cs.getState() != null
                && (cs.getState().getRunning() != null || cs.getState().getTerminated() != null));
    }

    static List<ContainerStatus> all(Pod pod) {
        List<ContainerStatus> out = new ArrayList<>();
        if (pod.getStatus() != null) {
            out.addAll(nonNull(pod.getStatus().getInitContainerStatuses()));
            out.addAll(nonNull(pod.getStatus().getContainerStatuses()));
        }
        return out;
    }

    static <T> List<T> nonNull(List<T> l) {
        return l == null ? List.of() : l;
    }
}
