package io.isobench.loadgen;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 15, point 5: {@code isobench loadgen} in its own JVM with a 64 MiB heap against servers that send 8 × 48 MiB
 * responses. Only what the metrics need is kept (the run succeeds); with {@code --save-detailed} the text is capped
 * ({@code response_too_large}); an endless SSE line and a huge unstreamed body are refused; and when the heap is too
 * small for what was asked, the I/O thread's death ends the run at once with the reason. Before, the I/O thread died
 * of OutOfMemoryError and the process waited forever.
 */
class HostileServerTest {

    private static final long MIB = 1 << 20;

    record Run(int code, String out, String err, double seconds) {
    }

    /** loadgen with 8 prompts at once unless {@code extra} says otherwise. */
    private static Run loadgen(String baseUrl, String... extra) throws Exception {
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx64m", "-XX:+UseSerialGC", "--enable-native-access=ALL-UNNAMED", "-cp",
                System.getProperty("java.class.path"), "io.isobench.cli.Main", "loadgen", "--base-url", baseUrl,
                "--model", "m", "--random-input-len", "8", "--random-output-len", "128", "--request-timeout", "120"));
        cmd.addAll(List.of(extra));
        if (!cmd.contains("--num-prompts")) {
            cmd.addAll(List.of("--num-prompts", "8"));
        }
        if (!cmd.contains("--max-concurrency")) {
            cmd.addAll(List.of("--max-concurrency", "8"));
        }
        Path out = Files.createTempFile("hostile-out", ".txt");
        Path err = Files.createTempFile("hostile-err", ".txt");
        try {
            long t0 = System.nanoTime();
            Process p = new ProcessBuilder(cmd).redirectOutput(out.toFile()).redirectError(err.toFile()).start();
            boolean done = p.waitFor(150, TimeUnit.SECONDS);
            if (!done) {
                p.destroyForcibly().waitFor();
            }
            String e = Files.readString(err, StandardCharsets.UTF_8);
            assertThat(done).as("loadgen ended (no hang); stderr: " + e).isTrue();
            return new Run(p.exitValue(), Files.readString(out, StandardCharsets.UTF_8), e,
                    (System.nanoTime() - t0) / 1e9);
        } finally {
            Files.deleteIfExists(out);
            Files.deleteIfExists(err);
        }
    }

    @Test
    @Timeout(value = 10, unit = TimeUnit.MINUTES)
    void hugeResponsesUnderASmallHeap() throws Exception {
        try (HostileServer s = new HostileServer(HostileServer.Mode.HUGE_STREAM, 48 * MIB)) {
            Run r = loadgen(s.baseUrl());
            assertThat(r.code()).as(r.err()).isZero();
            assertThat(r.out()).contains("Successful requests:                     8");

            Path results = Files.createTempDirectory("hostile");
            Run detailed = loadgen(s.baseUrl(), "--save-detailed", "--result-dir", results.toString(),
                    "--max-concurrency", "2");
            assertThat(detailed.code()).as(detailed.err()).isEqualTo(4);
            assertThat(detailed.err()).contains("response_too_large").contains("8 MiB");

            // 16 streams × 8 MiB of kept text do not fit in 64 MiB: the I/O thread dies, and the run ends at once
            Run starved = loadgen(s.baseUrl(), "--save-detailed", "--result-dir", results.toString(),
                    "--max-concurrency", "16", "--num-prompts", "16");
            assertThat(starved.code()).as(starved.err()).isIn(3, 4);
            assertThat(starved.err()).containsAnyOf("the I/O thread died (java.lang.OutOfMemoryError",
                    "response_too_large");
        }
        try (HostileServer s = new HostileServer(HostileServer.Mode.ENDLESS_LINE, 48 * MIB)) {
            Run r = loadgen(s.baseUrl());
            assertThat(r.code()).as(r.err()).isEqualTo(4);
            assertThat(r.err()).contains("response_too_large").contains("SSE line");
        }
        try (HostileServer s = new HostileServer(HostileServer.Mode.HUGE_BODY, 48 * MIB)) {
            Run r = loadgen(s.baseUrl(), "--no-stream", "--max-concurrency", "2");
            assertThat(r.code()).as(r.err()).isEqualTo(4);
            assertThat(r.err()).contains("response_too_large");
        }
    }
}
