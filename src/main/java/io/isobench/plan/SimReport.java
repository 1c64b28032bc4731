package io.isobench.plan;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.isobench.parse.FailureCategory;

import java.util.Locale;
import java.util.Map;

/** Text and JSON renderings of a {@link SimResult} for {@code isobench plan simulate}. */
public final class SimReport {

    /** Identifies the JSON shape (a contract, sealed by {@code src/test/resources/golden/plan-simulate.json}). */
    public static final String FORMAT_ID = "isobench-plan-simulate/1";

    private SimReport() {
    }

    public static String text(SimInput.Jobs input, SimResult r) {
        StringBuilder b = new StringBuilder();
        b.append("input:        ").append(input.source()).append('\n');
        b.append(String.format(Locale.ROOT, "node:         %d GPU(s)%n", r.nodeGpus()));
        b.append(String.format(Locale.ROOT, "jobs:         %d scheduled, %d refused (%s), %d task(s) skipped%n",
                r.jobs(), r.refused().size(), FailureCategory.RESOURCES_INSUFFICIENT, input.skipped().size()));
        b.append(String.format(Locale.ROOT, "GPU-seconds:  %.0f%n", r.gpuSeconds()));
        b.append(String.format(Locale.ROOT, "lower bound:  %.0f s (%s binds; GPU-seconds/G %.0f s, longest job %.0f s,"
                + " jobs > G/2 GPUs %.0f s)%n", r.lowerBoundS(), label(r.binding()), r.workBoundS(), r.longestJobS(),
                r.bigJobsBoundS()));
        b.append(String.format(Locale.ROOT, "makespan:     %.0f s (%.2f h), policy %s%n", r.makespanS(),
                r.makespanS() / 3600, r.policy()));
        b.append(String.format(Locale.ROOT, "ratio:        %.4f × lower bound%n", r.ratio()));
        StringBuilder tried = new StringBuilder();
        r.policyMakespansS().forEach((k, v) -> tried.append(tried.isEmpty() ? "" : ", ")
                .append(String.format(Locale.ROOT, "%s %.0f s", k, v)));
        b.append("orders tried: ").append(tried).append('\n');
        b.append(String.format(Locale.ROOT, "utilisation:  %.1f %%%n", 100 * r.utilisation()));
        for (SimJob j : r.refused()) {
            b.append(String.format(Locale.ROOT, "refused:      %s needs %d GPU(s) > %d: %s (%s)%n", j.id(), j.gpus(),
                    r.nodeGpus(), FailureCategory.RESOURCES_INSUFFICIENT, j.basis()));
        }
        for (Map.Entry<String, String> e : input.skipped().entrySet()) {
            b.append("skipped:      ").append(e.getKey()).append(": ").append(e.getValue()).append('\n');
        }
        return b.toString();
    }

    private static String label(SimResult.Bound b) {
        return switch (b) {
            case GPU_SECONDS -> "GPU-seconds/G";
            case LONGEST_JOB -> "longest job";
            case BIG_JOBS -> "jobs > G/2 GPUs";
        };
    }

    /** One JSON object; {@code schedule} lists every placement when {@code withSchedule}. */
    public static String json(SimInput.Jobs input, SimResult r, boolean withSchedule) {
        ObjectMapper m = new ObjectMapper();
        ObjectNode o = m.createObjectNode();
        o.put("format", FORMAT_ID);
        o.put("input", input.source());
        o.put("gpus", r.nodeGpus());
        o.put("jobs", r.jobs());
        o.put("gpu_seconds", round(r.gpuSeconds()));
        ObjectNode lb = o.putObject("lower_bound");
        lb.put("seconds", round(r.lowerBoundS()));
        lb.put("binding", r.binding().name().toLowerCase(Locale.ROOT));
        lb.put("gpu_seconds_over_gpus", round(r.workBoundS()));
        lb.put("longest_job_s", round(r.longestJobS()));
        lb.put("big_jobs_s", round(r.bigJobsBoundS()));
        o.put("makespan_s", round(r.makespanS()));
        o.put("ratio", Math.round(r.ratio() * 1e6) / 1e6);
        o.put("utilisation", Math.round(r.utilisation() * 1e6) / 1e6);
        o.put("policy", r.policy());
        ObjectNode tried = o.putObject("policies_makespan_s");
        r.policyMakespansS().forEach((k, v) -> tried.put(k, round(v)));
        ArrayNode refused = o.putArray("refused");
        for (SimJob j : r.refused()) {
            ObjectNode x = refused.addObject();
            x.put("job", j.id());
            x.put("gpus", j.gpus());
            x.put("category", FailureCategory.RESOURCES_INSUFFICIENT.name());
            x.put("basis", j.basis());
        }
        ObjectNode skipped = o.putObject("skipped");
        input.skipped().forEach(skipped::put);
        if (withSchedule) {
            ArrayNode s = o.putArray("schedule");
            for (SimResult.Placement p : r.placements()) {
                ObjectNode x = s.addObject();
                x.put("job", p.job().id());
                x.put("start_s", round(p.startS()));
                x.put("end_s", round(p.endS()));
                ArrayNode ids = x.putArray("gpu_ids");
                p.gpuIds().forEach(ids::add);
            }
        }
        try {
            return m.writeValueAsString(o) + "\n";
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    private static double round(double v) {
        return Math.round(v * 1000) / 1000.0;
    }
}
