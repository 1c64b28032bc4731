package io.isobench.cli;

import io.isobench.IsobenchException;
import io.isobench.guard.AtomicFile;
import io.isobench.proc.Sandbox;
import io.isobench.session.SessionRequest;
import io.isobench.plan.Planner;
import io.isobench.report.HtmlReport;
import io.isobench.report.ReportModel;
import io.isobench.report.ReportScope;
import io.isobench.report.SessionReport;
import io.isobench.store.Store;
import io.isobench.store.Stores;
import io.isobench.task.Confine;
import io.isobench.task.Suite;
import io.isobench.task.SuiteLoader;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;

@Command(name = "demo", mixinStandardHelpOptions = true,
        description = "Run the bundled demo: the toy engine's three tasks (baseline, human, four agents) measured on"
                + " this machine; writes <workdir>/report.md and the HTML report <workdir>/report-html/index.html."
                + " Keeps its own store and working folder"
                + " (./isobench-demo/ unless --db/--workdir); a second demo starts a new session unless --resume.")
final class DemoCommand implements Callable<Integer> {

    @ParentCommand
    Main main;

    @Option(names = "--workdir", paramLabel = "DIR", defaultValue = "isobench-demo",
            description = "Working folder: engine repo, worktrees, store, report (default ${DEFAULT-VALUE}).")
    Path workdir;

    @Option(names = "--rounds", paramLabel = "N|adaptive", description = "Measured rounds: a fixed number, or adaptive"
            + " (the default: each task stops when its verdicts are decided, at most 8 rounds).")
    String rounds;

    @picocli.CommandLine.Mixin
    ExecutionOptions execution = new ExecutionOptions();

    @Option(names = "--sweep", description = "The second demo: a load sweep of the toy engine's serving task"
            + " (examples/toy-engine/sweep-suite.yaml: max_concurrency 1, 4, 8 at --goodput tpot:9; baseline and human):"
            + " latency-throughput curves and verdicts on capacity. Working folder isobench-demo-sweep unless --workdir.")
    boolean sweep;

    @Option(names = "--resume", description = "Continue the latest demo session instead of starting a new one.")
    boolean resume;

    @Option(names = "--dry-run", description = "Print the plan; run nothing.")
    boolean dryRun;

    @Option(names = "--format", defaultValue = "text", description = "Plan format for --dry-run: text or json.")
    String format;

    /**
     * The demo's suite, its arms unconfined where this machine cannot make the sandbox (bwrap missing): the demo's
     * toy engine and its agents' patches are isobench's own files, so a first run needs nothing more than git and
     * python3. It says so; every other suite's confined arms fail there instead (docs/security.md).
     */
    private Suite unconfinedWithoutSandbox(Suite suite) {
        Optional<String> problem = Sandbox.problem();
        if (problem.isEmpty() || suite.run().confine().arms() == Confine.Arms.OFF) {
            return suite;
        }
        main.err.println("isobench: the demo runs its arms unconfined here: " + problem.get());
        return suite.withRun(suite.run().withConfine(suite.run().confine().withArms(Confine.Arms.OFF)));
    }

    @Override
    public Integer call() throws IOException, InterruptedException {
        Path toy = toyEngine();
        Path dir = (sweep && workdir.equals(Path.of("isobench-demo")) ? Path.of("isobench-demo-sweep") : workdir)
                .toAbsolutePath();
        Files.createDirectories(dir);
        Path repo = dir.resolve("toyllm-repo");
        if (!resume || !Files.isDirectory(repo.resolve(".git"))) {
            buildRepo(toy, repo);
        }
        // the suite names ./toyllm-repo beside it; the demo's repo is built in its working folder instead
        Suite loaded = SuiteLoader.load(toy.resolve(sweep ? "sweep-suite.yaml" : "demo-suite.yaml"), false)
                .withEngineRepo(repo);
        // adaptive rounds (the demo suites' run.rounds) unless --rounds says otherwise
        RoundsOption.Choice roundsChoice = RoundsOption.of(rounds, loaded);
        Suite suite = unconfinedWithoutSandbox(roundsChoice.suite());
        Integer n = roundsChoice.fixed();
        String db = main.db != null && !main.db.isBlank() ? main.db : dir.resolve("isobench.duckdb").toString();
        SessionRequest request = new SessionRequest(suite, new Planner.Options(n, null, dir, execution.aa()), db, null,
                resume, execution.choice(), execution.feedback(main.err, id -> "isobench demo --resume"
                + (sweep ? " --sweep" : "")
                + (main.db == null ? "" : " --db " + Sessions.word(main.db)) + " --workdir "
                + Sessions.word(workdir.toString())));
        Sessions.Outcome outcome = Sessions.run(main, request, dryRun, format);
        if (outcome.summary() == null) {
            return outcome.exitCode();
        }
        String session = outcome.summary().run().sessionId();
        Path report = dir.resolve("report.md");
        try (Store store = Stores.open(db); ReportModel model = ReportModel.build(store, ReportScope.session(session))) {
            AtomicFile.write(report, w -> SessionReport.write(model, w));
        }
        main.out.println("report: " + report);
        Path site = dir.resolve("report-html");
        try (Store store = Stores.open(db); ReportModel model = ReportModel.build(store, ReportScope.defaults())) {
            HtmlReport.Result r = HtmlReport.write(model, site);
            main.out.println("html report: " + r.index());
        }
        return Main.OK;
    }

    /** examples/toy-engine, from the working directory or beside the jar (target/isobench.jar → repo root). */
    static Path toyEngine() {
        Path rel = Path.of("examples", "toy-engine");
        String prop = System.getProperty("isobench.home");
        if (prop != null && Files.isRegularFile(Path.of(prop).resolve(rel).resolve("demo-suite.yaml"))) {
            return Path.of(prop).resolve(rel).toAbsolutePath();
        }
        if (Files.isRegularFile(rel.resolve("demo-suite.yaml"))) {
            return rel.toAbsolutePath();
        }
        try {
            Path jar = Path.of(DemoCommand.class.getProtectionDomain().getCodeSource().getLocation().toURI());
            for (Path p = jar.getParent(); p != null; p = p.getParent()) {
                if (Files.isRegularFile(p.resolve(rel).resolve("demo-suite.yaml"))) {
                    return p.resolve(rel).toAbsolutePath();
                }
            }
        } catch (Exception e) {
            // fall through
        }
        throw new IsobenchException.EnvironmentMissing("examples/toy-engine/demo-suite.yaml not found; run the demo "
                + "from the isobench checkout (or pass -Disobench.home=<checkout>)");
    }

    private static void buildRepo(Path toy, Path repo) throws IOException, InterruptedException {
        Process p = new ProcessBuilder("bash", toy.resolve("build-repo.sh").toString(), repo.toString())
                .redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
            throw new IsobenchException.EnvironmentMissing("building the toy engine repo into " + repo + " failed: "
                    + out.strip());
        }
    }
}
