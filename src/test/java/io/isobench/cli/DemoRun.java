package io.isobench.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Comparator;
import java.util.stream.Stream;

/**
 * The bundled demo as a user runs it ({@code isobench demo --workdir DIR}: adaptive rounds, the A/A arm on), run once
 * per test JVM and shared by the integration tests that read what it wrote: {@link DemoIT} (verdicts, store, report,
 * then {@code --resume}) and {@code report.HtmlReportBrowserIT} (the same session's HTML report in a browser). The demo
 * is the slowest local session of the suite (about 90 s on 2 cores); one run serves both.
 *
 * <p>Guarantees: the first caller runs the demo, every later caller gets the same {@link Run} (the same folder and
 * output, never a second session); the folder is mode 755 like every {@code @TempDir} here ({@code OpenTempDirs}: the
 * confined arms run as another user) and is deleted when the JVM exits. A test that changes the folder must leave
 * what the others read equal in content ({@code demo --resume} writes report.md and report-html anew, the same).
 */
public final class DemoRun {

    /** What {@code isobench demo} left: its folder, exit code, standard output and standard error. */
    public record Run(Path workdir, int code, String out, String err) {
    }

    private static Run run;

    private DemoRun() {
    }

    /** The demo's run in this JVM: started by the first caller, who waits for it (about 90 s); later callers share it. */
    public static synchronized Run adaptive() throws IOException {
        if (run == null) {
            Path dir = Files.createTempDirectory("isobench-demo-");
            Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
            Runtime.getRuntime().addShutdownHook(new Thread(() -> delete(dir), "demo-run-cleanup"));
            StringWriter out = new StringWriter();
            StringWriter err = new StringWriter();
            int code = Main.run(new PrintWriter(out, true), new PrintWriter(err, true), "demo", "--workdir",
                    dir.toString());
            run = new Run(dir, code, out.toString(), err.toString());
        }
        return run;
    }

    private static void delete(Path dir) {
        try (Stream<Path> s = Files.walk(dir)) {
            s.sorted(Comparator.reverseOrder()).forEach(p -> {
                try {
                    Files.deleteIfExists(p);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
        } catch (IOException | UncheckedIOException e) {
            System.err.println("demo run: could not delete " + dir + ": " + e.getMessage());
        }
    }
}
