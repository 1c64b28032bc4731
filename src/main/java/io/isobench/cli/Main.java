package io.isobench.cli;

import io.isobench.IsobenchException;
import io.isobench.guard.SafeWriter;
import io.isobench.guard.Secrets;
import io.isobench.store.DuckNative;
import io.isobench.store.Stores;
import io.isobench.guard.Terminal;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ScopeType;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;

/**
 * Entry point. Thin: parse options, call one engine method, map the outcome to an exit code
 * (DESIGN.md §12: 0 done, 2 bad input, 3 environment missing, 4 nothing measured, 70 internal error).
 */
@Command(name = "isobench",
        mixinStandardHelpOptions = true,
        versionProvider = Main.Version.class,
        description = "Measures, with evidence, how much a performance commit to an LLM inference engine speeds it up,"
                + " and how an AI agent's patch for the same task compares.",
        subcommands = {
                ImportCommand.class,
                TasksCommand.class,
                TableCommand.class,
                RunsCommand.class,
                ChangesCommand.class,
                ReportCommand.class,
                ExportCommand.class,
                LoadgenCommand.class,
                SynthCommand.class,
                RunCommand.class,
                TrackCommand.class,
                AgentsCommand.class,
                GreedyCommand.class,
                DemoCommand.class,
                PlanCommand.class,
                ReviewCommand.class,
                TrainArchiveCommand.class,
                StatsCalibrationCommand.class,
                GpuTelemetryCommand.class,
                VerdictsCommand.class,
                CommandLine.HelpCommand.class
        })
public final class Main implements Runnable {

    public static final int OK = 0;
    public static final int BAD_INPUT = 2;
    public static final int ENV_MISSING = 3;
    public static final int NOTHING_MEASURED = 4;
    public static final int INTERNAL = 70;

    @Option(names = "--db", scope = ScopeType.INHERIT, paramLabel = "PATH|JDBC_URL",
            description = "Store: a DuckDB file (default ./isobench.duckdb) or jdbc:postgresql://host:port/db")
    String db;

    @Option(names = "--verbose", scope = ScopeType.INHERIT, description = "Print stack traces for errors.")
    boolean verbose;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    PrintWriter out;
    PrintWriter err;

    public static void main(String[] args) {
        PrintWriter out = new PrintWriter(System.out, true, StandardCharsets.UTF_8);
        PrintWriter err = new PrintWriter(System.err, true, StandardCharsets.UTF_8);
        int code;
        try {
            DuckNative.prepare();
            code = run(out, err, args);
        } catch (io.isobench.IsobenchException.EnvironmentMissing e) {
            err.println("isobench: " + Terminal.safe(Secrets.redact(e.getMessage())));
            code = ENV_MISSING;
        }
        out.flush();
        err.flush();
        System.exit(code);
    }

    /**
     * Runs the CLI in-process; returns the exit code. Everything printed passes {@link SafeWriter}: secrets redacted,
     * terminal control characters from outside (server bodies, logs, patches) written out (docs/security.md).
     */
    public static int run(PrintWriter rawOut, PrintWriter rawErr, String... args) {
        PrintWriter out = new PrintWriter(new SafeWriter(rawOut), true);
        PrintWriter err = new PrintWriter(new SafeWriter(rawErr), true);
        Main main = new Main();
        main.out = out;
        main.err = err;
        CommandLine cl = new CommandLine(main);
        cl.setOut(out);
        cl.setErr(err);
        cl.setCaseInsensitiveEnumValuesAllowed(true);
        cl.setExecutionExceptionHandler((ex, commandLine, parseResult) -> handle(main, ex));
        cl.setParameterExceptionHandler((ex, a) -> {
            err.println("isobench: " + ex.getMessage());
            err.println("Try '" + ex.getCommandLine().getCommandSpec().qualifiedName() + " --help' for usage.");
            return BAD_INPUT;
        });
        int code = cl.execute(args);
        out.flush();
        err.flush();
        return code;
    }

    private static int handle(Main main, Exception ex) {
        if (ex instanceof IsobenchException ie) {
            main.err.println(main.masked("isobench: " + ie.getMessage()));
            if (main.verbose) {
                main.trace(ex);
            }
            return ie.exitCode();
        }
        main.err.println(main.masked("isobench: internal error: " + ex)
                + (main.verbose ? "" : " (run with --verbose for the trace)"));
        if (main.verbose) {
            main.trace(ex);
        }
        return INTERNAL;
    }

    /**
     * {@code text} with the store's credentials masked: the exact passwords of {@code --db} (a driver echoes the URL,
     * a cause names {@code user:password@host} as a host) and any URL's user info (issue 27).
     */
    private String masked(String text) {
        return Stores.redactCredentials(text, db);
    }

    /** The stack trace ({@code --verbose}), causes and suppressed ones included, with credentials masked. */
    private void trace(Throwable ex) {
        StringWriter trace = new StringWriter();
        ex.printStackTrace(new PrintWriter(trace));
        err.print(masked(trace.toString()));
        err.flush();
    }

    @Override
    public void run() {
        spec.commandLine().usage(out);
    }

    /** The database spec, defaulting to ./isobench.duckdb. */
    String dbSpec() {
        return db == null || db.isBlank() ? "isobench.duckdb" : db;
    }

    /** The database spec of a command that reads results: a DuckDB file that does not exist yet is bad input. */
    String existingDbSpec() {
        String spec = dbSpec();
        if (!spec.startsWith("jdbc:") && !Files.exists(Path.of(spec))) {
            throw new IsobenchException.BadInput("--db " + spec + " does not exist: import results first"
                    + " (isobench --db " + spec + " import legacy DIR)");
        }
        return spec;
    }

    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            String v = Main.class.getPackage().getImplementationVersion();
            return new String[] {"isobench " + (v == null ? "dev" : v) + " (Java " + Runtime.version() + ", "
                    + System.getProperty("os.name").toLowerCase(Locale.ROOT) + ")"};
        }
    }
}
