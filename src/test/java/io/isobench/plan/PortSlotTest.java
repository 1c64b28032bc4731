package io.isobench.plan;

import io.isobench.task.SuiteLoader;
import io.isobench.task.Word;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A server's port is a slot of its typed command, never a number standing in for it: flags whose values hold the
 * digits of a port (the old sentinel 65432 among them) run, and are shown, as written.
 */
class PortSlotTest {

    @TempDir
    Path dir;

    private Plan plan(String serveCommand, String offlineCommand, String template) throws Exception {
        Files.createDirectories(dir.resolve("repo"));
        Files.writeString(dir.resolve("s.yaml"), String.join("\n",
                "engine: {repo: ./repo, name: vllm}",
                "tasks:",
                "  - id: serve",
                "    human_commit: h1",
                "    model: facebook/opt-125m",
                "    perf_command: \"" + serveCommand + "\"",
                "  - id: tpl",
                "    human_commit: h2",
                "    mode: serving",
                "    server_command: \"" + template + "\"",
                "    perf_command: \"" + serveCommand + "\"",
                "  - id: off",
                "    human_commit: h3",
                "    model: facebook/opt-125m",
                "    perf_command: \"" + offlineCommand + "\"",
                "run: {rounds: 1, seed: 1}",
                ""));
        return Planner.plan(SuiteLoader.load(dir.resolve("s.yaml")), new Planner.Options(null, null,
                dir.resolve("work"), false));
    }

    private static final String SERVE = "python benchmarks/benchmark_serving.py --model facebook/opt-125m"
            + " --max-num-batched-tokens 65432 --seed 1065432 --num-prompts 65432 --dataset-name random";
    private static final String OFFLINE = "python benchmarks/benchmark_latency.py --model facebook/opt-125m"
            + " --max-num-batched-tokens 65432 --seed 1065432 --batch-size 8";
    private static final String TEMPLATE = "vllm serve {model} --host {host} --port {port}"
            + " --url=http://{host}:{port}/v1 {server_flags} --x 65432";

    @Test
    void theSuiteWithPortDigitsPlansAndShowsItsFlagsAsWritten() throws Exception {
        Plan p = plan(SERVE, OFFLINE, TEMPLATE);
        Job serve = job(p, "serve/baseline/r0");
        assertThat(serve.argv()).containsSubsequence("--max-num-batched-tokens", "65432")
                .endsWith("--host", "127.0.0.1", "--port", "{port}");
        assertThat(serve.argvFor(18000)).containsSubsequence("--max-num-batched-tokens", "65432")
                .endsWith("--port", "18000");
        assertThat(serve.client().argv()).containsSubsequence("--seed", "1065432")
                .containsSubsequence("--num-prompts", "65432");
        assertThat(serve.client().loadgenFlags()).containsEntry("seed", "1065432").containsEntry("num-prompts", "65432");

        Job tpl = job(p, "tpl/human/r0");
        assertThat(tpl.spec().command().argvFor("0.0.0.0", 8000)).containsExactly("vllm", "serve", "facebook/opt-125m", "--host",
                "0.0.0.0", "--port", "8000", "--url=http://0.0.0.0:8000/v1", "--max-num-batched-tokens", "65432",
                "--x", "65432");

        // an offline task's correctness gate starts the engine's server with the command's engine flags
        Job offCheck = job(p, "off/baseline/check");
        assertThat(offCheck.argvFor(65432)).containsSubsequence("--max-num-batched-tokens", "65432")
                .containsSubsequence("--seed", "1065432").endsWith("--port", "65432");
        assertThat(job(p, "off/human/r0").argv()).containsSubsequence("--max-num-batched-tokens", "65432",
                "--seed", "1065432");

        // --dry-run (text and JSON)
        String text = p.toText();
        assertThat(text).contains("--max-num-batched-tokens 65432").contains("--seed 1065432")
                .contains("--num-prompts 65432").contains("--x 65432").doesNotContain("10{port}")
                .doesNotContain("--max-num-batched-tokens {port}").doesNotContain("--x {port}");
        assertThat(p.toJson()).contains("\"65432\"").contains("\"1065432\"").doesNotContain("10{port}")
                .doesNotContain("\"--max-num-batched-tokens\", \"{port}\"");
    }

    @Test
    void flagValuesHoldingTheDigitsOfAnyPortNeverChange() throws Exception {
        Random r = new Random(29);
        List<Integer> ports = new ArrayList<>(List.of(65432, 1, 8000, 65535));
        for (int i = 0; i < 36; i++) {
            ports.add(1 + r.nextInt(65535));
        }
        for (int port : ports) {
            String digits = Integer.toString(port);
            String a = digits;
            String b = r.nextInt(1000) + digits + r.nextInt(10);
            String c = "x" + digits + "_" + digits;
            String serve = "python benchmarks/benchmark_serving.py --model facebook/opt-125m --max-num-batched-tokens "
                    + a + " --seed " + b + " --num-prompts " + a + " --dataset-name random";
            String offline = "python benchmarks/benchmark_latency.py --model facebook/opt-125m"
                    + " --max-num-batched-tokens " + b + " --batch-size " + a;
            String template = "vllm serve {model} --host {host} --port {port} {server_flags} --tag " + c;
            Plan p = plan(serve, offline, template);
            for (Job j : p.jobs()) {
                List<String> ran = j.argvFor(port);
                List<String> shown = j.argv();
                if (j.taskId().equals("off") && j.kind() == Job.Kind.MEASURE) {
                    assertThat(ran).as("offline %s", port).containsSubsequence("--max-num-batched-tokens", b,
                            "--batch-size", a);
                    continue;
                }
                assertThat(ran).as("port %s: %s", port, j.jobId()).containsSubsequence("--port", digits)
                        .containsSubsequence("--max-num-batched-tokens", j.taskId().equals("off") ? b : a);
                assertThat(Collections.frequency(shown, "{port}")).as(j.jobId()).isEqualTo(1);
                assertThat(shown.stream().filter(w -> w.contains("{port}")).count()).as(j.jobId()).isEqualTo(1);
                if (j.taskId().equals("tpl")) {
                    assertThat(ran).endsWith("--max-num-batched-tokens", a, "--tag", c);
                }
                if (j.kind() == Job.Kind.MEASURE) {
                    assertThat(j.client().argv()).containsSubsequence("--seed", b).containsSubsequence("--num-prompts",
                            a);
                }
            }
        }
    }

    @Test
    void theCommandFillsItsSlotsAndNothingElse() {
        Random r = new Random(7);
        for (int i = 0; i < 200; i++) {
            int port = 1 + r.nextInt(65535);
            String digits = Integer.toString(port);
            List<String> literal = List.of("srv", digits, "--v=" + digits, digits + digits, "{port}", "{host}");
            Command c = new Command(concat(Word.literal(literal), List.of(Word.text("--port"), Word.PORT)));
            assertThat(c.argvFor("h", port)).containsExactly("srv", digits, "--v=" + digits, digits + digits,
                    "{port}", "{host}", "--port", digits);
            assertThat(c.planned()).containsExactly("srv", digits, "--v=" + digits, digits + digits, "{port}",
                    "{host}", "--port", "{port}");
        }
        Command t = Command.template(List.of("srv", "--host", "{host}", "--url=http://{host}:{port}/v1", "it's"));
        assertThat(t.hasPort()).isTrue();
        assertThat(Command.of(List.of("{port}")).hasPort()).isFalse();
        assertThat(t.line(s -> s.contains("'") ? "Q" : s, "0.0.0.0", "\"$port\""))
                .isEqualTo("srv --host 0.0.0.0 --url=http://0.0.0.0:\"$port\"/v1 Q");
        assertThat(t.line(s -> "<" + s + ">")).isEqualTo("<srv> <--host> <{host}> <--url=http://{host}:{port}/v1>"
                + " <it's>");
    }

    private static List<Word> concat(List<Word> a, List<Word> b) {
        List<Word> out = new ArrayList<>(a);
        out.addAll(b);
        return out;
    }

    private static Job job(Plan p, String id) {
        return p.jobs().stream().filter(j -> j.jobId().equals(id)).findFirst().orElseThrow(() ->
                new AssertionError("no job " + id + " in " + p.jobs().stream().map(Job::jobId).toList()));
    }
}
