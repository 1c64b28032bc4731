package io.isobench.env;

import io.isobench.guard.InsideTree;
import io.isobench.parse.Failure;
import io.isobench.parse.FailureCategory;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * The local environment strategy: one git worktree per arm at the intended commit, the agent patch checked with
 * {@code git apply --check} before it is applied, and the result verified with {@code git rev-parse HEAD}.
 * Never throws for a bad repo, commit or patch: those are {@link Environment#failure()} outcomes.
 */
public final class Worktrees {

    private static final long GIT_TIMEOUT_S = 60;

    private Worktrees() {
    }

    /**
     * Prepares (or re-creates) the worktree {@code dest} of {@code repo} at {@code commitRef}, applying
     * {@code patch} when given.
     */
    public static Environment prepare(Path repo, String commitRef, Path patch, Path dest) {
        return prepare(repo, commitRef, patch, dest, ArmSetup.NONE);
    }

    /**
     * Prepares the worktree as {@link #prepare(Path, String, Path, Path)} does, then applies the fix recipes of
     * {@code setup} in order and runs its build step (DESIGN §3). A recipe that fails is classified
     * ({@code pip_pin}: DEPENDENCY_CONFLICT when pip reports a resolution conflict, else ENV_MISSING;
     * {@code apply_patch}, {@code replace_in_file}: BUILD_FAILED); a build that exits non-zero or passes its
     * limit is BUILD_FAILED, one whose program does not exist ENV_MISSING. Never throws for those: they are
     * {@link Environment#failure()} outcomes, with the recipes tried and the build recorded.
     */
    public static Environment prepare(Path repo, String commitRef, Path patch, Path dest, ArmSetup setup) {
        StringBuilder log = new StringBuilder();
        if (repo == null || !Files.isDirectory(repo)) {
            return fail(dest, null, FailureCategory.ENV_MISSING, "engine repository " + repo + " does not exist",
                    log);
        }
        Git rc = git(log, repo, "rev-parse", "--git-dir");
        if (rc.code != 0) {
            return fail(dest, null, FailureCategory.ENV_MISSING, "engine repository " + repo + " is not a git repository",
                    log);
        }
        Git sha = git(log, repo, "rev-parse", "--verify", "--quiet", commitRef + "^{commit}");
        if (sha.code != 0 || sha.out.isBlank()) {
            return fail(dest, null, FailureCategory.ENV_MISSING, "commit " + commitRef + " not found in " + repo, log);
        }
        String intended = sha.out.strip();
        try {
            if (Files.exists(dest)) {
                git(log, repo, "worktree", "remove", "--force", dest.toString());
                deleteTree(dest);
            }
            deleteTree(siteDir(dest));
            deleteTree(scratch(dest));
            git(log, repo, "worktree", "prune");
            Files.createDirectories(dest.getParent());
        } catch (IOException e) {
            return fail(dest, intended, FailureCategory.GIT_ERROR, "cannot clear " + dest + ": " + e.getMessage(), log);
        }
        Git add = git(log, repo, "worktree", "add", "--force", "--detach", dest.toString(), intended);
        if (add.code != 0) {
            return fail(dest, intended, FailureCategory.GIT_ERROR, "git worktree add failed: " + firstLine(add.out), log);
        }
        String patchSha = null;
        if (patch != null) {
            long size;
            try { // streamed: a patch of any size costs no memory here (git applies it from the file)
                patchSha = Artifacts.sha256(patch);
                size = Files.size(patch);
                if (blank(patch)) {
                    return fail(dest, intended, FailureCategory.EMPTY_PATCH, "agent patch " + patch.getFileName()
                            + " is empty (" + size + " bytes)", log);
                }
            } catch (IOException e) {
                return fail(dest, intended, FailureCategory.PATCH_FAILED, "agent patch " + patch + " cannot be read: "
                        + e.getMessage(), log);
            }
            String outside = leavesTree(dest, patch);
            if (outside != null) {
                return fail(dest, intended, FailureCategory.PATCH_FAILED, "agent patch " + patch.getFileName()
                        + " writes outside the worktree: " + outside, log);
            }
            Git check = git(log, dest, "apply", "--check", patch.toAbsolutePath().toString());
            if (check.code != 0) {
                return fail(dest, intended, FailureCategory.PATCH_FAILED, "git apply --check " + patch.getFileName()
                        + ": " + firstLine(check.out), log);
            }
            Git apply = git(log, dest, "apply", patch.toAbsolutePath().toString());
            if (apply.code != 0) {
                return fail(dest, intended, FailureCategory.PATCH_FAILED, "git apply " + patch.getFileName() + ": "
                        + firstLine(apply.out), log);
            }
        }
        Recipes.SetUp done = Recipes.recipesAndBuild(dest, setup, new LinkedHashMap<>(), log);
        List<RecipeApplication> applied = done.applied();
        Map<String, String> env = done.env();
        BuildStep build = done.build();
        if (done.failure() != null) {
            return new Environment(dest, new Environment.Identity(intended, null, patchSha, null), done.failure(),
                    log.toString(), new Environment.Preparation(applied, build, env, null));
        }
        Git head = git(log, dest, "rev-parse", "HEAD");
        String verified = head.code == 0 ? head.out.strip() : null;
        if (!intended.equals(verified)) {
            return new Environment(dest, new Environment.Identity(intended, verified, patchSha, null),
                    new Failure(FailureCategory.GIT_ERROR, "environment is at " + verified + ", not the intended "
                    + intended, List.of()), log.toString(), new Environment.Preparation(applied, build, env, null));
        }
        String ref = "git-worktree:" + verified + (patchSha == null ? "" : "+patch:" + patchSha.substring(0, 12));
        return new Environment(dest, new Environment.Identity(intended, verified, patchSha, ref), null, log.toString(),
                new Environment.Preparation(applied, build, env, null));
    }

    /** Where {@code pip_pin} installs for the worktree {@code dest}: a sibling folder, put first on PYTHONPATH. */
    public static Path siteDir(Path dest) {
        return dest.resolveSibling(dest.getFileName() + ".site");
    }

    /**
     * The folder of an arm's temporary files (build and job logs): {@code <worktree>.tmp}, beside the worktree in the
     * work folder, created on demand and cleared when the worktree is prepared again or removed.
     */
    public static Path scratch(Path worktree) {
        Path w = worktree.toAbsolutePath().normalize();
        return w.resolveSibling(w.getFileName() + ".tmp");
    }

    /**
     * Whether a patch would write outside the worktree: every path it touches (as git's own parser lists them,
     * renames' both sides) resolved with {@link InsideTree#resolve}; null when all stay inside, else the first that
     * does not, with where it leads (a symbolic link an earlier patch planted, {@code ..}).
     */
    static String leavesTree(Path dest, Path patch) {
        Git numstat = git(new StringBuilder(), dest, "apply", "--numstat", "-z", patch.toAbsolutePath().toString());
        if (numstat.code != 0) {
            return null; // not a patch git can read: git apply --check says why
        }
        String[] parts = numstat.out.split("\0");
        for (int i = 0; i < parts.length; i++) {
            String[] f = parts[i].split("\t", 3);
            List<String> paths = f.length < 3 ? List.of()
                    : !f[2].isEmpty() ? List.of(f[2])
                    : List.of(i + 1 < parts.length ? parts[++i] : "", i + 1 < parts.length ? parts[++i] : "");
            for (String rel : paths) {
                if (rel.isEmpty()) {
                    continue;
                }
                try {
                    InsideTree.resolve(dest, rel);
                } catch (InsideTree.Outside e) {
                    return e.getMessage();
                } catch (IOException e) {
                    return rel + " cannot be checked (" + e.getMessage() + ")";
                }
            }
        }
        return null;
    }

    /** Removes the worktree (best effort). */
    public static void remove(Path repo, Path dest) {
        StringBuilder ignored = new StringBuilder();
        if (repo != null && Files.isDirectory(repo)) {
            git(ignored, repo, "worktree", "remove", "--force", dest.toString());
        }
        try {
            deleteTree(dest);
            deleteTree(siteDir(dest));
            deleteTree(scratch(dest));
        } catch (IOException e) {
            // best effort
        }
    }

    private static Environment fail(Path dest, String intended, FailureCategory category, String detail,
                                    StringBuilder log) {
        log.append("# ").append(category).append(": ").append(detail).append('\n');
        return Environment.failed(dest, intended, new Failure(category, detail, List.of(detail)), log.toString());
    }

    record Git(int code, String out) {
    }

    /**
     * The state of a worktree's tracked files: sha256 of {@code git diff HEAD --binary} (the patch, the recipes'
     * edits and whatever changed tracked files since), streamed; empty when git cannot tell. Untracked files (build
     * outputs, caches) are not part of it.
     */
    public static Optional<String> trackedState(Path worktree) {
        try {
            Process p = new ProcessBuilder("git", "-c", "safe.directory=*", "-c", "core.fsmonitor=false", "diff",
                    "HEAD", "--binary", "--no-ext-diff", "--no-textconv").directory(worktree.toFile())
                    .redirectError(ProcessBuilder.Redirect.DISCARD).start();
            p.getOutputStream().close();
            MessageDigest md = MessageDigest.getInstance("SHA-256");
            try (InputStream in = p.getInputStream()) {
                byte[] buf = new byte[1 << 16];
                for (int n; (n = in.read(buf)) > 0; ) {
                    md.update(buf, 0, n);
                }
            }
            if (!p.waitFor(GIT_TIMEOUT_S, TimeUnit.SECONDS) || p.exitValue() != 0) {
                p.destroyForcibly();
                return Optional.empty();
            }
            return Optional.of(HexFormat.of().formatHex(md.digest()));
        } catch (IOException | NoSuchAlgorithmException e) {
            return Optional.empty();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Optional.empty();
        }
    }

    static Git git(StringBuilder log, Path cwd, String... args) {
        List<String> argv = new ArrayList<>();
        argv.add("git");
        argv.add("-c");
        argv.add("advice.detachedHead=false");
        // a confined arm's worktree belongs to the sandbox's unprivileged uid when isobench runs as root
        // (proc.Sandbox): git would refuse it as of dubious ownership
        argv.add("-c");
        argv.add("safe.directory=*");
        argv.addAll(List.of(args));
        log.append("$ (").append(cwd).append(") ").append(String.join(" ", argv)).append('\n');
        try {
            Process p = new ProcessBuilder(argv).directory(cwd.toFile()).redirectErrorStream(true).start();
            p.getOutputStream().close();
            byte[] out = p.getInputStream().readAllBytes();
            if (!p.waitFor(GIT_TIMEOUT_S, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                log.append("git timed out\n");
                return new Git(124, "git timed out");
            }
            String text = new String(out, StandardCharsets.UTF_8);
            log.append(text);
            return new Git(p.exitValue(), text);
        } catch (IOException e) {
            log.append(e.getMessage()).append('\n');
            return new Git(127, "git: " + e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new Git(130, "interrupted");
        }
    }

    static String firstLine(String s) {
        String t = s.strip();
        int nl = t.indexOf('\n');
        return nl < 0 ? t : t.substring(0, nl);
    }

    /** Whether a file holds only ASCII white space (or nothing), read a block at a time. */
    static boolean blank(Path file) throws IOException {
        try (InputStream in = Files.newInputStream(file)) {
            byte[] buf = new byte[1 << 16];
            for (int n; (n = in.read(buf)) > 0; ) {
                for (int i = 0; i < n; i++) {
                    byte b = buf[i];
                    if (b != ' ' && b != '\t' && b != '\n' && b != '\r' && b != '\f' && b != 0x0B) {
                        return false;
                    }
                }
            }
            return true;
        }
    }

    private static void deleteTree(Path p) throws IOException {
        if (!Files.exists(p)) {
            return;
        }
        try (var s = Files.walk(p)) {
            for (Path x : s.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(x);
            }
        }
    }
}
