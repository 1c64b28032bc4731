package io.isobench.agent;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * Collects an attempt's patch (docs/agents.md, "The patch"): every change of the agent's worktree against the sealed
 * commit, tracked or new, as {@code git diff --binary}, through the host-only pristine repository and a fresh index
 * (the agent's own {@code .git}, index, commits, branches, hooks and config are never read, so an agent can neither
 * hide changes in commits nor run code on the host through git settings). New files are left out when the
 * repository's {@code .gitignore} ignores them or they match {@link #SCRATCH} (agent scratch: the CLIs' own folders,
 * Python caches, editor and merge leftovers); changes to files of the sealed tree are always kept, whatever their
 * name. Nested repositories ({@code .git} below the root) are left out.
 */
public final class PatchCollector {

    /** Untracked paths that are agent scratch, never part of a patch (gitignore syntax). */
    public static final List<String> SCRATCH = List.of(
            ".git", ".claude/", ".codex/", ".openhands/", ".isobench/", ".aider*", ".trae/",
            "__pycache__/", "*.pyc", "*.pyo", "*.orig", "*.rej", "*.swp", "*~", ".DS_Store",
            ".pytest_cache/", ".mypy_cache/", ".ruff_cache/", "node_modules/");

    private PatchCollector() {
    }

    /** The patch of {@code sealed}'s worktree against its sealed commit ({@code ""} when nothing changed). */
    public static String collect(SealedRepo sealed) throws IOException {
        Path pristine = sealed.pristine();
        Path exclude = pristine.resolve("info").resolve("exclude");
        Files.createDirectories(exclude.getParent());
        Files.writeString(exclude, String.join("\n", SCRATCH) + "\n");
        Path index = pristine.resolve("isobench-collect.index");
        Files.deleteIfExists(index);
        Map<String, String> env = Map.of("GIT_INDEX_FILE", index.toString());
        String[] base = {"--git-dir=" + pristine, "--work-tree=" + sealed.worktree(),
                "-c", "core.hooksPath=/dev/null", "-c", "core.fsmonitor=false", "-c", "core.autocrlf=false",
                "-c", "core.symlinks=true", "-c", "diff.external=", "-c", "core.attributesFile=/dev/null"};
        SealedRepo.git(sealed.worktree(), env, concat(base, "read-tree", sealed.commit()));
        SealedRepo.git(sealed.worktree(), env, concat(base, "add", "-A", "--", "."));
        String diff = SealedRepo.git(sealed.worktree(), env, concat(base, "diff", "--cached", "--binary",
                "--no-color", "--no-ext-diff", "--no-textconv", sealed.commit()));
        Files.deleteIfExists(index);
        return diff;
    }

    private static String[] concat(String[] a, String... b) {
        String[] out = java.util.Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }
}
