package io.isobench.env;

import io.isobench.parse.FailureCategory;
import io.isobench.task.Recipe;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Isolated;

import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.zip.ZipEntry;
import java.util.zip.ZipOutputStream;

import static org.assertj.core.api.Assertions.assertThat;

/** Fix recipes and the build step on real git worktrees of the toy engine (DESIGN §3). */
@Isolated("it bounds a measured build time: nothing runs beside it (ItLocks)")
class RecipesBuildTest {

    @TempDir
    Path dir;
    Path repo;
    Path toy = Path.of("examples/toy-engine").toAbsolutePath();

    @BeforeEach
    void build() throws Exception {
        repo = dir.resolve("repo");
        io.isobench.ToyRepo.build(repo);
    }

    static Recipe recipe(String name, Recipe.Kind kind, Map<String, String> params) {
        return new Recipe(name, kind, params, List.of(), List.of(), 0);
    }

    static Map<String, String> map(String... kv) {
        Map<String, String> m = new LinkedHashMap<>();
        for (int i = 0; i < kv.length; i += 2) {
            m.put(kv[i], kv[i + 1]);
        }
        return m;
    }

    @Test
    void recipesApplyInOrderThenTheBuildRunsWithTheirEnvironment() throws Exception {
        Path fix = dir.resolve("fix.patch");
        Files.writeString(fix, """
                diff --git a/toyllm/config.py b/toyllm/config.py
                --- a/toyllm/config.py
                +++ b/toyllm/config.py
                @@ -15,2 +15,3 @@ POLL_INTERVAL_S = 0.05
                 MAX_MODEL_LEN = 4096
                 DEFAULT_MODEL = "toy-1m"
                +RECIPE_PATCHED = True
                """);
        List<Recipe> recipes = List.of(
                recipe("poll", Recipe.Kind.REPLACE_IN_FILE, map("path", "toyllm/config.py",
                        "from", "POLL_INTERVAL_S = 0.05", "to", "POLL_INTERVAL_S = 0.01")),
                recipe("inject", Recipe.Kind.APPLY_PATCH, map("path", fix.toString())),
                recipe("flag", Recipe.Kind.ENV, map("TOY_FLAG", "on")));
        // the build sees the recipes' edits and variables; its output is kept whole
        List<String> build = List.of("python3", "-c", "import os, toyllm.config as c; "
                + "assert c.POLL_INTERVAL_S == 0.01 and c.RECIPE_PATCHED; print('flag', os.environ['TOY_FLAG'])");
        Environment e = Worktrees.prepare(repo, "baseline", null, dir.resolve("w/baseline"),
                new ArmSetup(recipes, build, 60));
        assertThat(e.failure()).isNull();
        assertThat(e.ready()).isTrue();
        assertThat(e.verifiedCommit()).isEqualTo(e.intendedCommit());
        assertThat(e.recipes()).extracting(RecipeApplication::name).containsExactly("poll", "inject", "flag");
        assertThat(e.recipes()).allMatch(RecipeApplication::ok);
        assertThat(e.recipes().get(0).detail()).isEqualTo("replaced 1 occurrence in toyllm/config.py");
        assertThat(e.recipes().get(0).toMap()).containsEntry("kind", "replace_in_file").containsEntry("ok", true);
        assertThat(e.env()).containsEntry("TOY_FLAG", "on");
        assertThat(e.build().ok()).isTrue();
        assertThat(e.build().exitCode()).isZero();
        assertThat(e.build().log()).isEqualTo("flag on\n");
        assertThat(e.build().toMap("abc")).containsEntry("status", "ok").containsEntry("log_sha256", "abc");
        assertThat(e.log()).contains("# recipe poll").contains("# build ok");
    }

    @Test
    void aFailingBuildIsBuildFailedWithItsLogAndATimeoutToo() {
        Environment e = Worktrees.prepare(repo, "baseline", null, dir.resolve("w/a"), new ArmSetup(List.of(),
                List.of("python3", "-c", "import sys; print('compiling'); print('error: boom', file=sys.stderr); sys.exit(3)"),
                60));
        assertThat(e.ready()).isFalse();
        assertThat(e.failure().category()).isEqualTo(FailureCategory.BUILD_FAILED);
        assertThat(e.failure().detail()).startsWith("build exited with 3").endsWith("error: boom");
        assertThat(e.failure().evidence()).containsExactly("compiling", "error: boom");
        assertThat(e.build().status()).isEqualTo("failed");
        assertThat(e.log()).contains("compiling\nerror: boom\n");

        long t0 = System.nanoTime();
        Environment slow = Worktrees.prepare(repo, "baseline", null, dir.resolve("w/b"), new ArmSetup(List.of(),
                List.of("python3", "-c", "import time; print('start', flush=True); time.sleep(30)"), 1));
        assertThat((System.nanoTime() - t0) / 1e9).isLessThan(15);
        assertThat(slow.failure().category()).isEqualTo(FailureCategory.BUILD_FAILED);
        assertThat(slow.failure().detail()).startsWith("build timed out after 1 s");
        assertThat(slow.build().timedOut()).isTrue();
        assertThat(slow.build().log()).contains("start");

        Environment missing = Worktrees.prepare(repo, "baseline", null, dir.resolve("w/c"), new ArmSetup(List.of(),
                List.of("no-such-build-tool-xyz", "all"), 10));
        assertThat(missing.failure().category()).isEqualTo(FailureCategory.ENV_MISSING);
        assertThat(missing.failure().detail()).contains("no-such-build-tool-xyz");
    }

    @Test
    void theCompileallBuildOfTheDemoCatchesASyntaxError() throws Exception {
        List<String> compileall = List.of("python3", "-m", "compileall", "-q", ".");
        Environment ok = Worktrees.prepare(repo, "task-tpot", null, dir.resolve("w/ok"), new ArmSetup(List.of(),
                compileall, 60));
        assertThat(ok.ready()).isTrue();
        Environment broken = Worktrees.prepare(repo, "baseline", null, dir.resolve("w/broken"), new ArmSetup(List.of(
                recipe("typo", Recipe.Kind.REPLACE_IN_FILE, map("path", "toyllm/config.py", "from",
                        "MAX_MODEL_LEN = 4096", "to", "MAX_MODEL_LEN = = 4096"))), compileall, 60));
        assertThat(broken.failure().category()).isEqualTo(FailureCategory.BUILD_FAILED);
        assertThat(broken.build().log()).contains("config.py").contains("SyntaxError");
    }

    @Test
    void aRecipeThatFailsIsClassifiedAndStopsThePreparation() throws Exception {
        Environment notFound = Worktrees.prepare(repo, "baseline", null, dir.resolve("w/a"), new ArmSetup(List.of(
                recipe("set", Recipe.Kind.ENV, map("A", "1")),
                recipe("edit", Recipe.Kind.REPLACE_IN_FILE, map("path", "toyllm/config.py", "from", "NOT THERE",
                        "to", "x")),
                recipe("never", Recipe.Kind.ENV, map("B", "2"))), List.of("python3", "-c", "pass"), 60));
        assertThat(notFound.failure().category()).isEqualTo(FailureCategory.BUILD_FAILED);
        assertThat(notFound.failure().detail()).isEqualTo(
                "fix recipe 'edit' (replace_in_file) failed: text not found in toyllm/config.py: \"NOT THERE\"");
        assertThat(notFound.recipes()).extracting(RecipeApplication::name, RecipeApplication::ok)
                .containsExactly(org.assertj.core.groups.Tuple.tuple("set", true),
                        org.assertj.core.groups.Tuple.tuple("edit", false));
        assertThat(notFound.build()).isNull();

        Environment noFile = Worktrees.prepare(repo, "baseline", null, dir.resolve("w/b"), new ArmSetup(List.of(
                recipe("edit", Recipe.Kind.REPLACE_IN_FILE, map("path", "toyllm/nope.py", "from", "a", "to", "b"))),
                List.of(), 60));
        assertThat(noFile.failure().detail()).contains("no file toyllm/nope.py");

        Path bad = dir.resolve("bad.patch");
        Files.writeString(bad, "diff --git a/toyllm/config.py b/toyllm/config.py\n--- a/toyllm/config.py\n"
                + "+++ b/toyllm/config.py\n@@ -1,1 +1,1 @@\n-nothing like this\n+x\n");
        Environment patch = Worktrees.prepare(repo, "baseline", null, dir.resolve("w/c"), new ArmSetup(List.of(
                recipe("inject", Recipe.Kind.APPLY_PATCH, map("path", bad.toString()))), List.of(), 60));
        assertThat(patch.failure().category()).isEqualTo(FailureCategory.BUILD_FAILED);
        assertThat(patch.failure().detail()).startsWith("fix recipe 'inject' (apply_patch) failed: git apply --check");
    }

    @Test
    void pipPinInstallsIntoTheArmsOwnSiteFolderAndAMissingVersionIsEnvMissing() throws Exception {
        Path wheels = Files.createDirectories(dir.resolve("wheels"));
        wheel(wheels, "tinypin", "1.0");
        Recipe offline = recipe("offline", Recipe.Kind.ENV, map("PIP_NO_INDEX", "1", "PIP_FIND_LINKS",
                wheels.toString()));
        Environment e = Worktrees.prepare(repo, "baseline", null, dir.resolve("w/a"), new ArmSetup(List.of(offline,
                recipe("pin", Recipe.Kind.PIP_PIN, map("spec", "tinypin==1.0"))),
                List.of("python3", "-c", "import tinypin; print(tinypin.VERSION)"), 120));
        assertThat(e.failure()).isNull();
        assertThat(e.build().log()).isEqualTo("1.0\n");
        assertThat(e.env().get("PYTHONPATH")).startsWith(dir.resolve("w/a.site").toString());
        assertThat(e.recipes().get(1).detail()).startsWith("installed tinypin==1.0");
        // the other arms are untouched: nothing was installed outside the arm's own folder
        Environment other = Worktrees.prepare(repo, "baseline", null, dir.resolve("w/b"), new ArmSetup(List.of(),
                List.of("python3", "-c", "import tinypin"), 60));
        assertThat(other.failure().category()).isEqualTo(FailureCategory.BUILD_FAILED);
        assertThat(other.build().log()).contains("No module named 'tinypin'");

        Environment missing = Worktrees.prepare(repo, "baseline", null, dir.resolve("w/c"), new ArmSetup(List.of(
                offline, recipe("pin", Recipe.Kind.PIP_PIN, map("spec", "tinypin==2.0"))), List.of(), 120));
        assertThat(missing.failure().category()).isEqualTo(FailureCategory.ENV_MISSING);
        assertThat(missing.failure().detail()).startsWith("fix recipe 'pin' (pip_pin) failed: pip install tinypin==2.0 exited with 1");
        assertThat(missing.log()).contains("No matching distribution");
        // re-preparing the arm (resume) starts from a clean site folder
        Worktrees.prepare(repo, "baseline", null, dir.resolve("w/a"), ArmSetup.NONE);
        assertThat(dir.resolve("w/a.site")).doesNotExist();
    }

    /** A minimal pure-Python wheel (what pip needs to install offline). */
    static void wheel(Path dir, String name, String version) throws Exception {
        Path whl = dir.resolve(name + "-" + version + "-py3-none-any.whl");
        String info = name + "-" + version + ".dist-info/";
        Map<String, String> files = new LinkedHashMap<>();
        files.put(name + "/__init__.py", "VERSION = '" + version + "'\n");
        files.put(info + "METADATA", "Metadata-Version: 2.1\nName: " + name + "\nVersion: " + version + "\n");
        files.put(info + "WHEEL", "Wheel-Version: 1.0\nGenerator: isobench-test\nRoot-Is-Purelib: true\nTag: py3-none-any\n");
        StringBuilder record = new StringBuilder();
        files.keySet().forEach(f -> record.append(f).append(",,\n"));
        record.append(info).append("RECORD,,\n");
        files.put(info + "RECORD", record.toString());
        try (OutputStream os = Files.newOutputStream(whl); ZipOutputStream z = new ZipOutputStream(os)) {
            for (Map.Entry<String, String> f : files.entrySet()) {
                z.putNextEntry(new ZipEntry(f.getKey()));
                z.write(f.getValue().getBytes(StandardCharsets.UTF_8));
                z.closeEntry();
            }
        }
    }
}
