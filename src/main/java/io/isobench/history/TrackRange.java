package io.isobench.history;

import io.isobench.IsobenchException;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The commits a track measures (docs/statistics.md §21, "The series"): the first-parent line of the engine repository
 * from REV1 to REV2 ({@code git rev-list --first-parent --reverse REV1..REV2}), REV1 itself at position 0, and the
 * positions measured with {@code --every N}: 0, N, 2N, … and always the last.
 *
 * <p>Guarantees: full commit ids; each commit's parent is its git first parent (REV1's too, null for a root); a bad
 * range (not {@code REV1..REV2}, an unknown revision, REV1 not an ancestor of REV2, no commit between them) is a
 * one-line {@link IsobenchException.BadInput} naming it and the fix.
 *
 * @param base    REV1 resolved (position 0)
 * @param tip     REV2 resolved (the last position)
 * @param commits the range's commits in first-parent order, position 0 first
 */
public record TrackRange(String base, String tip, List<Commit> commits) {

    /** git's own limit for one command here. */
    private static final long GIT_TIMEOUT_S = 120;

    /**
     * One commit of the range.
     *
     * @param position     0 for REV1, then 1, 2, … along the first-parent line
     * @param commitId     the full commit id
     * @param parentCommit its git first parent (null for a root commit)
     * @param subject      the first line of its message
     */
    public record Commit(int position, String commitId, String parentCommit, String subject) {
    }

    public TrackRange {
        commits = List.copyOf(commits);
    }

    /** The two revisions of {@code REV1..REV2}; a bad form is a one-line error. */
    static String[] split(String range) {
        int dots = range == null ? -1 : range.indexOf("..");
        if (dots <= 0 || dots + 2 >= range.length() || range.substring(dots + 2).startsWith(".")) {
            throw new IsobenchException.BadInput("--range " + range + ": not REV1..REV2 (fix: two revisions of the"
                    + " engine repository, the older first, e.g. --range v1.0..main)");
        }
        String[] revs = {range.substring(0, dots).strip(), range.substring(dots + 2).strip()};
        for (String rev : revs) {
            if (rev.isEmpty() || rev.startsWith("-")) { // never an option to git: the revisions reach its argv
                throw new IsobenchException.BadInput("--range " + range + ": " + (rev.isEmpty() ? "an empty revision"
                        : rev + " starts with '-'") + " (fix: two revisions of the engine repository, e.g. --range"
                        + " v1.0..main)");
            }
        }
        return revs;
    }

    /** Resolves {@code REV1..REV2} in the git repository {@code repo}. */
    public static TrackRange resolve(Path repo, String range) {
        String[] revs = split(range);
        String base = revision(repo, revs[0], range);
        String tip = revision(repo, revs[1], range);
        if (git(repo, "merge-base", "--is-ancestor", base, tip).code() != 0) {
            throw new IsobenchException.BadInput("--range " + range + ": " + revs[0] + " is not an ancestor of "
                    + revs[1] + " (fix: the older revision first, on the same line of history)");
        }
        Git line = git(repo, "rev-list", "--first-parent", "--reverse", base + ".." + tip);
        if (line.code() != 0) {
            throw new IsobenchException.BadInput("--range " + range + ": git rev-list failed: " + line.firstLine());
        }
        List<String> ids = new ArrayList<>();
        ids.add(base);
        for (String l : line.text().split("\n")) {
            if (!l.isBlank()) {
                ids.add(l.strip());
            }
        }
        if (ids.size() < 2) {
            throw new IsobenchException.BadInput("--range " + range + ": no commit after " + revs[0] + " on the"
                    + " first-parent line to " + revs[1] + " (fix: a range of at least two commits)");
        }
        List<Commit> commits = new ArrayList<>();
        for (int i = 0; i < ids.size(); i++) {
            // %P: the parents (the first is the first parent); %s: the subject
            Git show = git(repo, "show", "-s", "--format=%P%n%s", ids.get(i));
            String[] two = show.text().split("\n", -1);
            String parents = two.length > 0 ? two[0].strip() : "";
            String parent = parents.isEmpty() ? null : parents.split(" ")[0];
            commits.add(new Commit(i, ids.get(i), parent, two.length > 1 ? two[1].strip() : ""));
        }
        return new TrackRange(base, tip, commits);
    }

    /**
     * The measured positions of a range of {@code count} commits with {@code --every every}: 0, every, 2·every, … and
     * the last ({@code count − 1}), ascending.
     */
    public static List<Integer> selected(int count, int every) {
        if (count < 1 || every < 1) {
            throw new IllegalArgumentException("count (" + count + ") and every (" + every + ") must be >= 1");
        }
        List<Integer> out = new ArrayList<>();
        for (int p = 0; p < count; p += every) {
            out.add(p);
        }
        if (out.get(out.size() - 1) != count - 1) {
            out.add(count - 1);
        }
        return out;
    }

    private static String revision(Path repo, String rev, String range) {
        Git g = git(repo, "rev-parse", "--verify", "--quiet", rev + "^{commit}");
        if (g.code() != 0 || g.text().isBlank()) {
            throw new IsobenchException.BadInput("--range " + range + ": unknown revision " + rev + " in " + repo
                    + " (fix: a commit, tag or branch of the engine repository)");
        }
        return g.text().strip();
    }

    /** A git command's exit code and standard output. */
    private record Git(int code, String text) {
        String firstLine() {
            String t = text.strip();
            int nl = t.indexOf('\n');
            return nl < 0 ? t : t.substring(0, nl);
        }
    }

    private static Git git(Path repo, String... args) {
        List<String> argv = new ArrayList<>(List.of("git", "-c", "safe.directory=*"));
        argv.addAll(List.of(args));
        try {
            Process p = new ProcessBuilder(argv).directory(repo.toFile())
                    .redirectError(ProcessBuilder.Redirect.DISCARD).start();
            p.getOutputStream().close();
            byte[] out = p.getInputStream().readAllBytes();
            if (!p.waitFor(GIT_TIMEOUT_S, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                return new Git(124, "");
            }
            return new Git(p.exitValue(), new String(out, StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new IsobenchException.EnvironmentMissing("git in " + repo + ": " + e.getMessage()
                    + " (fix: install git)");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new Git(130, "");
        }
    }
}
