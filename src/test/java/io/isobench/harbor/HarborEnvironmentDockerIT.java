package io.isobench.harbor;

import io.isobench.SharedData;
import io.isobench.task.SuiteLoader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An exported llama2c task's agent environment built as Harbor's docker provider builds it ({@code docker build} of
 * environment/, here with no network, on the local image isobench/python:bookworm): the Dockerfile's own check passes
 * (the rebuilt commit is task.toml's sealed_commit), the agent is uid 10001, the tree is clean and holds one commit,
 * the setup's input is in /app/work, and nothing of the human commit or isobench is in the image.
 */
class HarborEnvironmentDockerIT {

    static final String BASE = "isobench/python:bookworm";

    @TempDir
    Path tmp;

    @Test
    void theAgentImageHoldsOnlyTheSealedTreeAndItsInputs() throws Exception {
        SharedData.require("engines/llama2.c.bundle");
        SharedData.requireService(docker("image", "inspect", BASE).code == 0,
                "a running docker daemon with the image " + BASE + " (scripts/provision-docker)");
        Path jar = Files.writeString(tmp.resolve("isobench.jar"), "not read by the agent's image");
        HarborExport.Exported e = HarborExport.export(SuiteLoader.load(Path.of("examples/llama2c/suite.yaml")),
                tmp.resolve("out"), new HarborExport.Options(List.of("topp-filter"), BASE, BASE, null, jar, "it"))
                .getFirst();
        Map<?, ?> meta = (Map<?, ?>) Toml.parse(Files.readString(e.dir().resolve("task.toml"))).get("metadata");
        String tag = "isobench-harbor-it/env-" + UUID.randomUUID().toString().substring(0, 8) + ":1";
        try {
            Result b = docker("build", "--network", "none", "-q", "-t", tag, e.dir().resolve("environment").toString());
            assertThat(b.code).as(b.out).isZero();
            Result r = docker("run", "--rm", "--network", "none", tag, "bash", "-c",
                    "id -u; git -C /app/repo rev-list --count HEAD; git -C /app/repo rev-parse HEAD;"
                            + " git -C /app/repo status --porcelain | wc -l; test -s /app/work/llama2c-model.bin && echo"
                            + " input; ls /isobench /solution 2>&1 | grep -c 'No such file'; git -C /app/repo cat-file"
                            + " -e " + meta.get("human_commit") + " 2>/dev/null && echo human || echo no-human");
            assertThat(r.code).as(r.out).isZero();
            assertThat(r.out.strip().lines().toList()).containsExactly("10001", "1", (String) meta.get("sealed_commit"),
                    "0", "input", "2", "no-human");
        } finally {
            docker("rmi", "-f", tag);
        }
    }

    private record Result(int code, String out) {
    }

    private static Result docker(String... args) throws Exception {
        List<String> argv = new ArrayList<>(List.of("docker"));
        argv.addAll(List.of(args));
        Process p;
        try {
            p = new ProcessBuilder(argv).redirectErrorStream(true).start();
        } catch (IOException e) {
            return new Result(127, e.getMessage());
        }
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        return new Result(p.waitFor(), out);
    }
}
