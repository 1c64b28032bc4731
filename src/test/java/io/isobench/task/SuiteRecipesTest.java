package io.isobench.task;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** The suite's build step and fix recipes: loading, scoping, and file/line/field errors. */
class SuiteRecipesTest {

    @TempDir
    Path dir;

    /** The second YAML example of docs/suite-format.md ("Build step and fix recipes"). */
    static String docRecipesExample() throws IOException {
        String doc = Files.readString(Path.of("docs/suite-format.md"));
        int section = doc.indexOf("## Build step and fix recipes");
        int start = doc.indexOf("```yaml\n", section) + "```yaml\n".length();
        return doc.substring(start, doc.indexOf("```", start));
    }

    Path write(String yaml) throws IOException {
        Path f = dir.resolve("suite.yaml");
        Files.writeString(f, yaml);
        return f;
    }

    @Test
    void theDocumentedRecipesExampleLoads() throws IOException {
        Files.createDirectories(dir.resolve("vllm"));
        Files.createDirectories(dir.resolve("fixes"));
        Files.writeString(dir.resolve("fixes/rope-scaling.patch"), "diff --git a/x b/x\n");
        Files.createDirectories(dir.resolve("patches"));
        Files.writeString(dir.resolve("patches/6d0734c5.diff"), "diff --git a/x b/x\n");
        Suite s = SuiteLoader.load(write(docRecipesExample()));
        assertThat(s.engine().build()).containsExactly("pip", "install", "--no-build-isolation", "-e", ".");
        TaskSpec t0 = s.tasks().get(0);
        TaskSpec t1 = s.tasks().get(1);
        assertThat(s.buildArgv(t0)).containsExactly("pip", "install", "--no-build-isolation", "-e", ".");
        assertThat(s.buildArgv(t1)).isEmpty(); // build: [] turns it off for that task
        assertThat(s.recipes()).extracting(Recipe::name)
                .containsExactly("pin-transformers", "no-compile", "rope-fix", "old-import");
        Recipe pin = s.recipes().get(0);
        assertThat(pin.kind()).isEqualTo(Recipe.Kind.PIP_PIN);
        assertThat(pin.params()).isEqualTo(Map.of("spec", "transformers==4.44.2"));
        assertThat(s.recipes().get(1).params()).isEqualTo(Map.of("VLLM_TORCH_COMPILE_LEVEL", "0"));
        assertThat(s.recipes().get(2).params().get("path"))
                .isEqualTo(dir.resolve("fixes/rope-scaling.patch").toString());
        Recipe old = s.recipes().get(3);
        assertThat(old.params()).containsEntry("path", "benchmarks/backend_request_func.py")
                .containsEntry("from", "from transformers import LogitsWarper")
                .containsEntry("to", "from transformers.generation import LogitsProcessor as LogitsWarper");
        // scoping: tasks and arms
        assertThat(s.recipesFor("6d0734c5", "baseline")).extracting(Recipe::name)
                .containsExactly("pin-transformers", "no-compile", "rope-fix", "old-import");
        assertThat(s.recipesFor("6d0734c5", "agent:claude_code")).extracting(Recipe::name)
                .containsExactly("pin-transformers", "no-compile", "old-import");
        assertThat(s.recipesFor("310aca88", "human")).extracting(Recipe::name)
                .containsExactly("pin-transformers", "no-compile", "old-import");
        assertThat(s.recipes().get(2).line()).isPositive();
    }

    @Test
    void recipeAndBuildMistakesNameFileLineAndField() throws IOException {
        Files.createDirectories(dir.resolve("repo"));
        Path f = write("""
                engine:
                  repo: ./repo
                  build: pip install -e .
                tasks:
                  - id: t1
                    human_commit: abc123
                    build: [python3, ""]
                agents:
                  - name: a1
                recipes:
                  - name: pin
                    pip_pin: numpy>=1.26
                  - name: pin
                    env: {1BAD: x}
                  - name: two
                    env: {A: b}
                    pip_pin: numpy==1.0
                  - name: none
                    tasks: [t1]
                  - name: edit
                    replace_in_file: {path: ../outside.py, from: a}
                  - name: patch
                    apply_patch: fixes/missing.patch
                    tasks: [t2]
                    arms: [humna, agent:zz]
                  - name: typo
                    pip_pn: x==1
                """);
        String msg = SuiteLoaderTest.message(() -> SuiteLoader.load(f));
        assertThat(msg).contains(f + ":3: engine.build: must be an argv list, not a shell string 'pip install -e .'"
                + " (fix: an argv list run without a shell, e.g. [python3, -m, compileall, -q, .])");
        assertThat(msg).contains(f + ":7: tasks[0].build[1]: must be a non-empty string");
        assertThat(msg).contains(f + ":12: recipes[0].pip_pin: 'numpy>=1.26' is not an exact pin"
                + " (fix: package==version, e.g. numpy==1.26.4)");
        assertThat(msg).contains(f + ":13: recipes[1].name: duplicate recipe 'pin' (first at line 11)");
        assertThat(msg).contains(f + ":14: recipes[1].env.1BAD: is not a variable name");
        assertThat(msg).contains(f + ":16: recipes[2]: has 2 actions (pip_pin, env)"
                + " (fix: exactly one of pip_pin, env, apply_patch, replace_in_file per recipe)");
        assertThat(msg).contains(f + ":18: recipes[3]: has no action");
        assertThat(msg).contains(f + ":21: recipes[4].replace_in_file.to: missing");
        assertThat(msg).contains(f + ":21: recipes[4].replace_in_file.path: '../outside.py' leaves the engine tree");
        assertThat(msg).contains(f + ":23: recipes[5].apply_patch: no such file " + dir.resolve("fixes/missing.patch"));
        assertThat(msg).contains(f + ":24: recipes[5].tasks[0]: no task with id 't2' (did you mean t1?)");
        assertThat(msg).contains(f + ":25: recipes[5].arms[0]: 'humna' is not an arm (did you mean human?)");
        assertThat(msg).contains(f + ":25: recipes[5].arms[1]: 'agent:zz' is not an arm");
        assertThat(msg).contains(f + ":27: recipes[6].pip_pn: unknown key (did you mean pip_pin?)");
    }

    @Test
    void theDemoSuiteHasABuildStepAndARecipe() {
        Suite s = SuiteLoader.load(Path.of("examples/toy-engine/demo-suite.yaml"), false);
        assertThat(s.engine().build()).containsExactly("python3", "-m", "compileall", "-q", ".");
        assertThat(s.recipes()).extracting(Recipe::name).containsExactly("utf8-io");
        for (TaskSpec t : s.tasks()) {
            assertThat(s.buildArgv(t)).isNotEmpty();
            assertThat(s.recipesFor(t.id(), "agent:alpha")).hasSize(1);
        }
        assertThat(List.of(s.run().timeouts().buildS())).containsExactly(30);
    }

    @Test
    void theDemoSuitePointsAtARepoBuiltElsewhere(@org.junit.jupiter.api.io.TempDir Path dir) {
        Suite s = SuiteLoader.load(Path.of("examples/toy-engine/demo-suite.yaml"), false);
        Suite moved = s.withEngineRepo(dir.resolve("toyllm-repo"));
        assertThat(moved.engine().repo()).isEqualTo(dir.resolve("toyllm-repo").toString());
        assertThat(moved.engine().localPath()).isEqualTo(dir.resolve("toyllm-repo").toAbsolutePath().normalize());
        assertThat(moved.engine().name()).isEqualTo(s.engine().name());
        assertThat(moved.engine().build()).isEqualTo(s.engine().build());
        assertThat(moved.tasks()).isEqualTo(s.tasks());
        assertThat(moved.recipes()).isEqualTo(s.recipes());
    }
}
