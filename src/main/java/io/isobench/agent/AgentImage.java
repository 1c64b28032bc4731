package io.isobench.agent;

import io.isobench.IsobenchException;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Stream;

/**
 * The image a docker sandbox runs an agent in (docs/agents.md, "Sandbox"): the baseline arm's image plus the agent
 * CLI's install folder at {@value #CLI_DIR}, isobench's {@code enter} and {@code forward.py} in {@value #ROOT}, and a
 * non-root user {@value DockerSandbox#AGENT_UID} whose home is {@code /home/agent}. Built once per (base image id, CLI
 * folder content, helper files) with {@code docker build --network none} (the classic builder: no network, no
 * registry) from a temporary context, and tagged {@code isobench-agent/NAME:HASH12}; a present tag is reused.
 */
final class AgentImage {

    /** Where isobench's helper files live inside the image. */
    static final String ROOT = "/opt/isobench-agent";
    /** Where the agent CLI's install folder is baked. */
    static final String CLI_DIR = ROOT + "/cli";

    private static final String SETUP = String.join("; ",
            "set -e",
            "command -v python3 >/dev/null || { echo 'isobench: the agent image needs python3 (the egress forwarder)'"
                    + " >&2; exit 1; }",
            "grep -q '^[^:]*:[^:]*:10001:' /etc/passwd"
                    + " || echo 'agent:x:10001:10001:isobench agent:/home/agent:/bin/sh' >> /etc/passwd",
            "grep -q '^[^:]*:[^:]*:10001:' /etc/group || echo 'agent:x:10001:' >> /etc/group",
            "mkdir -p /home/agent /work/repo /run/isobench-egress",
            "chown 10001:10001 /home/agent /work/repo",
            "chmod -R a+rX " + ROOT,
            "chmod 0755 " + ROOT + "/enter");

    private AgentImage() {
    }

    /** A short command's exit status and its stdout and stderr together. */
    record Out(int code, String text) {
    }

    /** Runs {@code argv} (no shell) with {@code env} added, stdin empty; kills it after {@code limit}. */
    static Out exec(List<String> argv, Duration limit, Map<String, String> env) {
        try {
            ProcessBuilder pb = new ProcessBuilder(argv).redirectErrorStream(true)
                    .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
            pb.environment().putAll(env);
            Process p = pb.start();
            var text = new CompletableFuture<String>();
            Thread.ofVirtual().start(() -> {
                try (InputStream in = p.getInputStream()) {
                    text.complete(new String(in.readAllBytes(), StandardCharsets.UTF_8));
                } catch (IOException e) {
                    text.complete("");
                }
            });
            if (!p.waitFor(limit.toMillis(), TimeUnit.MILLISECONDS)) {
                p.destroyForcibly();
                return new Out(124, argv.get(0) + " did not finish in " + limit.toSeconds() + " s");
            }
            return new Out(p.exitValue(), text.get(10, TimeUnit.SECONDS));
        } catch (IOException e) {
            return new Out(127, argv.get(0) + ": " + e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new Out(130, "interrupted");
        } catch (ExecutionException | TimeoutException e) {
            return new Out(1, e.toString());
        }
    }

    /**
     * The tag of the agent image for {@code baseImage} with {@code cliDir} baked in (null: nothing baked), built when
     * absent.
     */
    static String ensure(String docker, String agentName, String baseImage, Path cliDir) {
        Out id = exec(List.of(docker, "image", "inspect", "--format", "{{.Id}}", baseImage), Duration.ofSeconds(60),
                Map.of());
        if (id.code() != 0) {
            throw new IsobenchException.EnvironmentMissing("docker sandbox: the base image " + baseImage
                    + " is not present: " + id.text().strip()
                    + " (fix: build or load it first, e.g. scripts/provision-docker for isobench/python:bookworm)");
        }
        String baseId = id.text().strip();
        String tag = "isobench-agent/" + repoName(agentName) + ":" + hash(baseId, cliDir).substring(0, 12);
        if (exec(List.of(docker, "image", "inspect", tag), Duration.ofSeconds(60), Map.of()).code() == 0) {
            return tag;
        }
        Path ctx = null;
        try {
            ctx = Files.createTempDirectory("isobench-agent-image-");
            Files.write(ctx.resolve("enter"), resource("enter"));
            Files.write(ctx.resolve("forward.py"), resource("forward.py"));
            StringBuilder df = new StringBuilder("FROM ").append(baseId).append('\n');
            if (cliDir != null) {
                copyTree(cliDir, ctx.resolve("cli"));
                df.append("COPY cli/ ").append(CLI_DIR).append("/\n");
            }
            df.append("COPY enter forward.py ").append(ROOT).append("/\n");
            df.append("RUN [\"/bin/sh\", \"-c\", \"").append(SETUP.replace("\\", "\\\\").replace("\"", "\\\""))
                    .append("\"]\n");
            Files.writeString(ctx.resolve("Dockerfile"), df.toString());
            Out built = exec(List.of(docker, "build", "--network", "none", "--rm", "--force-rm", "-q", "-t", tag,
                    ctx.toString()), Duration.ofMinutes(30), Map.of("DOCKER_BUILDKIT", "0"));
            if (built.code() != 0) {
                throw new IsobenchException.EnvironmentMissing("docker sandbox: building " + tag + " from " + baseImage
                        + " failed: " + built.text().strip() + " (fix: the base image needs /bin/sh and python3)");
            }
            return tag;
        } catch (IOException e) {
            throw new IsobenchException.EnvironmentMissing("docker sandbox: preparing the image context: "
                    + e.getMessage() + " (fix: check the CLI folder " + cliDir + " and free space in "
                    + System.getProperty("java.io.tmpdir") + ")", e);
        } finally {
            if (ctx != null) {
                deleteTree(ctx);
            }
        }
    }

    /** SHA-256 over the base image id, the helper files, the setup script and the CLI folder (paths, modes, bytes). */
    static String hash(String baseId, Path cliDir) {
        try {
            MessageDigest md = MessageDigest.getInstance("SHA-256");
            md.update(("base " + baseId + "\nsetup " + SETUP + "\n").getBytes(StandardCharsets.UTF_8));
            md.update(resource("enter"));
            md.update(resource("forward.py"));
            if (cliDir != null) {
                for (Path p : listTree(cliDir)) {
                    String rel = cliDir.relativize(p).toString();
                    if (Files.isSymbolicLink(p)) {
                        md.update(("link " + rel + " -> " + Files.readSymbolicLink(p) + "\n")
                                .getBytes(StandardCharsets.UTF_8));
                    } else if (Files.isDirectory(p, LinkOption.NOFOLLOW_LINKS)) {
                        md.update(("dir " + rel + "\n").getBytes(StandardCharsets.UTF_8));
                    } else {
                        md.update(("file " + rel + " " + (Files.isExecutable(p) ? "x" : "-") + " " + Files.size(p)
                                + "\n").getBytes(StandardCharsets.UTF_8));
                        try (InputStream in = Files.newInputStream(p)) {
                            byte[] buf = new byte[1 << 16];
                            int n;
                            while ((n = in.read(buf)) > 0) {
                                md.update(buf, 0, n);
                            }
                        }
                    }
                }
            }
            return HexFormat.of().formatHex(md.digest());
        } catch (NoSuchAlgorithmException | IOException e) {
            throw new IsobenchException.EnvironmentMissing("docker sandbox: hashing the CLI folder " + cliDir + ": "
                    + e.getMessage() + " (fix: the folder must be readable)", e);
        }
    }

    /** {@code name} as a docker repository path component. */
    static String repoName(String name) {
        String s = name.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9._-]+", "-").replaceAll("^[^a-z0-9]+", "");
        return s.isEmpty() ? "agent" : s;
    }

    static byte[] resource(String name) throws IOException {
        try (InputStream in = AgentImage.class.getResourceAsStream(name)) {
            if (in == null) {
                throw new IOException("missing resource io/isobench/agent/" + name);
            }
            return in.readAllBytes();
        }
    }

    private static List<Path> listTree(Path dir) throws IOException {
        try (Stream<Path> s = Files.walk(dir)) {
            return s.filter(p -> !p.equals(dir)).sorted().toList();
        }
    }

    private static void copyTree(Path from, Path to) throws IOException {
        Files.createDirectories(to);
        for (Path p : listTree(from)) {
            Path dest = to.resolve(from.relativize(p).toString());
            if (Files.isDirectory(p, LinkOption.NOFOLLOW_LINKS)) {
                Files.createDirectories(dest);
            } else {
                Files.createDirectories(dest.getParent());
                try {
                    Files.createLink(dest, p); // same file system: no copy of a large CLI
                } catch (IOException | UnsupportedOperationException e) {
                    Files.copy(p, dest, StandardCopyOption.COPY_ATTRIBUTES, LinkOption.NOFOLLOW_LINKS);
                }
            }
        }
    }

    static void deleteTree(Path dir) {
        try (Stream<Path> s = Files.walk(dir)) {
            List<Path> all = new ArrayList<>(s.toList());
            Collections.reverse(all);
            for (Path p : all) {
                Files.deleteIfExists(p);
            }
        } catch (IOException e) {
            // best effort: a temporary folder
        }
    }
}
