package io.isobench.env;

import io.isobench.parse.FailureCategory;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

class WorktreesTest {

    @TempDir
    Path dir;
    Path repo;
    Path toy = Path.of("examples/toy-engine").toAbsolutePath();

    @BeforeEach
    void build() throws Exception {
        repo = dir.resolve("repo");
        io.isobench.ToyRepo.build(repo);
    }

    @Test
    void worktreeIsAtTheIntendedCommitAndVerified() {
        Environment e = Worktrees.prepare(repo, "task-tpot", null, dir.resolve("w/human"));
        assertThat(e.ready()).isTrue();
        assertThat(e.verifiedCommit()).isEqualTo(e.intendedCommit()).hasSize(40);
        assertThat(e.envRef()).isEqualTo("git-worktree:" + e.verifiedCommit());
        assertThat(e.path().resolve("toyllm/detokenizer.py")).exists();
        // re-preparing (resume) gives a clean tree at the same commit
        Environment again = Worktrees.prepare(repo, "task-tpot", null, dir.resolve("w/human"));
        assertThat(again.ready()).isTrue();
        assertThat(again.verifiedCommit()).isEqualTo(e.verifiedCommit());
    }

    @Test
    void agentPatchesApplyFailOrAreEmpty() {
        Environment ok = Worktrees.prepare(repo, "baseline", toy.resolve("patches/agents/alpha/tpot.patch"),
                dir.resolve("w/alpha"));
        assertThat(ok.ready()).isTrue();
        assertThat(ok.envRef()).contains("+patch:");
        assertThat(ok.patchSha256()).hasSize(64);

        Environment bad = Worktrees.prepare(repo, "baseline", toy.resolve("patches/agents/delta/tpot.patch"),
                dir.resolve("w/delta"));
        assertThat(bad.failure().category()).isEqualTo(FailureCategory.PATCH_FAILED);
        assertThat(bad.failure().detail()).contains("git apply --check");

        Environment empty = Worktrees.prepare(repo, "baseline", toy.resolve("patches/agents/delta/latency.patch"),
                dir.resolve("w/delta2"));
        assertThat(empty.failure().category()).isEqualTo(FailureCategory.EMPTY_PATCH);
    }

    /** A patch of white space only is empty; its hash is of the file as it is (streamed, never read whole). */
    @Test
    void aWhiteSpacePatchIsEmptyAndHashedFromTheFile() throws Exception {
        Path blank = dir.resolve("blank.patch");
        Files.writeString(blank, " \n\t\r\n".repeat(40_000));
        Environment e = Worktrees.prepare(repo, "baseline", blank, dir.resolve("w/blank"));
        assertThat(e.failure().category()).isEqualTo(FailureCategory.EMPTY_PATCH);
        assertThat(e.failure().detail()).contains("(200000 bytes)");
        assertThat(Worktrees.blank(blank)).isTrue();
        Path text = dir.resolve("text.patch");
        Files.writeString(text, " ".repeat(70_000) + "x");
        assertThat(Worktrees.blank(text)).isFalse();
    }

    @Test
    void missingCommitAndNonRepoAreClassifiedNotThrown() throws Exception {
        Environment missing = Worktrees.prepare(repo, "deadbeefdeadbeef", null, dir.resolve("w/x"));
        assertThat(missing.failure().category()).isEqualTo(FailureCategory.ENV_MISSING);
        assertThat(missing.failure().detail()).contains("deadbeefdeadbeef").contains("not found");

        Path plain = Files.createDirectories(dir.resolve("plain"));
        Environment notGit = Worktrees.prepare(plain, "HEAD", null, dir.resolve("w/y"));
        assertThat(notGit.failure().category()).isEqualTo(FailureCategory.ENV_MISSING);
        assertThat(notGit.failure().detail()).contains("not a git repository");

        Environment gone = Worktrees.prepare(dir.resolve("nope"), "HEAD", null, dir.resolve("w/z"));
        assertThat(gone.failure().detail()).contains("does not exist");
    }
}
