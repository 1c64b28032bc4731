package io.isobench.env;

import io.isobench.parse.FailureCategory;
import io.isobench.task.Recipe;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 15, point 2: an agent patch turns an engine file into a symbolic link to a file outside the repository; a
 * fix recipe that edits that file, or a recipe patch that touches it, must not write through the link.
 */
class PlantedLinkTest {

    @TempDir
    Path dir;
    Path repo;
    Path outside;
    Path linkPatch;

    @BeforeEach
    void build() throws Exception {
        repo = dir.resolve("repo");
        io.isobench.ToyRepo.build(repo);
        outside = dir.resolve("outside.txt");
        Files.writeString(outside, "MAX_MODEL_LEN = 4096\nprecious\n");
        String config = Files.readString(repo.resolve("toyllm/config.py"));
        StringBuilder removed = new StringBuilder();
        config.lines().forEach(l -> removed.append('-').append(l).append('\n'));
        linkPatch = dir.resolve("link.patch");
        Files.writeString(linkPatch, "diff --git a/toyllm/config.py b/toyllm/config.py\n"
                + "deleted file mode 100644\n--- a/toyllm/config.py\n+++ /dev/null\n"
                + "@@ -1," + config.lines().count() + " +0,0 @@\n" + removed
                + "diff --git a/toyllm/config.py b/toyllm/config.py\nnew file mode 120000\n"
                + "--- /dev/null\n+++ b/toyllm/config.py\n@@ -0,0 +1 @@\n+" + outside + "\n"
                + "\\ No newline at end of file\n");
    }

    @Test
    void aRecipeNeverEditsThroughALinkThePatchPlanted() throws Exception {
        Environment e = Worktrees.prepare(repo, "baseline", linkPatch, dir.resolve("w/envs/t/agent"),
                new ArmSetup(List.of(new Recipe("bump", Recipe.Kind.REPLACE_IN_FILE, Map.of("path",
                        "toyllm/config.py", "from", "MAX_MODEL_LEN = 4096", "to", "MAX_MODEL_LEN = 1"), List.of(),
                        List.of(), 0)), List.of(), 60));
        assertThat(Files.isSymbolicLink(dir.resolve("w/envs/t/agent/toyllm/config.py"))).as(e.log()).isTrue();
        assertThat(Files.readString(outside)).isEqualTo("MAX_MODEL_LEN = 4096\nprecious\n");
        assertThat(e.ready()).isFalse();
        assertThat(e.failure().category()).isEqualTo(FailureCategory.BUILD_FAILED);
        assertThat(e.failure().detail()).contains("toyllm/config.py").contains("outside the worktree");
    }

    @Test
    void aRecipePatchNeverAppliesThroughALinkThePatchPlanted() throws Exception {
        Path fix = dir.resolve("fix.patch");
        Files.writeString(fix, "diff --git a/toyllm/config.py b/toyllm/config.py\n"
                + "--- a/toyllm/config.py\n+++ b/toyllm/config.py\n@@ -1,2 +1,2 @@\n"
                + "-MAX_MODEL_LEN = 4096\n+MAX_MODEL_LEN = 1\n precious\n");
        Environment e = Worktrees.prepare(repo, "baseline", linkPatch, dir.resolve("w/envs/t/agent"),
                new ArmSetup(List.of(new Recipe("fix", Recipe.Kind.APPLY_PATCH, Map.of("path", fix.toString()),
                        List.of(), List.of(), 0)), List.of(), 60));
        assertThat(Files.readString(outside)).isEqualTo("MAX_MODEL_LEN = 4096\nprecious\n");
        assertThat(e.ready()).isFalse();
        assertThat(e.failure().category()).isEqualTo(FailureCategory.BUILD_FAILED);
    }

    @Test
    void aSecondPatchThroughALinkedFolderIsRefused() throws Exception {
        Path outDir = Files.createDirectories(dir.resolve("outside-dir"));
        Path first = dir.resolve("dirlink.patch");
        Files.writeString(first, "diff --git a/toyllm/ext b/toyllm/ext\nnew file mode 120000\n"
                + "--- /dev/null\n+++ b/toyllm/ext\n@@ -0,0 +1 @@\n+" + outDir + "\n\\ No newline at end of file\n");
        Path second = dir.resolve("through.patch");
        Files.writeString(second, "diff --git a/toyllm/ext/evil.py b/toyllm/ext/evil.py\nnew file mode 100644\n"
                + "--- /dev/null\n+++ b/toyllm/ext/evil.py\n@@ -0,0 +1 @@\n+print('pwned')\n");
        Environment e = Worktrees.prepare(repo, "baseline", first, dir.resolve("w/envs/t/agent"),
                new ArmSetup(List.of(new Recipe("more", Recipe.Kind.APPLY_PATCH, Map.of("path", second.toString()),
                        List.of(), List.of(), 0)), List.of(), 60));
        assertThat(outDir.resolve("evil.py")).doesNotExist();
        assertThat(e.ready()).isFalse();
    }
}
