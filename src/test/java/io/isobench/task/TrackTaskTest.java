package io.isobench.task;

import io.isobench.IsobenchException;
import io.isobench.plan.Planner;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** A task without commits is a track task (docs/suite-format.md, "Track tasks"). */
class TrackTaskTest {

    private static final String SUITE = """
            name: tracked
            engine: {name: generic, repo: ./engine, build: [make]}
            tasks:
              - id: kernel
                %s
                offline:
                  command: [./engine]
                  metrics:
                    - {name: command_cpu_s, primary: true}
            """;

    @TempDir
    Path dir;

    private Path write(String commits) throws Exception {
        Files.createDirectories(dir.resolve("engine"));
        Path f = dir.resolve("suite.yaml");
        Files.writeString(f, SUITE.formatted(commits));
        return f;
    }

    @Test
    void aTaskWithoutCommitsLoadsAsATrackTask() throws Exception {
        Suite s = SuiteLoader.load(write(""));
        TaskSpec t = s.task("kernel").orElseThrow();
        assertThat(t.tracked()).isTrue();
        assertThat(t.humanCommit()).isNull();
        assertThat(t.parentCommit()).isNull();
        TaskSpec pair = t.withCommits("b2", "a1");
        assertThat(pair.tracked()).isFalse();
        assertThat(pair.humanCommit()).isEqualTo("b2");
        assertThat(pair.parentCommit()).isEqualTo("a1");
        assertThat(pair.generic()).isEqualTo(t.generic());
        assertThat(s.withTasks(List.of(pair)).tasks()).containsExactly(pair);
    }

    @Test
    void aParentWithoutAHumanCommitIsASuiteError() throws Exception {
        Path f = write("parent_commit: abc1234");
        assertThatThrownBy(() -> SuiteLoader.load(f)).isInstanceOf(IsobenchException.BadInput.class)
                .hasMessageContaining("tasks[0].parent_commit: without human_commit (fix:");
    }

    @Test
    void runAndPlanStopOnATrackTaskInOneLineNamingIt() throws Exception {
        Suite s = SuiteLoader.load(write(""));
        assertThatThrownBy(() -> Planner.plan(s, new Planner.Options(1, 1L, dir.resolve("work"))))
                .isInstanceOf(IsobenchException.BadInput.class)
                .hasMessage("task kernel names no human_commit: it is a track task (fix: isobench track SUITE"
                        + " --range REV1..REV2, or give it human_commit to run it)");
        Suite withCommits = SuiteLoader.load(write("human_commit: abc1234"));
        withCommits.requireCommits(); // a task with commits is a session's task
        assertThat(Planner.plan(withCommits, new Planner.Options(1, 1L, dir.resolve("work"))).jobs()).isNotEmpty();
    }
}
