package io.isobench.harbor;

import io.isobench.IsobenchException;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/** git and tar for the export and import: no system config, never a prompt, hooks off; an error names the command. */
final class Git {

    private Git() {
    }

    /** Runs {@code argv} in {@code dir}; its stdout, or an {@link IsobenchException.EnvironmentMissing} with stderr. */
    static String run(Path dir, String... argv) {
        List<String> cmd = new ArrayList<>(List.of(argv));
        ProcessBuilder pb = new ProcessBuilder(cmd).directory(dir.toFile());
        pb.environment().put("GIT_CONFIG_NOSYSTEM", "1");
        pb.environment().put("GIT_TERMINAL_PROMPT", "0");
        try {
            Process p = pb.start();
            p.getOutputStream().close();
            CompletableFuture<byte[]> err = new CompletableFuture<>();
            Thread.ofVirtual().start(() -> {
                try {
                    err.complete(p.getErrorStream().readAllBytes());
                } catch (IOException e) {
                    err.complete(new byte[0]);
                }
            });
            byte[] out = p.getInputStream().readAllBytes();
            if (p.waitFor() != 0) {
                throw new IsobenchException.EnvironmentMissing(String.join(" ", argv) + " (in " + dir + ") exited "
                        + p.exitValue() + ": " + new String(err.join(), StandardCharsets.UTF_8).strip());
            }
            return new String(out, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new IsobenchException.EnvironmentMissing(argv[0] + ": " + e.getMessage() + " (fix: install "
                    + argv[0] + ")", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IsobenchException.EnvironmentMissing("interrupted: " + String.join(" ", argv), e);
        }
    }

    /** {@code git -c core.hooksPath=/dev/null ARGS} in {@code dir}. */
    static String git(Path dir, String... args) {
        List<String> argv = new ArrayList<>(List.of("git", "-c", "core.hooksPath=/dev/null"));
        argv.addAll(List.of(args));
        return run(dir, argv.toArray(String[]::new));
    }

    /**
     * A byte-stable tar of {@code tree} without its top-level {@code .git}: names sorted, owner 0, fixed date
     * (2000-01-01, the sealed commit's), group/other write bits off; GNU tar.
     */
    static void tarTree(Path tree, Path out) {
        run(tree, "tar", "--sort=name", "--format=gnu", "--mtime=@946684800", "--owner=0", "--group=0",
                "--numeric-owner", "--mode=u+rw,go-w,go+r", "--exclude=./.git", "-cf", out.toString(), ".");
    }
}
