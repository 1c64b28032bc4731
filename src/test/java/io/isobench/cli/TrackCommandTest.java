package io.isobench.cli;

import io.isobench.store.TrackChange;
import io.isobench.store.TrackCommit;
import org.junit.jupiter.api.Test;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class TrackCommandTest {

    private static final String C9 = "9f3c0a1b2c3d4e5f60718293a4b5c6d7e8f90123";
    private static final String C7 = "7a7a0a1b2c3d4e5f60718293a4b5c6d7e8f90123";

    @Test
    void aChangeIsOneLineWithStatusDirectionIntervalCommitSubjectAndFirstCommit() {
        List<TrackCommit> commits = List.of(TrackCommit.of("t", 7, C7, null, "engine: less work", true),
                TrackCommit.of("t", 9, C9, C7, "docs: a line", true));
        TrackChange c = TrackChange.builder("t", "gen").at(9, C9, C7).change("command_cpu_s", "faster", -14.52)
                .interval(-15.1, -13.94).status("confirmed", C7, "better").build();
        assertThat(TrackCommand.line(c, commits)).isEqualTo("confirmed faster -14.5 % [-15.1, -13.9] 9f3c0a1b2c3d"
                + " \"docs: a line\" (first commit 7a7a0a1b2c3d \"engine: less work\")");
        TrackChange candidate = TrackChange.builder("t", "gen").at(9, C9, C7).change("command_cpu_s", "slower", 3.0)
                .status("candidate", null, "E-divisive").build();
        assertThat(TrackCommand.line(candidate, commits)).isEqualTo("candidate slower +3.0 % 9f3c0a1b2c3d"
                + " \"docs: a line\"");
    }

    @Test
    void badOptionsAreExitTwoInOneLine() {
        StringWriter err = new StringWriter();
        int code = Main.run(new PrintWriter(new StringWriter()), new PrintWriter(err), "track", "suite.yaml",
                "--range", "a..b", "--fail-on", "sideways");
        assertThat(code).isEqualTo(2);
        assertThat(err.toString()).contains("--fail-on sideways: use slower, faster or any");
        StringWriter err2 = new StringWriter();
        assertThat(Main.run(new PrintWriter(new StringWriter()), new PrintWriter(err2), "track", "suite.yaml",
                "--range", "a..b", "--runs", "1")).isEqualTo(2);
        assertThat(err2.toString()).contains("--runs 1: must be >= 2");
    }
}
