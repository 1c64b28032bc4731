package io.isobench.history;

import io.isobench.IsobenchException;
import io.isobench.track.SyntheticHistory;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class TrackRangeTest {

    @TempDir
    static Path dir;

    static SyntheticHistory.History history;

    @BeforeAll
    static void build() throws Exception {
        history = SyntheticHistory.build(dir.resolve("engine"), new SyntheticHistory.Spec(8,
                List.of(new SyntheticHistory.Change(4, 0.85)), 100));
    }

    @Test
    void theRangeIsRev1ThenItsFirstParentLineWithFullIdsParentsAndSubjects() {
        TrackRange r = TrackRange.resolve(history.repo(), history.commit(1).sha().substring(0, 7) + "..main");
        assertThat(r.commits()).hasSize(8);
        assertThat(r.base()).isEqualTo(history.commit(1).sha());
        assertThat(r.tip()).isEqualTo(history.commit(8).sha());
        for (int i = 0; i < 8; i++) {
            TrackRange.Commit c = r.commits().get(i);
            assertThat(c.position()).isEqualTo(i);
            assertThat(c.commitId()).isEqualTo(history.commit(i + 1).sha());
            assertThat(c.subject()).isEqualTo(history.commit(i + 1).subject());
            assertThat(c.parentCommit()).isEqualTo(i == 0 ? null : history.commit(i).sha());
        }
        TrackRange mid = TrackRange.resolve(history.repo(), history.commit(3).sha() + ".." + history.commit(6).sha());
        assertThat(mid.commits().stream().map(TrackRange.Commit::commitId))
                .containsExactly(history.commit(3).sha(), history.commit(4).sha(), history.commit(5).sha(),
                        history.commit(6).sha());
    }

    @Test
    void aMergedBranchsOwnCommitsAreNotOnTheFirstParentLine() throws Exception {
        Path repo = dir.resolve("merged");
        SyntheticHistory.History h = SyntheticHistory.build(repo, new SyntheticHistory.Spec(3, List.of(), 100));
        git(repo, "checkout", "-q", "-b", "side");
        Files.writeString(repo.resolve("side.md"), "side\n");
        git(repo, "add", "side.md");
        git(repo, "commit", "-q", "-m", "side work");
        git(repo, "checkout", "-q", "main");
        git(repo, "merge", "-q", "--no-ff", "-m", "Merge branch side", "side");
        TrackRange r = TrackRange.resolve(repo, h.commit(2).sha() + "..main");
        assertThat(r.commits()).hasSize(3);
        assertThat(r.commits().get(2).subject()).isEqualTo("Merge branch side");
        assertThat(r.commits().get(2).parentCommit()).isEqualTo(h.commit(3).sha()); // the first parent
        assertThat(r.commits().stream().map(TrackRange.Commit::subject)).doesNotContain("side work");
    }

    @Test
    void theMeasuredPositionsAreEveryNthAndAlwaysTheLast() {
        assertThat(TrackRange.selected(31, 5)).containsExactly(0, 5, 10, 15, 20, 25, 30);
        assertThat(TrackRange.selected(30, 5)).containsExactly(0, 5, 10, 15, 20, 25, 29);
        assertThat(TrackRange.selected(4, 1)).containsExactly(0, 1, 2, 3);
        assertThat(TrackRange.selected(2, 10)).containsExactly(0, 1);
    }

    @Test
    void aBadRangeIsOneLineNamingItAndTheFix() {
        Path repo = history.repo();
        String first = history.commit(1).sha();
        String last = history.commit(8).sha();
        assertThat(message(repo, "main")).contains("--range main: not REV1..REV2 (fix:");
        assertThat(message(repo, first + "...main")).contains("not REV1..REV2");
        assertThat(message(repo, "nosuchrev..main")).contains("unknown revision nosuchrev").contains("(fix:");
        assertThat(message(repo, last + ".." + first)).contains("is not an ancestor of").contains("(fix:");
        assertThat(message(repo, last + "..main")).contains("no commit after").contains("(fix:");
        for (String m : List.of(message(repo, "main"), message(repo, "x..main"))) {
            assertThat(m).doesNotContain("\n");
        }
    }

    private static String message(Path repo, String range) {
        try {
            TrackRange.resolve(repo, range);
        } catch (IsobenchException.BadInput e) {
            return e.getMessage();
        }
        throw new AssertionError("no error for " + range);
    }

    @Test
    void anUnknownRangeFormIsRejectedBeforeGit() {
        assertThatThrownBy(() -> TrackRange.split("..main")).isInstanceOf(IsobenchException.BadInput.class);
        assertThatThrownBy(() -> TrackRange.split("a..")).isInstanceOf(IsobenchException.BadInput.class);
        assertThatThrownBy(() -> TrackRange.split("--output=/tmp/x..main")).isInstanceOf(IsobenchException.BadInput.class)
                .hasMessageContaining("starts with '-'");
        assertThatThrownBy(() -> TrackRange.split("v1..-n1")).isInstanceOf(IsobenchException.BadInput.class);
        assertThatThrownBy(() -> TrackRange.split(" ..v2")).isInstanceOf(IsobenchException.BadInput.class);
        assertThat(TrackRange.split("v1..v2")).containsExactly("v1", "v2");
    }

    private static void git(Path repo, String... args) throws Exception {
        List<String> argv = new ArrayList<>(List.of("git"));
        argv.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(argv).directory(repo.toFile()).redirectErrorStream(true);
        Map<String, String> env = pb.environment();
        env.put("GIT_AUTHOR_NAME", "t");
        env.put("GIT_AUTHOR_EMAIL", "t@example.invalid");
        env.put("GIT_COMMITTER_NAME", "t");
        env.put("GIT_COMMITTER_EMAIL", "t@example.invalid");
        env.put("GIT_CONFIG_NOSYSTEM", "1");
        env.put("GIT_CONFIG_GLOBAL", "/dev/null");
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes());
        assertThat(p.waitFor()).as(out).isZero();
    }
}
