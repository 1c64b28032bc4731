package io.isobench.exec;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.isobench.plan.Job;
import io.isobench.plan.Plan;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What {@code --dry-run} prints on the slurm executor: the plan, then each job's sbatch script. Needs no cluster;
 * when the Slurm controller answers, jobs wider than its largest node are marked {@code RESOURCES_INSUFFICIENT} and
 * CPU/memory requests are capped to that node.
 */
final class SlurmDryRun {

    private SlurmDryRun() {
    }

    static String render(Plan plan, String sessionId, String format) {
        boolean json = "json".equals(format);
        String session = sessionId == null ? "SESSION" : sessionId;
        SlurmConfig config = SlurmConfig.fromEnv(System.getenv());
        SlurmCli.Capacity capacity = SlurmCli.onPath("sinfo") ? new SlurmCli().capacity() : null;
        Map<String, String> scripts = new LinkedHashMap<>();
        Map<String, String> refused = new LinkedHashMap<>();
        for (Job j : plan.jobs()) {
            if (capacity != null && config.gpusFor(j.gpus()) > capacity.gpus()) {
                refused.put(j.jobId(), "RESOURCES_INSUFFICIENT: needs " + j.gpus() + " GPU(s); the largest node has "
                        + capacity.gpus());
            } else {
                scripts.put(j.jobId(), SlurmExecutor.script(j, session, SlurmExecutor.jobDir(config, session, j),
                        config, capacity));
            }
        }
        if (json) {
            Map<String, Object> m = plan.toMap();
            m.put("executor", SlurmExecutor.KIND.name());
            @SuppressWarnings("unchecked")
            List<Map<String, Object>> jobs = (List<Map<String, Object>>) m.get("jobs");
            for (Map<String, Object> jm : jobs) {
                String id = (String) jm.get("id");
                jm.put("slurm_job_name", SlurmExecutor.jobName(session, id));
                if (refused.containsKey(id)) {
                    jm.put("refused", refused.get(id));
                } else {
                    jm.put("sbatch", scripts.get(id));
                }
            }
            try {
                return new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValueAsString(m) + "\n";
            } catch (JsonProcessingException e) {
                throw new IllegalStateException(e);
            }
        }
        StringBuilder sb = new StringBuilder(plan.toText());
        sb.append("executor slurm: one batch job per job, scripts below (session ").append(session).append(")\n");
        for (Job j : plan.jobs()) {
            sb.append("---- ").append(j.index() + 1).append(' ').append(j.jobId()).append(" -> ")
                    .append(SlurmExecutor.jobName(session, j.jobId())).append('\n');
            if (refused.containsKey(j.jobId())) {
                sb.append("refused: ").append(refused.get(j.jobId())).append('\n');
            } else {
                sb.append(scripts.get(j.jobId()));
            }
        }
        return sb.toString();
    }
}
