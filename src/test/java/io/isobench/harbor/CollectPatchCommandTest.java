package io.isobench.harbor;

import io.isobench.ToyRepo;
import io.isobench.cli.Main;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code isobench tasks collect-patch} (what an exported task's verifier runs): the tree's change against the sealed
 * commit with isobench's patch rule — edits and new files in, agent scratch out, the tree's own .git never read.
 */
class CollectPatchCommandTest {

    @TempDir
    Path tmp;

    @Test
    void collectsTheTreesChangeWithIsobenchsRule() throws Exception {
        Path sealed = Files.createDirectories(tmp.resolve("sealed"));
        Files.writeString(sealed.resolve("run.c"), "int main() { return 0; }\n");
        ToyRepo.run(sealed, "git", "init", "-q");
        ToyRepo.run(sealed, "git", "add", "-A");
        ToyRepo.run(sealed, "git", "-c", "user.name=t", "-c", "user.email=t@localhost", "commit", "-q", "-m", "sealed");
        String commit = ToyRepo.run(sealed, "git", "rev-parse", "HEAD").strip();
        Path tree = Files.createDirectories(tmp.resolve("tree"));
        Files.writeString(tree.resolve("run.c"), "int main() { return 1; }\n");
        Files.writeString(tree.resolve("new.h"), "#define FAST 1\n");
        Files.createDirectories(tree.resolve("__pycache__"));
        Files.writeString(tree.resolve("__pycache__/x.pyc"), "scratch");
        Files.createDirectories(tree.resolve(".git"));
        Files.writeString(tree.resolve(".git/HEAD"), "the agent's own git: never read");
        Path out = tmp.resolve("agent.diff");
        StringWriter o = new StringWriter();
        StringWriter e = new StringWriter();
        int code = Main.run(new PrintWriter(o), new PrintWriter(e), "tasks", "collect-patch", "--git-dir",
                sealed.resolve(".git").toString(), "--commit", commit, "--tree", tree.toString(), "--out",
                out.toString());
        assertThat(code).as(e.toString()).isZero();
        String diff = Files.readString(out);
        assertThat(diff).contains("-int main() { return 0; }").contains("+int main() { return 1; }")
                .contains("+#define FAST 1").doesNotContain("__pycache__").doesNotContain("never read");
        Files.writeString(tree.resolve("run.c"), "int main() { return 0; }\n");
        Files.delete(tree.resolve("new.h"));
        Main.run(new PrintWriter(o), new PrintWriter(e), "tasks", "collect-patch", "--git-dir",
                sealed.resolve(".git").toString(), "--commit", commit, "--tree", tree.toString(), "--out",
                out.toString());
        assertThat(Files.size(out)).isZero();
    }
}
