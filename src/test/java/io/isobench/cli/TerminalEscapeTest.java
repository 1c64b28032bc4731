package io.isobench.cli;

import io.isobench.loadgen.HostileServer;
import org.junit.jupiter.api.Test;

import java.io.PrintWriter;
import java.io.StringWriter;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 15, point 4: a hostile server's error body (clear screen, window title, bell, an 8-bit CSI) reaches the
 * terminal only written out, never as control characters.
 */
class TerminalEscapeTest {

    @Test
    void aServersErrorBodyIsEchoedWithItsControlCharactersWrittenOut() throws Exception {
        try (HostileServer s = new HostileServer(HostileServer.Mode.ESCAPE_ERROR, 0)) {
            StringWriter out = new StringWriter();
            StringWriter err = new StringWriter();
            int code = Main.run(new PrintWriter(out, true), new PrintWriter(err, true), "loadgen", "--base-url",
                    s.baseUrl(), "--model", "m", "--random-input-len", "8", "--random-output-len", "4",
                    "--num-prompts", "2");
            assertThat(code).isEqualTo(4);
            String all = out + err.toString();
            assertThat(err.toString()).contains("HTTP 500").contains("\\u001b[2J").contains("pwned");
            assertThat(all.chars().filter(c -> c < 0x20 && c != '\n' && c != '\t' && c != '\r'
                    || c >= 0x7f && c <= 0x9f)).as("control characters in: " + all).isEmpty();
        }
    }
}
