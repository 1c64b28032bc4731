package io.isobench.env;

import com.sun.net.httpserver.HttpServer;
import io.isobench.task.ArtifactSpec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 27, point 8: the artifact cache is keyed by the artifact's whole URL and expected sha256, not by the URL's
 * last path segment. Two versions served on loopback as {@code /v1.0/tool} and {@code /v2.0/tool} (the JDK's HTTP
 * server): each arm gets its own bytes, the same URL is downloaded once, and a cached file whose sha256 is not the
 * one expected is downloaded again. Before, {@code …/v2.0/tool} reused {@code …/v1.0/tool}'s file.
 */
class ArtifactCacheTest {

    @TempDir
    Path dir;

    private static ArtifactSpec.Resolved binary(String url, String sha) {
        return new ArtifactSpec.Resolved(ArtifactSpec.Type.BINARY, "tool", url, "c", "1", sha, List.of(), null,
                ArtifactSpec.Verify.VERSION);
    }

    @Test
    void twoVersionsWithTheSameFileNameAreTwoCacheEntries() throws Exception {
        Map<String, String> bodies = Map.of("/v1.0/tool", "tool 1.0\n", "/v2.0/tool", "tool 2.0\n");
        Map<String, AtomicInteger> hits = new ConcurrentHashMap<>();
        HttpServer http = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        http.createContext("/", ex -> {
            String path = ex.getRequestURI().getPath();
            hits.computeIfAbsent(path, k -> new AtomicInteger()).incrementAndGet();
            byte[] b = bodies.getOrDefault(path, "").getBytes(StandardCharsets.UTF_8);
            ex.sendResponseHeaders(b.length == 0 ? 404 : 200, b.length == 0 ? -1 : b.length);
            try (OutputStream o = ex.getResponseBody()) {
                o.write(b);
            }
        });
        http.start();
        try {
            String base = "http://127.0.0.1:" + http.getAddress().getPort();
            Path cache = Files.createDirectories(dir.resolve("artifacts"));
            StringBuilder log = new StringBuilder();
            Path v1 = Artifacts.fetch(binary(base + "/v1.0/tool", null), cache, ArmSetup.NONE, log);
            Path v2 = Artifacts.fetch(binary(base + "/v2.0/tool", null), cache, ArmSetup.NONE, log);
            assertThat(v1).isNotEqualTo(v2);
            assertThat(v1.getFileName().toString()).isEqualTo("tool");
            assertThat(Files.readString(v1)).isEqualTo("tool 1.0\n");
            assertThat(Files.readString(v2)).as(log.toString()).isEqualTo("tool 2.0\n");

            // the same URL again: from the cache, no second download
            Path again = Artifacts.fetch(binary(base + "/v1.0/tool", null), cache, ArmSetup.NONE, log);
            assertThat(again).isEqualTo(v1);
            assertThat(hits.get("/v1.0/tool").get()).isEqualTo(1);

            // with the sha256 the suite expects: its own entry; a tampered cached file is downloaded again
            String sha2 = Artifacts.sha256(v2);
            Path pinned = Artifacts.fetch(binary(base + "/v2.0/tool", sha2), cache, ArmSetup.NONE, log);
            assertThat(Files.readString(pinned)).isEqualTo("tool 2.0\n");
            Files.writeString(pinned, "tampered\n");
            StringBuilder log2 = new StringBuilder();
            Path fresh = Artifacts.fetch(binary(base + "/v2.0/tool", sha2), cache, ArmSetup.NONE, log2);
            assertThat(Files.readString(fresh)).isEqualTo("tool 2.0\n");
            assertThat(log2.toString()).contains("is not sha256 " + sha2 + ": downloading again");
            assertThat(hits.get("/v2.0/tool").get()).isEqualTo(3);
        } finally {
            http.stop(0);
        }
    }
}
