package io.isobench.cli;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** A throwaway git repository of an integration test's own engine: commits of one file, no shell. */
final class TestGit {

    private TestGit() {
    }

    /** Commits {@code file} (relative to {@code repo}) with a fixed identity and no signing. */
    static void commit(Path repo, String file, String message) throws Exception {
        git(repo, "add", file);
        git(repo, "-c", "user.name=t", "-c", "user.email=t@t.invalid", "-c", "commit.gpgsign=false", "commit", "-q",
                "-m", message);
    }

    static void git(Path repo, String... args) throws Exception {
        List<String> argv = new ArrayList<>(List.of("git"));
        argv.addAll(List.of(args));
        Process p = new ProcessBuilder(argv).directory(repo.toFile()).redirectErrorStream(true).start();
        assertThat(p.waitFor()).as(new String(p.getInputStream().readAllBytes())).isZero();
    }
}
