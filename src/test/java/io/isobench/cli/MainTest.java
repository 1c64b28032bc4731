package io.isobench.cli;

import org.junit.jupiter.api.Test;

import java.io.PrintWriter;
import java.io.StringWriter;

import static org.assertj.core.api.Assertions.assertThat;

class MainTest {

    record Result(int code, String out, String err) {
    }

    static Result run(String... args) {
        StringWriter o = new StringWriter();
        StringWriter e = new StringWriter();
        int code = Main.run(new PrintWriter(o, true), new PrintWriter(e, true), args);
        return new Result(code, o.toString(), e.toString());
    }

    @Test
    void helpListsCommandsAndExitsZero() {
        Result r = run("--help");
        assertThat(r.code()).isZero();
        assertThat(r.out()).contains("import", "table", "report", "export");
    }

    @Test
    void unknownCommandIsBadInputWithOneLineHint() {
        Result r = run("no-such-command");
        assertThat(r.code()).isEqualTo(Main.BAD_INPUT);
        assertThat(r.err()).contains("no-such-command").contains("--help");
    }
}
