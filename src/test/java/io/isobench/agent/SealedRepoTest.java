package io.isobench.agent;

import io.isobench.ToyRepo;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** The sealed tree (one commit, nothing of the future) and the patch collector's rule, on the toy engine's repo. */
class SealedRepoTest {

    @TempDir
    static Path shared;
    static Path engine;

    @BeforeAll
    static void build() throws Exception {
        assumeTrue(ToyRepo.toolsPresent(), "python3, git and setsid are needed for the toy repo");
        engine = shared.resolve("toyllm-repo");
        ToyRepo.build(engine);
    }

    private static SealedRepo seal(Path root) throws Exception {
        return SealedRepo.create(engine, "baseline", AttemptDirs.under(root));
    }

    @Test
    void theSealedTreeIsTheParentsFilesInOneCommitWithNoHistory(@TempDir Path root) throws Exception {
        SealedRepo s = seal(root);
        Path wt = s.worktree();
        assertThat(ToyRepo.run(wt, "git", "rev-list", "--all", "--count").strip()).isEqualTo("1");
        assertThat(ToyRepo.run(wt, "git", "tag").strip()).isEmpty();
        assertThat(ToyRepo.run(wt, "git", "remote").strip()).isEmpty();
        String human = ToyRepo.run(engine, "git", "rev-parse", "task-latency").strip();
        String parent = ToyRepo.run(engine, "git", "rev-parse", "baseline").strip();
        Process p = new ProcessBuilder("git", "cat-file", "-e", human).directory(wt.toFile()).start();
        assertThat(p.waitFor()).as("the human commit is not in the sealed repo").isNotEqualTo(0);
        // same tree as the parent commit, different (fixed-identity) commit
        assertThat(ToyRepo.run(wt, "git", "rev-parse", "HEAD^{tree}").strip())
                .isEqualTo(ToyRepo.run(engine, "git", "rev-parse", parent + "^{tree}").strip());
        assertThat(s.commit()).isNotEqualTo(parent);
        // sealing twice gives the same commit id
        assertThat(seal(root.resolve("again")).commit()).isEqualTo(s.commit());
        assertThat(collect(s)).isEmpty();
    }

    @Test
    void thePatchHoldsEveryChangeButScratchAndIgnoresTheAgentsGitState(@TempDir Path root) throws Exception {
        SealedRepo s = seal(root);
        Path wt = s.worktree();
        Path engineFile;
        try (var files = Files.walk(wt.resolve("toyllm"))) {
            engineFile = files.filter(f -> f.toString().endsWith(".py")).sorted().findFirst().orElseThrow();
        }
        Files.writeString(engineFile, Files.readString(engineFile) + "\n# faster\n");
        Files.writeString(wt.resolve("NEW_FILE.md"), "new\n");
        Files.createDirectories(wt.resolve(".claude"));
        Files.writeString(wt.resolve(".claude/settings.json"), "{}");
        Files.createDirectories(wt.resolve("toyllm/__pycache__"));
        Files.writeString(wt.resolve("toyllm/__pycache__/x.cpython-311.pyc"), "bytes");
        Files.writeString(wt.resolve("a.py.orig"), "merge leftover");
        // the agent commits, and plants a git setting that would run a command if isobench used its .git
        ToyRepo.run(wt, "git", "-c", "user.name=a", "-c", "user.email=a@b", "commit", "-qam", "agent commit");
        Path pwned = root.resolve("pwned");
        ToyRepo.run(wt, "git", "config", "core.fsmonitor", "touch " + pwned);
        ToyRepo.run(wt, "git", "config", "core.hooksPath", ".");
        String patch = collect(s);
        String rel = wt.relativize(engineFile).toString();
        assertThat(patch).contains("diff --git a/" + rel + " b/" + rel).contains("+# faster")
                .contains("diff --git a/NEW_FILE.md b/NEW_FILE.md")
                .doesNotContain(".claude").doesNotContain("__pycache__").doesNotContain(".orig");
        assertThat(pwned).as("no git setting of the agent's repository ran").doesNotExist();
    }

    @Test
    void aScratchNamedFileOfTheSealedTreeStaysInThePatchWhenChanged(@TempDir Path root) throws Exception {
        Path repo = root.resolve("engine");
        Files.createDirectories(repo.resolve(".claude"));
        Files.writeString(repo.resolve("kept.orig"), "tracked\n");
        Files.writeString(repo.resolve(".claude/CLAUDE.md"), "tracked notes\n");
        ToyRepo.run(repo.getParent(), "git", "init", "-q", repo.toString());
        ToyRepo.run(repo, "git", "add", "-A");
        ToyRepo.run(repo, "git", "-c", "user.name=a", "-c", "user.email=a@b", "commit", "-qm", "base");
        SealedRepo s = SealedRepo.create(repo, "HEAD", AttemptDirs.under(root.resolve("attempt")));
        Files.writeString(s.worktree().resolve("kept.orig"), "changed\n");
        Files.writeString(s.worktree().resolve(".claude/CLAUDE.md"), "changed notes\n");
        Files.writeString(s.worktree().resolve("new.orig"), "scratch\n");
        String patch = collect(s);
        assertThat(patch).contains("diff --git a/kept.orig b/kept.orig").contains("+changed")
                .contains("diff --git a/.claude/CLAUDE.md b/.claude/CLAUDE.md").contains("+changed notes")
                .doesNotContain("new.orig");
    }

    /** The patch of {@code s} as text, collected under the default limit. */
    private static String collect(SealedRepo s) throws Exception {
        Path out = s.worktree().resolveSibling("patch.diff");
        PatchCollector.Collected c = PatchCollector.collect(s, out, AttemptLimits.DEFAULT.patchBytes());
        assertThat(c.tooLarge()).isNull();
        return Files.readString(out);
    }
}
