package io.isobench.cli;

import io.isobench.Arm;
import io.isobench.SharedData;
import io.isobench.analysis.SessionAnalysis;
import io.isobench.analysis.StatsConfig;
import io.isobench.exec.DockerLeftovers;
import io.isobench.store.Pipeline;
import io.isobench.store.RunFilter;
import io.isobench.store.RunRecord;
import io.isobench.store.SessionRecord;
import io.isobench.store.Store;
import io.isobench.store.Stores;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.parallel.ResourceLock;
import io.isobench.ItLocks;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code isobench demo --executor docker} end to end (issue 5, point 3): every job of the bundled toy-engine suite runs
 * in its own container of the local image isobench/python:bookworm (scripts/provision-docker), with 2 rounds. The
 * session is recorded as run by docker; the designed failure classes and the human commits' speed-ups appear as
 * with the local executor (DemoIT), and no container is left.
 */
@ResourceLock(ItLocks.DOCKER_EXECUTOR)
class DockerDemoIT {

    @TempDir
    Path dir;

    @Test
    @Timeout(value = 10, unit = TimeUnit.MINUTES)
    void demoRunsOnDocker() throws Exception {
        SharedData.requireService(dockerReady(), "a running docker daemon with the image isobench/python:bookworm "
                + "(scripts/provision-docker), plus python3, git and setsid");
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        long t0 = System.nanoTime();
        int code = Main.run(new PrintWriter(out, true), new PrintWriter(err, true), "demo", "--workdir",
                dir.toString(), "--rounds", "2", "--executor", "docker");
        double wallS = (System.nanoTime() - t0) / 1e9;
        System.err.printf("docker demo (2 rounds): %.1f s%n", wallS);
        assertThat(code).as(err.toString()).isZero();
        Matcher last = Pattern.compile("job (\\d+)/(\\d+) ").matcher(err.toString());
        int jobs = 0;
        while (last.find()) {
            assertThat(last.group(1)).isEqualTo(Integer.toString(++jobs));
            assertThat(Integer.parseInt(last.group(2))).isGreaterThan(30);
        }
        assertThat(err.toString()).contains("job " + jobs + "/" + jobs + " ");

        try (Store store = Stores.open(dir.resolve("isobench.duckdb").toString())) {
            List<SessionRecord> sessions = store.sessions();
            assertThat(sessions).hasSize(1);
            assertThat(sessions.get(0).machineJson()).contains("\"executor\":\"docker\"");
            String id = sessions.get(0).sessionId();
            List<RunRecord> runs = new ArrayList<>();
            store.forEachRun(new RunFilter(null, null, id, false), runs::add);
            // the accuracy hook's runs (one per arm, in the arm's container after the rounds) are not measured jobs
            runs.removeIf(r -> Pipeline.NATIVE_ACCURACY.equals(r.pipeline()));
            assertThat(runs).hasSize(jobs).noneMatch(r -> r.status() == RunRecord.RunStatus.NOT_RUN);
            // the log of a run that ran in a container names its docker run (env file, no secrets on the line)
            RunRecord anyOk = runs.stream().filter(r -> r.status() == RunRecord.RunStatus.SUCCESS && r.logArtifact() != null)
                    .findFirst().orElseThrow();
            String log = new String(store.artifact(anyOk.logArtifact()).orElseThrow());
            assertThat(log).contains("isobench: docker run --rm --name isobench-").contains("--env-file")
                    .contains("isobench/python:bookworm");

            SessionAnalysis a = SessionAnalysis.of(store, id, StatsConfig.defaults());
            assertThat(a.tasks()).extracting(SessionAnalysis.TaskResult::taskId)
                    .containsExactly("tpot", "latency", "throughput");
            for (SessionAnalysis.TaskResult t : a.tasks()) {
                assertThat(t.analysis().humanVsBaseline().deltaPct()).as(t.taskId() + ": the human commit is faster")
                        .isGreaterThan(10.0);
            }
            SessionAnalysis.TaskResult tpot = a.tasks().get(0);
            SessionAnalysis.TaskResult latency = a.tasks().get(1);
            SessionAnalysis.TaskResult throughput = a.tasks().get(2);
            assertThat(tpot.outcomes().get(Arm.ofStored("agent:bravo"))).containsKey("SERVER_CRASHED");
            assertThat(tpot.incorrect()).contains(Arm.ofStored("agent:charlie"));
            assertThat(tpot.outcomes().get(Arm.ofStored("agent:delta"))).containsOnlyKeys("PATCH_FAILED");
            assertThat(latency.findings().get(Arm.ofStored("agent:charlie"))).anyMatch(f -> f.contains("benchmarks/"));
            assertThat(latency.outcomes().get(Arm.ofStored("agent:delta"))).containsOnlyKeys("EMPTY_PATCH");
            assertThat(throughput.incorrect()).contains(Arm.ofStored("agent:charlie"));
            assertThat(tpot.analysis().agent("agent:alpha").orElseThrow().vsBaseline().deltaPct()).isGreaterThan(10.0);
        }
        assertThat(DockerLeftovers.under(dir)).as("containers left").isEmpty();
        assertThat(Files.readString(dir.resolve("report.md"))).contains("`SERVER_CRASHED`").contains("`PATCH_FAILED`");
    }

    private static boolean dockerReady() {
        for (String tool : List.of("python3", "git", "setsid", "docker")) {
            boolean found = false;
            for (String d : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
                found |= Files.isExecutable(Path.of(d, tool));
            }
            if (!found) {
                return false;
            }
        }
        return DockerLeftovers.imagePresent("isobench/python:bookworm");
    }
}
