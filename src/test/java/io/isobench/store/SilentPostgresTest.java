package io.isobench.store;

import io.isobench.cli.Main;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 15, point 8: a "PostgreSQL" port that accepts connections and never answers ends the command after the
 * login timeout with one line and exit 3 (it hung forever: only the TCP connect had a timeout).
 */
class SilentPostgresTest {

    @Test
    @Timeout(value = 90, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void aServerThatAcceptsAndNeverAnswersIsExit3() throws Exception {
        List<Socket> held = new ArrayList<>();
        try (ServerSocket silent = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            Thread.ofPlatform().daemon().start(() -> {
                while (!silent.isClosed()) {
                    try {
                        held.add(silent.accept()); // accept, read nothing, answer nothing
                    } catch (IOException e) {
                        return;
                    }
                }
            });
            StringWriter out = new StringWriter();
            StringWriter err = new StringWriter();
            long t0 = System.nanoTime();
            int code = Main.run(new PrintWriter(out, true), new PrintWriter(err, true), "--db",
                    "jdbc:postgresql://127.0.0.1:" + silent.getLocalPort() + "/db?user=u&password=s3cret", "report");
            double s = (System.nanoTime() - t0) / 1e9;
            assertThat(code).as(err.toString()).isEqualTo(3);
            assertThat(err.toString().strip().lines()).hasSize(1);
            assertThat(err.toString()).contains("did not answer within 10 s").doesNotContain("s3cret");
            assertThat(s).isLessThan(60);
        } finally {
            for (Socket s : held) {
                s.close();
            }
        }
    }
}
