package io.isobench.exec;

import io.isobench.parse.FailureCategory;
import io.isobench.plan.Job;
import io.isobench.plan.JobSpec;
import io.isobench.plan.Command;
import io.isobench.Mode;
import io.isobench.Arm;
import io.isobench.proc.ProcessGroup;
import io.isobench.task.ClientConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 15, point 5: the job limit always holds. A server that answers every completion with a stream that never
 * ends (a chunk every 50 ms, well inside the client's request timeout) used to keep the job for the whole request
 * timeout (10 minutes); the job now ends at its {@code run_s} with TIMEOUT, and its process group is gone.
 */
class JobLimitTest {

    @TempDir
    Path dir;

    private static final String ENDLESS = String.join("\n",
            "import http.server, sys, time",
            "class H(http.server.BaseHTTPRequestHandler):",
            "    protocol_version = 'HTTP/1.1'",
            "    def do_GET(self):",
            "        self.send_response(200); self.send_header('Content-Length', '2'); self.end_headers()",
            "        self.wfile.write(b'{}')",
            "    def do_POST(self):",
            "        self.rfile.read(int(self.headers.get('Content-Length', 0)))",
            "        self.send_response(200); self.send_header('Content-Type', 'text/event-stream')",
            "        self.send_header('Connection', 'close'); self.end_headers()",
            "        while True:",
            "            self.wfile.write(b'data: {\"choices\":[{\"text\":\"a\"}]}\\n\\n'); self.wfile.flush()",
            "            time.sleep(0.05)",
            "    def log_message(self, *a): pass",
            "http.server.ThreadingHTTPServer(('127.0.0.1', int(sys.argv[1])), H).serve_forever()",
            "");

    @Test
    @Timeout(value = 2, unit = TimeUnit.MINUTES, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void aStreamThatNeverEndsStopsAtTheJobsLimit() throws Exception {
        io.isobench.SharedData.requireSandbox();
        Path server = dir.resolve("endless.py");
        Files.writeString(server, ENDLESS);
        Job job = new Job(new Job.Place(0, "t/baseline/r0", "t", 0), Arm.BASELINE, Mode.SERVING,
                new JobSpec.Measure(Command.template(List.of("python3", server.toString(), "{port}")),
                ClientConfig.ofArgv(List.of("--model", "m", "--num-prompts", "1",
                "--random-input-len", "8", "--random-output-len", "4096")), 0, null), new Job.Where(dir, Map.of(), 1),
                        Job.Limits.ofSeconds(20, 3));
        long[] group = new long[1];
        long t0 = System.nanoTime();
        JobResult r = Executors.create("local").execute(job, new Executor.Hooks(p -> group[0] = p, () -> false));
        double s = (System.nanoTime() - t0) / 1e9;
        assertThat(r.failure()).as(r.log()).isNotNull();
        assertThat(r.failure().category()).isEqualTo(FailureCategory.TIMEOUT);
        assertThat(r.failure().detail()).contains("3 s");
        assertThat(s).as("the job ended near its 3 s limit").isLessThan(30);
        assertThat(ProcessGroup.members(group[0])).isEmpty();
    }
}
