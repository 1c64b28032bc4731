package io.isobench.agent;

import io.isobench.IsobenchException;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * The repository an agent sees (docs/agents.md, "Fairness"): the task's parent commit as a fresh single-commit
 * tree. The files are checked out from the engine repository into a new repository with one commit made by a
 * fixed identity at a fixed date (the same tree always gives the same commit id), so no later history, no human
 * commit, no tags or remotes exist in it. A bare copy of that commit ({@code sealed.git}) stays on the host, outside
 * every sandbox: {@link PatchCollector} diffs the agent's worktree against it with isobench's own git settings, never
 * the repository's {@code .git}, which the agent controls.
 *
 * @param worktree the agent's repository
 * @param pristine the host-only bare repository holding the sealed commit
 * @param commit   the sealed commit's id
 */
public record SealedRepo(Path worktree, Path pristine, String commit) {

    /** Identity and date of every sealed commit. */
    static final Map<String, String> SEAL_ENV = Map.of(
            "GIT_AUTHOR_NAME", "isobench", "GIT_AUTHOR_EMAIL", "isobench@localhost",
            "GIT_COMMITTER_NAME", "isobench", "GIT_COMMITTER_EMAIL", "isobench@localhost",
            "GIT_AUTHOR_DATE", "2000-01-01T00:00:00Z", "GIT_COMMITTER_DATE", "2000-01-01T00:00:00Z");

    /**
     * Seals {@code commitRef} of {@code engineRepo} into {@code dirs.repo()} (must not exist) and
     * {@code dirs.root()/sealed.git}.
     */
    public static SealedRepo create(Path engineRepo, String commitRef, AttemptDirs dirs) {
        Path wt = dirs.repo();
        Path pristine = dirs.root().resolve("sealed.git");
        try {
            if (Files.exists(wt)) {
                throw new IsobenchException.BadInput(wt + ": exists (fix: an attempt folder is used once; remove it)");
            }
            Files.createDirectories(wt);
            String gitDir = git(engineRepo, Map.of(), "rev-parse", "--absolute-git-dir").strip();
            String sha = git(engineRepo, Map.of(), "rev-parse", "--verify", commitRef + "^{commit}").strip();
            Path index = dirs.root().resolve("seal.index");
            git(wt, Map.of("GIT_INDEX_FILE", index.toString()), "--git-dir=" + gitDir, "--work-tree=" + wt,
                    "-c", "core.hooksPath=/dev/null", "checkout", "-f", sha, "--", ".");
            Files.deleteIfExists(index);
            git(wt, Map.of(), "init", "-q", "-b", "main");
            git(wt, Map.of(), "-c", "core.hooksPath=/dev/null", "add", "-A", "-f");
            git(wt, SEAL_ENV, "-c", "core.hooksPath=/dev/null", "-c", "commit.gpgsign=false", "commit", "-q",
                    "--allow-empty", "-m", "isobench: the task's parent tree");
            String sealed = git(wt, Map.of(), "rev-parse", "HEAD").strip();
            git(dirs.root(), Map.of(), "clone", "-q", "--bare", "--no-hardlinks", wt.toString(), pristine.toString());
            return new SealedRepo(wt, pristine, sealed);
        } catch (IOException e) {
            throw new IsobenchException.EnvironmentMissing("sealing " + commitRef + " of " + engineRepo + ": " + e.getMessage()
                    + " (fix: check the engine repository and the attempt folder)", e);
        }
    }

    /** Starts git with {@code args} in {@code dir}: no system config, never a prompt, stdin closed by the caller. */
    static Process startGit(Path dir, Map<String, String> env, String... args) throws IOException {
        List<String> argv = new ArrayList<>();
        argv.add("git");
        argv.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(argv).directory(dir.toFile());
        pb.environment().putAll(env);
        pb.environment().put("GIT_CONFIG_NOSYSTEM", "1");
        pb.environment().put("GIT_TERMINAL_PROMPT", "0");
        return pb.start();
    }

    /** Runs git with {@code args} in {@code dir}; its stdout, or an error with its output. */
    static String git(Path dir, Map<String, String> env, String... args) throws IOException {
        Process p = startGit(dir, env, args);
        p.getOutputStream().close();
        byte[] errBytes;
        byte[] out;
        try (var err = p.getErrorStream()) {
            var errReader = new CompletableFuture<byte[]>();
            Thread t = Thread.ofVirtual().start(() -> {
                try {
                    errReader.complete(err.readAllBytes());
                } catch (IOException e) {
                    errReader.complete(new byte[0]);
                }
            });
            out = p.getInputStream().readAllBytes();
            errBytes = errReader.join();
            t.join();
            if (p.waitFor() != 0) {
                throw new IOException("git " + String.join(" ", args) + ": "
                        + new String(errBytes, StandardCharsets.UTF_8).strip());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            p.destroyForcibly();
            throw new IOException("interrupted", e);
        }
        return new String(out, StandardCharsets.UTF_8);
    }
}
