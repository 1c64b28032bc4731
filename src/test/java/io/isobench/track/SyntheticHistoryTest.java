package io.isobench.track;

import io.isobench.SharedData;
import io.isobench.track.SyntheticHistory.Change;
import io.isobench.track.SyntheticHistory.Commit;
import io.isobench.track.SyntheticHistory.History;
import io.isobench.track.SyntheticHistory.Kind;
import io.isobench.track.SyntheticHistory.Spec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The synthetic history fixture has the properties {@code isobench track}'s tests rely on: N linear commits with
 * deterministic ids; the chosen commits change the engine's code and nothing else does (every other commit leaves the
 * comment-stripped sources, as gcc's preprocessor sees them, and the built program unchanged); and the chosen commits
 * really change the program's CPU work in the designed direction and roughly by the designed factor (CPU time, user +
 * system, medians of 7 interleaved runs of ~0.2 s, between a third and twice the designed change: no wall-clock
 * threshold).
 */
class SyntheticHistoryTest {

    @TempDir
    Path dir;

    @Test
    void theChosenCommitsChangeCodeAndTheOthersOnlyDocsOrComments() throws Exception {
        requireTools();
        History h = SyntheticHistory.build(dir.resolve("repo"), Spec.defaults());
        Path repo = h.repo();
        assertThat(git(repo, "rev-list", "--count", "main").strip()).isEqualTo("30");
        assertThat(git(repo, "rev-list", "--min-parents=2", "main").strip()).as("linear: no merges").isEmpty();
        List<String> shas = Arrays.asList(git(repo, "rev-list", "--reverse", "main").strip().split("\n"));
        assertThat(h.commits()).extracting(Commit::sha).containsExactlyElementsOf(shas);
        assertThat(h.workChanges()).extracting(Commit::index).containsExactly(9, 21);
        assertThat(h.commit(9).factor()).isEqualTo(0.85);
        assertThat(h.commit(21).factor()).isEqualTo(1.10);
        assertThat(h.commit(21).passes()).isEqualTo(28_050); // 30,000 x 0.85 x 1.10: factors compose

        for (Commit c : h.commits().subList(1, h.commits().size())) {
            String parent = h.commit(c.index() - 1).sha();
            List<String> files = Arrays.asList(git(repo, "diff", "--name-only", parent, c.sha()).strip().split("\n"));
            boolean sameCode = stripped(repo, parent).equals(stripped(repo, c.sha()));
            if (c.kind() == Kind.WORK) {
                assertThat(files).as("commit %d", c.index()).containsExactly("engine.c");
                assertThat(sameCode).as("commit %d changes code", c.index()).isFalse();
            } else {
                assertThat(files).as("commit %d", c.index()).isSubsetOf("engine.c", "README.md", "docs/notes.md");
                assertThat(sameCode).as("commit %d leaves the comment-stripped code alone", c.index()).isTrue();
                assertThat(git(repo, "show", c.sha() + ":Makefile")).isEqualTo(git(repo, "show", parent + ":Makefile"));
            }
        }
        assertThat(h.commits()).extracting(Commit::kind).contains(Kind.COMMENT, Kind.DOCS);

        // a comment-only commit builds to the same program as its parent
        Commit comment = h.commits().stream().filter(c -> c.kind() == Kind.COMMENT).findFirst().orElseThrow();
        Path a = checkout(repo, h.commit(comment.index() - 1).sha(), dir.resolve("comment-parent"));
        Path b = checkout(repo, comment.sha(), dir.resolve("comment"));
        assertThat(Files.readAllBytes(b.resolve("engine"))).isEqualTo(Files.readAllBytes(a.resolve("engine")));
    }

    @Test
    void theSameSpecGivesTheSameCommitIdsAndSubjects() throws Exception {
        requireTools();
        Spec spec = new Spec(6, List.of(new Change(4, 1.2)), 1_000);
        History one = SyntheticHistory.build(dir.resolve("one"), spec);
        History two = SyntheticHistory.build(dir.resolve("two"), spec);
        assertThat(two.commits()).isEqualTo(one.commits());
        assertThat(one.commit(4).subject()).isEqualTo("engine: evaluate the kernel 1200 times instead of 1000 (+20 % work)");
        assertThat(git(one.repo(), "log", "-1", "--format=%aI %cI", one.commit(6).sha()).strip())
                .isEqualTo("2026-01-06T12:00:00+00:00 2026-01-06T12:00:00+00:00");
        assertThat(git(one.repo(), "rev-parse", "--abbrev-ref", "HEAD").strip()).isEqualTo("main");
    }

    @Test
    void theChangedCommitsChangeTheCpuWorkByRoughlyTheirFactor() throws Exception {
        requireTools();
        History h = SyntheticHistory.build(dir.resolve("repo"), Spec.defaults()); // ~0.2 s of CPU a run
        for (Commit c : h.workChanges()) {
            Path parent = checkout(h.repo(), h.commit(c.index() - 1).sha(), dir.resolve("p" + c.index()));
            Path child = checkout(h.repo(), c.sha(), dir.resolve("c" + c.index()));
            List<Double> parentCpu = new ArrayList<>();
            List<Double> childCpu = new ArrayList<>();
            for (int r = 0; r < 7; r++) { // interleaved, so that a burst of load hits both arms
                parentCpu.add(cpuSeconds(parent));
                childCpu.add(cpuSeconds(child));
            }
            double ratio = median(childCpu) / median(parentCpu);
            double designed = c.factor() - 1;
            assertThat(ratio - 1).as("commit %d: CPU %s vs parent %s", c.index(), childCpu, parentCpu)
                    .isStrictlyBetween(Math.min(designed / 3, designed * 2), Math.max(designed / 3, designed * 2));
            assertThat(run(child, "./engine")).isEqualTo(run(parent, "./engine")).startsWith("checksum ");
        }
    }

    @Test
    void aBrokenCommitDoesNotBuildAndTheNextOneBuildsItsParentsProgramAgain() throws Exception {
        requireTools();
        History h = SyntheticHistory.build(dir.resolve("repo"), new Spec(6, List.of(new Change(3, 0.5)), 1_000),
                Set.of(4));
        assertThat(h.commits()).extracting(Commit::kind).containsExactly(Kind.ROOT, Kind.DOCS, Kind.WORK, Kind.BROKEN,
                Kind.DOCS, Kind.COMMENT);
        assertThat(h.commit(4).passes()).isEqualTo(500);
        assertThat(h.commit(4).subject()).isEqualTo("engine: break the build (commit 4)");
        git(h.repo(), "worktree", "add", "-q", "--detach", dir.resolve("broken").toString(), h.commit(4).sha());
        assertThatThrownBy(() -> run(dir.resolve("broken"), "make", "-s")).hasMessageContaining("broken build (commit 4)");
        Path before = checkout(h.repo(), h.commit(3).sha(), dir.resolve("before"));
        Path after = checkout(h.repo(), h.commit(5).sha(), dir.resolve("after"));
        assertThat(Files.readAllBytes(after.resolve("engine"))).isEqualTo(Files.readAllBytes(before.resolve("engine")));
        assertThatThrownBy(() -> SyntheticHistory.build(dir.resolve("x"), new Spec(6, List.of(new Change(3, 0.5)),
                1_000), Set.of(3))).hasMessageContaining("not a change's commit");
    }

    @Test
    void aSpecThatBreaksTheRulesIsRefused() {
        assertThatThrownBy(() -> SyntheticHistory.build(dir.resolve("a"), new Spec(10, List.of(new Change(1, 0.9)), 100)))
                .hasMessageContaining("a change is at a commit 2..10");
        assertThatThrownBy(() -> SyntheticHistory.build(dir.resolve("b"),
                new Spec(10, List.of(new Change(3, 0.9), new Change(3, 1.1)), 100)))
                .hasMessageContaining("two changes at commit 3");
        assertThatThrownBy(() -> SyntheticHistory.build(dir.resolve("c"), new Spec(10, List.of(new Change(3, 1.001)), 100)))
                .hasMessageContaining("does not change 100 kernel passes");
        assertThat(Change.parse("9:0.85")).isEqualTo(new Change(9, 0.85));
        assertThat(dir.resolve("a")).doesNotExist();
    }

    /** engine.c and Makefile at {@code sha} with the comments removed by gcc's preprocessor (no macro expansion). */
    private static String stripped(Path repo, String sha) throws Exception {
        Path c = Files.createTempFile("synthetic-engine", ".c");
        try {
            Files.writeString(c, git(repo, "show", sha + ":engine.c"));
            return run(repo, "gcc", "-fpreprocessed", "-dD", "-E", "-P", c.toString());
        } finally {
            Files.delete(c);
        }
    }

    /** A worktree of {@code sha} at {@code dest}, built with {@code make}. */
    private static Path checkout(Path repo, String sha, Path dest) throws Exception {
        git(repo, "worktree", "add", "-q", "--detach", dest.toString(), sha);
        run(dest, "make", "-s");
        return dest;
    }

    /** User + system CPU seconds of one {@code ./engine} run, as bash's {@code times} reports its children's. */
    private static double cpuSeconds(Path engineDir) throws Exception {
        String[] lines = run(engineDir, "bash", "-c", "./engine >/dev/null; times").strip().split("\n");
        String[] children = lines[lines.length - 1].trim().split("\\s+");
        return seconds(children[0]) + seconds(children[1]);
    }

    /** {@code 0m0.203s} → 0.203. */
    private static double seconds(String times) {
        int m = times.indexOf('m');
        return Integer.parseInt(times.substring(0, m)) * 60 + Double.parseDouble(times.substring(m + 1, times.length() - 1));
    }

    private static double median(List<Double> xs) {
        List<Double> s = xs.stream().sorted().toList();
        int n = s.size();
        return n % 2 == 1 ? s.get(n / 2) : (s.get(n / 2 - 1) + s.get(n / 2)) / 2;
    }

    private static String git(Path repo, String... args) throws Exception {
        return SyntheticHistory.git(repo, args);
    }

    private static String run(Path cwd, String... argv) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(argv).directory(cwd.toFile()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (p.waitFor() != 0) {
            throw new IllegalStateException(String.join(" ", argv) + " exited " + p.exitValue() + ": " + out);
        }
        return out;
    }

    private static void requireTools() {
        SharedData.requireService(onPath("git") && onPath("make") && onPath("gcc") && onPath("bash"),
                "git, make, gcc and bash for the synthetic engine history");
    }

    private static boolean onPath(String program) {
        for (String d : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
            if (Files.isExecutable(Path.of(d, program))) {
                return true;
            }
        }
        return false;
    }
}
