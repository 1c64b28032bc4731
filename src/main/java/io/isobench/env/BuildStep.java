package io.isobench.env;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The build step of one arm environment, as it ran.
 *
 * @param argv       the command (argv list, no shell)
 * @param exitCode   its exit status; null when it could not start or was killed at the time limit
 * @param durationMs wall time
 * @param timedOut   killed at {@code run.timeouts.build_s}
 * @param log        its whole output (stdout and stderr interleaved)
 */
public record BuildStep(List<String> argv, Integer exitCode, double durationMs, boolean timedOut, String log) {

    public BuildStep {
        argv = List.copyOf(argv);
    }

    public boolean ok() {
        return exitCode != null && exitCode == 0 && !timedOut;
    }

    /** {@code ok}, {@code failed} or {@code timeout}. */
    public String status() {
        return ok() ? "ok" : timedOut ? "timeout" : "failed";
    }

    /** As stored in a run's {@code extra_json.build} (the log goes to the artifact store; its sha is added there). */
    public Map<String, Object> toMap(String logSha256) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("argv", argv);
        m.put("status", status());
        m.put("exit_code", exitCode);
        m.put("duration_ms", Math.round(durationMs * 10) / 10.0);
        m.put("log_sha256", logSha256);
        return m;
    }
}
