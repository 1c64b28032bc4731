package io.isobench.agent;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * Collects an attempt's patch (docs/agents.md, "The patch"): every change of the agent's worktree against the sealed
 * commit, tracked or new, as {@code git diff --binary}, through the host-only pristine repository and a fresh index
 * (the agent's own {@code .git}, index, commits, branches, hooks and config are never read, so an agent can neither
 * hide changes in commits nor run code on the host through git settings). New files are left out when the
 * repository's {@code .gitignore} ignores them or they match {@link #SCRATCH} (agent scratch: the CLIs' own folders,
 * Python caches, editor and merge leftovers); changes to files of the sealed tree are always kept, whatever their
 * name. Nested repositories ({@code .git} below the root) are left out.
 *
 * <p>The patch is bytes, never text: git's output is streamed to a file as it comes, byte for byte. Its size is
 * bounded before and while git runs (docs/agents.md, "Limits"): before {@code git add}, the files the patch would
 * carry (new files, and tracked files whose size changed) are summed by apparent size — a sparse file counts whole,
 * each hard link counts — without reading them; then {@code git diff} is cut off when it passes the limit.
 */
public final class PatchCollector {

    /** Untracked paths that are agent scratch, never part of a patch (gitignore syntax). */
    public static final List<String> SCRATCH = List.of(
            ".git", ".claude/", ".codex/", ".openhands/", ".isobench/", ".aider*", ".trae/",
            "__pycache__/", "*.pyc", "*.pyo", "*.orig", "*.rej", "*.swp", "*~", ".DS_Store",
            ".pytest_cache/", ".mypy_cache/", ".ruff_cache/", "node_modules/");

    /** Most bytes of git's stderr kept for an error message. */
    private static final int STDERR_BYTES = 64 * 1024;

    /**
     * A collected patch.
     *
     * @param file     where its bytes are (absent when the limit cut it off)
     * @param bytes    its size (0: nothing changed)
     * @param tooLarge why it passed the limit (one line), or null
     */
    public record Collected(Path file, long bytes, String tooLarge) {
    }

    private PatchCollector() {
    }

    /**
     * Writes the patch of {@code sealed}'s worktree against its sealed commit to {@code out} (empty when nothing
     * changed), at most {@code maxBytes} bytes; past them, {@code out} is deleted and the result says why.
     */
    public static Collected collect(SealedRepo sealed, Path out, long maxBytes) throws IOException {
        Path pristine = sealed.pristine();
        Path exclude = pristine.resolve("info").resolve("exclude");
        Files.createDirectories(exclude.getParent());
        Files.writeString(exclude, String.join("\n", SCRATCH) + "\n");
        Path index = pristine.resolve("isobench-collect.index");
        Files.deleteIfExists(index);
        Files.deleteIfExists(out);
        Map<String, String> env = Map.of("GIT_INDEX_FILE", index.toString());
        String[] base = {"--git-dir=" + pristine, "--work-tree=" + sealed.worktree(),
                "-c", "core.hooksPath=/dev/null", "-c", "core.fsmonitor=false", "-c", "core.autocrlf=false",
                "-c", "core.symlinks=true", "-c", "diff.external=", "-c", "core.attributesFile=/dev/null"};
        try {
            SealedRepo.git(sealed.worktree(), env, concat(base, "read-tree", sealed.commit()));
            String over = oversized(sealed, env, base, maxBytes);
            if (over != null) {
                return new Collected(out, 0, over);
            }
            SealedRepo.git(sealed.worktree(), env, concat(base, "add", "-A", "--", "."));
            long written;
            try (OutputStream o = Files.newOutputStream(out)) {
                written = stream(sealed.worktree(), env, o, maxBytes, concat(base, "diff", "--cached", "--binary",
                        "--no-color", "--no-ext-diff", "--no-textconv", sealed.commit()));
            }
            if (written > maxBytes) {
                Files.deleteIfExists(out);
                return new Collected(out, 0, "the patch passed " + maxBytes + " bytes while git wrote it (limit"
                        + " patch_mb; fix: a smaller change, or raise runner.limits.patch_mb)");
            }
            return new Collected(out, written, null);
        } finally {
            Files.deleteIfExists(index);
        }
    }

    /**
     * Why the files the patch would carry pass {@code maxBytes} (apparent sizes, nothing read), or null: every new
     * file (not ignored, not scratch) and every tracked file whose size differs from the sealed one.
     */
    private static String oversized(SealedRepo sealed, Map<String, String> env, String[] base, long maxBytes)
            throws IOException {
        Map<String, Long> sealedSizes = new HashMap<>();
        for (String entry : SealedRepo.git(sealed.worktree(), env, concat(base, "ls-tree", "-r", "-z", "-l",
                sealed.commit())).split("\0")) {
            int tab = entry.indexOf('\t');
            String[] meta = tab < 0 ? new String[0] : entry.substring(0, tab).trim().split("\\s+");
            if (meta.length == 4 && meta[1].equals("blob")) {
                sealedSizes.put(entry.substring(tab + 1), Long.parseLong(meta[3]));
            }
        }
        ByteArrayOutputStream names = new ByteArrayOutputStream();
        long listed = stream(sealed.worktree(), env, names, maxBytes, concat(base, "ls-files", "-z", "--others",
                "--exclude-standard"));
        if (listed > maxBytes) {
            return "the agent left more new paths than their names fit in " + maxBytes + " bytes (limit patch_mb)";
        }
        List<String> paths = new ArrayList<>(sealedSizes.keySet());
        for (String p : new String(names.toByteArray(), StandardCharsets.UTF_8).split("\0")) {
            if (!p.isEmpty()) {
                paths.add(p);
            }
        }
        long total = 0;
        String largest = null;
        long largestBytes = -1;
        for (String p : paths) {
            Path f = sealed.worktree().resolve(p);
            if (!Files.isRegularFile(f, LinkOption.NOFOLLOW_LINKS)) {
                continue; // gone, a symlink (its text is small) or a folder (a nested repository: left out)
            }
            long size = Files.size(f); // apparent size: a sparse file counts whole
            Long was = sealedSizes.get(p);
            if (was != null && was == size) {
                continue; // same size as sealed: its diff is bounded by the sealed tree
            }
            total += size;
            if (size > largestBytes) {
                largestBytes = size;
                largest = p;
            }
        }
        if (total <= maxBytes) {
            return null;
        }
        return String.format(Locale.ROOT, "the changed files hold %d bytes (apparent size; largest %s: %d bytes)"
                + " > %d bytes (limit patch_mb; fix: a smaller change, or raise runner.limits.patch_mb)",
                total, largest, largestBytes, maxBytes);
    }

    /**
     * Runs git and copies its stdout to {@code out}, stopping (git killed) once more than {@code maxBytes} came;
     * returns the bytes copied ({@code maxBytes + 1} when cut off); an error with git's stderr when it failed.
     */
    private static long stream(Path dir, Map<String, String> env, OutputStream out, long maxBytes, String... args)
            throws IOException {
        Process p = SealedRepo.startGit(dir, env, args);
        p.getOutputStream().close();
        CompletableFuture<byte[]> err = new CompletableFuture<>();
        Thread.ofVirtual().start(() -> err.complete(head(p.getErrorStream())));
        long n = 0;
        try (InputStream in = p.getInputStream()) {
            byte[] buf = new byte[1 << 16];
            int r;
            while ((r = in.read(buf)) >= 0) {
                if (n + r > maxBytes) {
                    p.destroyForcibly();
                    return maxBytes + 1;
                }
                out.write(buf, 0, r);
                n += r;
            }
        }
        try {
            if (p.waitFor() != 0) {
                throw new IOException("git " + args[base(args)] + ": "
                        + new String(err.join(), StandardCharsets.UTF_8).strip());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            p.destroyForcibly();
            throw new IOException("interrupted", e);
        }
        return n;
    }

    /** The index of the git command in {@code args} (after the {@code --git-dir}, {@code -c} options). */
    private static int base(String[] args) {
        int i = 0;
        while (i < args.length && args[i].startsWith("-")) {
            i += args[i].equals("-c") ? 2 : 1;
        }
        return Math.min(i, args.length - 1);
    }

    /** The first {@link #STDERR_BYTES} bytes of {@code in}; the rest is read and dropped. */
    private static byte[] head(InputStream in) {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        try (in) {
            byte[] buf = new byte[8192];
            int r;
            while ((r = in.read(buf)) >= 0) {
                if (b.size() < STDERR_BYTES) {
                    b.write(buf, 0, Math.min(r, STDERR_BYTES - b.size()));
                }
            }
        } catch (IOException e) {
            // git went away: what came is kept
        }
        return b.toByteArray();
    }

    private static String[] concat(String[] a, String... b) {
        String[] out = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }
}
