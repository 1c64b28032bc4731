package io.isobench.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 27, point 9: a PostgreSQL URL with credentials ({@code user:pw@host}, {@code password=}) never shows its
 * password, with {@code --verbose} stack traces included (causes, suppressed exceptions, the driver's messages), for
 * passwords with the characters URL patterns stop at ({@code / @ " '} and spaces, percent-encoded). The URL names a
 * closed port on loopback: the connection fails at once.
 */
class VerboseCredentialsTest {

    @ParameterizedTest
    @ValueSource(strings = {"jdbc:postgresql://isobench:Zq9%2Fsecret%40pw@127.0.0.1:PORT/db",
            "jdbc:postgresql://isobench:Zq9/secret@pw@127.0.0.1:PORT/db",
            "jdbc:postgresql://127.0.0.1:PORT/db?user=isobench&password=Zq9/secret@pw",
            "jdbc:postgresql://isobench:Zq9secretpw@127.0.0.1:PORT/db"})
    void theDatabasePasswordNeverShows(String template) throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort(); // closed again: nothing listens there
        }
        String url = template.replace("PORT", Integer.toString(port));
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int code = Main.run(new PrintWriter(out, true), new PrintWriter(err, true), "--verbose", "--db", url, "runs");
        assertThat(code).isNotZero();
        String all = out + "\n" + err;
        assertThat(all).as("the trace is printed").contains("\tat ");
        assertThat(all).doesNotContain("secret").doesNotContain("Zq9");
    }

    /** The real CLI in its own JVM: nothing on its stderr (the driver's own log included) shows the password. */
    @Test
    void theCliProcessNeverPrintsThePassword() throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort();
        }
        Process p = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--enable-native-access=ALL-UNNAMED", "-cp", System.getProperty("java.class.path"),
                "io.isobench.cli.Main", "--verbose", "--db",
                "jdbc:postgresql://isobench:Zq9/secret@pw@127.0.0.1:" + port + "/db", "runs")
                .redirectErrorStream(true).start();
        String all = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as(all).isNotZero();
        assertThat(all).contains("\tat ").contains("isobench:***@127.0.0.1")
                .doesNotContain("secret").doesNotContain("Zq9");
    }
}
