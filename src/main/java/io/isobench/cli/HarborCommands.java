package io.isobench.cli;

import io.isobench.IsobenchException;
import io.isobench.agent.PatchCollector;
import io.isobench.agent.SealedRepo;
import io.isobench.harbor.HarborExport;
import io.isobench.harbor.HarborImport;
import io.isobench.harbor.HarborTaskChecker;
import io.isobench.task.Suite;
import io.isobench.task.SuiteLoader;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;

/** {@code isobench tasks export harbor}, {@code tasks import harbor}, {@code tasks check-harbor}, {@code collect-patch}. */
final class HarborCommands {

    private HarborCommands() {
    }

    @Command(name = "export", mixinStandardHelpOptions = true,
            description = "Write a suite's tasks in another harness's task format.",
            subcommands = {ExportHarbor.class})
    static final class Export extends CommandGroup {
    }

    @Command(name = "harbor", mixinStandardHelpOptions = true,
            description = {"Write each task of SUITE as a Harbor task folder (Harbor task format schema_version 1.4,"
                    + " harbor 0.20.0; docs/harbor.md), checked by the Harbor task checker.",
                    "Exit 0 when every folder was written and passes the check."})
    static final class ExportHarbor implements Callable<Integer> {
        @Spec
        CommandSpec spec;

        @Parameters(paramLabel = "SUITE", description = "The suite (.yaml); its engine.repo must be a local clone or"
                + " bundle.")
        Path suite;

        @Option(names = "--out", required = true, paramLabel = "DIR", description = "One folder per task goes here.")
        Path out;

        @Option(names = "--task", paramLabel = "ID", description = "Only this task (repeatable; default: every task).")
        List<String> tasks = new ArrayList<>();

        @Option(names = "--base-image", paramLabel = "REF", defaultValue = "isobench/python:bookworm",
                description = "The agent environment's base image: the engine's build tools, git, python3 for the"
                        + " setup (default ${DEFAULT-VALUE}).")
        String baseImage;

        @Option(names = "--verifier-base", paramLabel = "REF", description = "The verifier image's base: the same"
                + " tools and java >= 21 (default: --base-image).")
        String verifierBase;

        @Option(names = "--verifier-image", paramLabel = "REF", description = "A prebuilt verifier image: written as"
                + " [verifier.environment].docker_image instead of building tests/Dockerfile.")
        String verifierImage;

        @Override
        public Integer call() throws IOException {
            Main main = (Main) spec.root().userObject();
            Suite s = SuiteLoader.load(suite);
            HarborExport.Options o = new HarborExport.Options(tasks, baseImage,
                    verifierBase == null ? baseImage : verifierBase, verifierImage, jar(), version());
            Files.createDirectories(out);
            for (HarborExport.Exported e : HarborExport.export(s, out, o)) {
                main.out.println(e.dir() + ": written, Harbor's format checked (" + e.report().warnings().size()
                        + " warning(s))");
                e.report().warnings().forEach(w -> main.err.println("warning: " + e.taskId() + ": " + w));
            }
            return Main.OK;
        }
    }

    @Command(name = "check-harbor", mixinStandardHelpOptions = true,
            description = {"Check Harbor task folders against Harbor's task format (schema_version 1.4, harbor"
                    + " 0.20.0): what Task.is_valid_dir and TaskConfig accept (docs/harbor.md, \"The checker\").",
                    "One line per error or warning, naming the file and the key. Exit 0 when no folder has an error,"
                            + " 2 otherwise."})
    static final class CheckHarbor implements Callable<Integer> {
        @Spec
        CommandSpec spec;

        @Parameters(paramLabel = "DIR", arity = "1..*", description = "Harbor task folders.")
        List<Path> dirs;

        @Override
        public Integer call() {
            Main main = (Main) spec.root().userObject();
            int bad = 0;
            for (Path d : dirs) {
                HarborTaskChecker.Report r = HarborTaskChecker.check(d);
                r.errors().forEach(e -> main.out.println(d + ": error: " + e));
                r.warnings().forEach(w -> main.out.println(d + ": warning: " + w));
                if (r.ok()) {
                    main.out.println(d + ": ok");
                } else {
                    bad++;
                }
            }
            return bad == 0 ? Main.OK : Main.BAD_INPUT;
        }
    }

    @Command(name = "harbor", mixinStandardHelpOptions = true,
            description = {"Map Harbor task folders whose test is a performance test to a generic offline suite, as"
                    + " far as they map (docs/harbor.md, \"Import\"); one line per folder that does not map, with why."})
    static final class ImportHarbor implements Callable<Integer> {
        @Spec
        CommandSpec spec;

        @Parameters(paramLabel = "DIR", arity = "1..*", description = "Harbor task folders.")
        List<Path> dirs;

        @Option(names = "--out", required = true, paramLabel = "SUITE.yaml", description = "The suite; its engine"
                + " repository and the tests go beside it.")
        Path out;

        @Override
        public Integer call() throws IOException {
            Main main = (Main) spec.root().userObject();
            Path parent = out.toAbsolutePath().getParent();
            Files.createDirectories(parent);
            HarborImport.Result r = HarborImport.importTasks(dirs, out);
            r.notMapped().forEach(main.out::println);
            if (r.yaml() == null) {
                main.err.println("isobench: no Harbor task mapped (" + r.notMapped().size() + " not mappable)");
                return Main.BAD_INPUT;
            }
            Files.writeString(out, r.yaml());
            main.out.println(out + ": " + r.mapped().size() + " task(s) " + r.mapped() + ", "
                    + r.notMapped().size() + " not mappable");
            return Main.OK;
        }
    }

    @Command(name = "collect-patch", mixinStandardHelpOptions = true,
            description = {"Write the patch of a tree against a sealed commit with isobench's patch rule (docs/agents.md,"
                    + " \"The patch\"): git diff --binary through the given git directory and a fresh index, new files"
                    + " included, agent scratch left out; the tree's own .git is never read. An exported Harbor"
                    + " task's verifier runs it."})
    static final class CollectPatch implements Callable<Integer> {
        @Spec
        CommandSpec spec;

        @Option(names = "--git-dir", required = true, paramLabel = "DIR", description = "A git directory holding the"
                + " sealed commit (written to: its info/exclude and a temporary index).")
        Path gitDir;

        @Option(names = "--commit", required = true, paramLabel = "SHA", description = "The sealed commit.")
        String commit;

        @Option(names = "--tree", required = true, paramLabel = "DIR", description = "The changed tree.")
        Path tree;

        @Option(names = "--out", required = true, paramLabel = "FILE", description = "The patch (empty: no change).")
        Path out;

        @Option(names = "--max-mb", defaultValue = "32", paramLabel = "MB",
                description = "Largest patch (default ${DEFAULT-VALUE}, as runner.limits.patch_mb).")
        long maxMb;

        @Override
        public Integer call() throws IOException {
            Main main = (Main) spec.root().userObject();
            PatchCollector.Collected c = PatchCollector.collect(new SealedRepo(tree.toAbsolutePath(),
                    gitDir.toAbsolutePath(), commit), out.toAbsolutePath(), maxMb << 20);
            if (c.tooLarge() != null) {
                throw new IsobenchException.BadInput("collect-patch: " + c.tooLarge());
            }
            main.out.println(out + ": " + c.bytes() + " bytes");
            return Main.OK;
        }
    }

    /** The jar this isobench runs from (what the verifier gets). */
    static Path jar() {
        try {
            Path p = Path.of(HarborCommands.class.getProtectionDomain().getCodeSource().getLocation().toURI());
            if (!Files.isRegularFile(p)) {
                Path built = Path.of("target", "isobench.jar");
                if (Files.isRegularFile(built)) {
                    return built;
                }
                throw new IsobenchException.EnvironmentMissing("the export copies isobench's jar, and this isobench"
                        + " does not run from one (" + p + ") (fix: scripts/mvn -o package, then ./isobench)");
            }
            return p;
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    static String version() {
        String v = Main.class.getPackage().getImplementationVersion();
        return v == null ? "dev" : v;
    }
}
