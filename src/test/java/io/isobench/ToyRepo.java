package io.isobench;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/** The bundled toy engine's git repo (examples/toy-engine/build-repo.sh), built for a test. */
public final class ToyRepo {

    private ToyRepo() {
    }

    /** Builds the toy engine repo into {@code dest}; fails with the script's output when it does not succeed. */
    public static void build(Path dest) throws IOException, InterruptedException {
        Process p = new ProcessBuilder("bash", Path.of("examples/toy-engine/build-repo.sh").toAbsolutePath().toString(),
                dest.toString()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
            throw new IllegalStateException("build-repo.sh failed: " + out);
        }
    }

    /**
     * Whether python3, git, setsid (util-linux) and bwrap (bubblewrap: the sandbox every arm runs in by default), what
     * the toy engine, its repo and a session on it need, are on the PATH.
     */
    public static boolean toolsPresent() {
        return onPath("python3") && onPath("git") && onPath("setsid") && onPath("bwrap");
    }

    private static boolean onPath(String program) {
        for (String d : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
            if (Files.isExecutable(Path.of(d, program))) {
                return true;
            }
        }
        return false;
    }

    /** Runs {@code argv} in {@code cwd} (git in the repo, typically); its output; fails with it unless it exits 0. */
    public static String run(Path cwd, String... argv) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(argv).directory(cwd.toFile()).redirectErrorStream(true).start();
        String text = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (p.waitFor() != 0) {
            throw new IllegalStateException(String.join(" ", argv) + " exited " + p.exitValue() + ": " + text);
        }
        return text;
    }
}
