package io.isobench.harbor;

import io.isobench.IsobenchException;
import io.isobench.agent.AttemptDirs;
import io.isobench.agent.PromptTemplate;
import io.isobench.agent.SealedRepo;
import io.isobench.parse.Better;
import io.isobench.parse.MetricDictionary;
import io.isobench.task.AgentSpec;
import io.isobench.task.Suite;
import io.isobench.task.TaskSpec;
import org.yaml.snakeyaml.DumperOptions;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;
import org.yaml.snakeyaml.representer.Representer;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code isobench tasks export harbor} (docs/harbor.md): each task of a suite as one Harbor task folder (Harbor task
 * format schema_version 1.4, harbor 0.20.0). The agent's environment holds only the task's parent tree sealed as one
 * commit (the same commit id {@link SealedRepo} gives an isobench attempt) and the files the suite's setup names; the
 * verifier is a separate, network-less container holding isobench, the engine's history and the suite, which rebuilds
 * the sealed commit, collects the agent's patch with isobench's rule, runs the session (baseline, A/A, human, agent)
 * and writes Harbor's reward. Every folder written is checked by {@link HarborTaskChecker}; an error fails the export.
 */
public final class HarborExport {

    /** Where the agent's repository is in the agent's container (and, copied as an artifact, in the verifier's). */
    public static final String REPO = "/app/repo";
    /** Where the suite's setup runs in the agent's container ({@code {workdir}}). */
    public static final String WORK = "/app/work";
    /** Where the files the setup names are in the agent's container ({@code {suite_dir}}). */
    public static final String SUITE = "/app/suite";
    /** The agent arm's name in the verifier's suite. */
    public static final String AGENT = "harbor";

    /**
     * What to export.
     *
     * @param taskIds         the tasks (empty: every task of the suite)
     * @param baseImage       the agent environment's base image (the engine's build tools, git, python3 for setup)
     * @param verifierBase    the verifier image's base (the same tools and java ≥ 21)
     * @param verifierImage   a prebuilt verifier image; null: tests/Dockerfile builds one
     * @param isobenchJar     the isobench jar the verifier runs
     * @param isobenchVersion written into the metadata
     */
    public record Options(List<String> taskIds, String baseImage, String verifierBase, String verifierImage,
                          Path isobenchJar, String isobenchVersion) {
        public Options {
            taskIds = List.copyOf(taskIds);
        }
    }

    /** One exported task: its folder and what the checker said of it. */
    public record Exported(String taskId, Path dir, HarborTaskChecker.Report report) {
    }

    /** Facts of one task the files are written from. */
    record TaskFacts(String suiteName, TaskSpec task, String engine, String parent, String sealed, String human,
                     String metric, boolean lowerIsBetter, String prompt, String promptSha256,
                     String templateSha256, String hints, int gpus, int cpus, long memoryMb, double agentTimeoutS,
                     double verifierTimeoutS, List<List<String>> setup) {
    }

    private HarborExport() {
    }

    /** Writes one folder per task under {@code out}; fails on the first task the checker finds an error in. */
    public static List<Exported> export(Suite suite, Path out, Options o) throws IOException {
        if (suite.engine().localPath() == null) {
            throw new IsobenchException.BadInput("engine.repo " + suite.engine().repo() + ": the export needs a local"
                    + " clone or bundle (fix: clone it and point engine.repo there)");
        }
        Map<String, Object> yaml = loadYaml(suite.file());
        String suiteName = yaml.get("name") instanceof String n ? n : stem(suite.file());
        List<TaskSpec> tasks = select(suite, o.taskIds());
        Path tmp = Files.createTempDirectory("isobench-harbor-");
        try {
            Path engine = engineRepo(suite, tmp);
            List<Exported> done = new ArrayList<>();
            for (TaskSpec t : tasks) {
                Path dir = out.resolve(t.id());
                if (Files.exists(dir)) {
                    throw new IsobenchException.BadInput(dir + ": exists (fix: remove it, or --out another folder)");
                }
                done.add(task(new Source(suite, yaml, suiteName, engine), t, dir, tmp.resolve("seal-" + t.id()), o));
            }
            return done;
        } finally {
            deleteTree(tmp);
        }
    }

    /** The suite being exported: loaded, as YAML, its name, and a git directory with the engine's history. */
    private record Source(Suite suite, Map<String, Object> yaml, String name, Path engine) {
    }

    private static Exported task(Source src, TaskSpec t, Path dir, Path sealDir, Options o) throws IOException {
        Suite suite = src.suite();
        Path engine = src.engine();
        String parentRef = t.parentCommit() != null ? t.parentCommit() : t.humanCommit() + "^";
        String parent = Git.git(engine, "rev-parse", "--verify", parentRef + "^{commit}").strip();
        String human = Git.git(engine, "rev-parse", "--verify", t.humanCommit() + "^{commit}").strip();
        SealedRepo sealed = SealedRepo.create(engine, parent, AttemptDirs.under(sealDir));
        String subject = Git.git(engine, "log", "-1", "--format=%s", human).strip();
        TaskFacts f = facts(suite, src.name(), t, parent, sealed.commit(), human, subject);
        Files.createDirectories(dir.resolve("environment"));
        Files.createDirectories(dir.resolve("tests/isobench/suite"));
        Files.createDirectories(dir.resolve("solution"));
        Git.tarTree(sealed.worktree(), dir.resolve("environment/sealed.tar"));
        Files.copy(dir.resolve("environment/sealed.tar"), dir.resolve("tests/isobench/sealed.tar"));
        List<String> setupFiles = setupFiles(suite, f.setup());
        for (String rel : setupFiles) {
            Path dst = dir.resolve("environment/suite").resolve(rel);
            Files.createDirectories(dst.getParent());
            Files.copy(suiteDir(suite).resolve(rel), dst);
        }
        Files.writeString(dir.resolve("task.toml"), HarborFiles.taskToml(f, o));
        Files.writeString(dir.resolve("instruction.md"), HarborFiles.instruction(f));
        Files.writeString(dir.resolve("environment/Dockerfile"), HarborFiles.environmentDockerfile(f, o,
                !setupFiles.isEmpty()));
        Files.writeString(dir.resolve("tests/Dockerfile"), HarborFiles.testsDockerfile(f, o));
        Files.writeString(dir.resolve("tests/test.sh"), HarborFiles.testSh(f));
        dir.resolve("tests/test.sh").toFile().setExecutable(true, false);
        Files.writeString(dir.resolve("solution/solve.sh"), HarborFiles.solveSh(f));
        dir.resolve("solution/solve.sh").toFile().setExecutable(true, false);
        Files.writeString(dir.resolve("solution/human.diff"), Git.git(engine, "diff", "--binary", "--no-color",
                "--no-ext-diff", "--no-textconv", parent, human));
        copySuiteFolder(suite, dir.resolve("tests/isobench/suite"));
        Files.writeString(dir.resolve("tests/isobench/suite/" + HarborFiles.VERIFIER_SUITE),
                verifierSuite(src.yaml(), t.id()));
        Path bundle = dir.resolve("tests/isobench/engine.bundle");
        if (suite.engine().isBundle()) {
            Files.copy(suite.engine().localPath(), bundle);
        } else {
            Git.git(engine, "bundle", "create", "-q", bundle.toString(), "--all");
        }
        Files.copy(o.isobenchJar(), dir.resolve("tests/isobench/isobench.jar"), StandardCopyOption.REPLACE_EXISTING);
        HarborTaskChecker.Report r = HarborTaskChecker.check(dir);
        if (!r.ok()) {
            throw new IllegalStateException("the exported task " + dir + " fails Harbor's format: " + r.errors());
        }
        return new Exported(t.id(), dir, r);
    }

    static TaskFacts facts(Suite suite, String suiteName, TaskSpec t, String parent, String sealed, String human,
                           String subject) throws IOException {
        String metric = metric(t);
        boolean lower = better(t, metric) != Better.HIGHER;
        var p = suite.agentPrompt();
        PromptTemplate template = new PromptTemplate(p.template() == null ? PromptTemplate.DEFAULT
                : Files.readString(p.template()), PromptTemplate.Hints.parse(p.hints()));
        String perf = t.perfCommand() == null ? null : inContainer(t.perfCommand());
        String prompt = template.render(t.id(), perf, metric, lower, REPO, subject);
        Map<String, String> sandbox = Map.of();
        Double wall = null;
        for (AgentSpec a : suite.agents()) {
            if (a.runner() != null) {
                sandbox = a.runner().sandbox();
                wall = a.runner().budget().get("wall_s");
                break;
            }
        }
        int cpus = (int) Math.ceil(Double.parseDouble(sandbox.getOrDefault("cpus", "2")));
        long memoryMb = Long.parseLong(sandbox.getOrDefault("memory_mb", "4096"));
        int gpus = t.gpus() == null ? 0 : t.gpus();
        var timeouts = suite.run().timeouts();
        int rounds = suite.run().rounds().maxRounds();
        double verifierS = Math.min(86_400, (rounds * 4 + 2) * (double) timeouts.runS() + 4.0 * timeouts.buildS()
                + 600);
        List<List<String>> setup = new ArrayList<>();
        String hostSuiteDir = suiteDir(suite).toString();
        for (List<String> argv : suite.setup()) { // {suite_dir} is filled in by the loader: the host's folder
            setup.add(argv.stream().map(w -> inContainer(w.startsWith(hostSuiteDir + "/")
                    ? SUITE + w.substring(hostSuiteDir.length()) : w)).toList());
        }
        return new TaskFacts(suiteName, t, suite.engine().name(), parent, sealed, human, metric, lower, prompt,
                PromptTemplate.sha256(prompt), template.sha256(), template.hints().label(), gpus, cpus, memoryMb,
                wall == null ? 3600 : wall, verifierS, setup);
    }

    /** A word with the suite's folder and the work folder as the agent's container has them. */
    private static String inContainer(String word) {
        return word.replace("{workdir}", WORK).replace("{suite_dir}", SUITE);
    }

    /** The task's primary metric: a generic task's declared primary, else the mode's (as {@code agents run}). */
    private static String metric(TaskSpec t) {
        if (t.generic() != null) {
            return t.generic().offline() != null ? t.generic().offline().primary() : t.generic().serving().primary();
        }
        return t.mode().map(MetricDictionary::primaryMetric).orElse(null);
    }

    /** The direction of {@code metric}: a declared rule's, else the metric dictionary's, else lower. */
    private static Better better(TaskSpec t, String metric) {
        if (metric == null) {
            return Better.LOWER;
        }
        if (t.generic() != null && t.generic().offline() != null) {
            for (var rule : t.generic().offline().metrics()) {
                if (rule.name().equals(metric) && rule.better() != null) {
                    return rule.better();
                }
            }
        }
        MetricDictionary.Definition d = MetricDictionary.lookup(metric);
        return d == null ? Better.LOWER : d.better();
    }

    /** The files under {@code {suite_dir}} the setup argv name (relative to the suite's folder), in order. */
    private static List<String> setupFiles(Suite suite, List<List<String>> setup) {
        List<String> out = new ArrayList<>();
        for (List<String> argv : setup) {
            for (String w : argv) {
                if (w.startsWith(SUITE + "/")) {
                    String rel = w.substring(SUITE.length() + 1);
                    if (Files.isRegularFile(suiteDir(suite).resolve(rel)) && !out.contains(rel)) {
                        out.add(rel);
                    }
                }
            }
        }
        return out;
    }

    private static Path suiteDir(Suite suite) {
        return suite.file().toAbsolutePath().getParent();
    }

    /**
     * Copies the suite's folder (regular files, no hidden ones, nothing under the engine's own repository, none over
     * 64 MiB) for the verifier's session: the setup's files, the prompt template, the agents' patches.
     */
    private static void copySuiteFolder(Suite suite, Path dst) throws IOException {
        Path src = suiteDir(suite);
        Path engine = suite.engine().localPath().toAbsolutePath().normalize();
        try (var walk = Files.walk(src)) {
            for (Path p : walk.sorted().toList()) {
                Path rel = src.relativize(p);
                boolean hidden = false;
                for (Path part : rel) {
                    hidden |= part.toString().startsWith(".");
                }
                if (hidden || p.toAbsolutePath().normalize().startsWith(engine)
                        || !Files.isRegularFile(p, LinkOption.NOFOLLOW_LINKS) || Files.size(p) > 64L << 20) {
                    continue;
                }
                Path d = dst.resolve(rel.toString());
                Files.createDirectories(d.getParent());
                Files.copy(p, d, StandardCopyOption.REPLACE_EXISTING);
            }
        }
    }

    /**
     * The verifier's suite: the suite's YAML with one task, the engine read from {@code ../engine.bundle}, one agent
     * arm {@value #AGENT} whose patch is the collected one, the local executor and arms unconfined (bubblewrap needs
     * user namespaces a container's default profile refuses; the separate verifier container is the wall).
     */
    @SuppressWarnings("unchecked")
    static String verifierSuite(Map<String, Object> yaml, String taskId) {
        Map<String, Object> y = new LinkedHashMap<>(yaml);
        Map<String, Object> engine = new LinkedHashMap<>((Map<String, Object>) y.get("engine"));
        engine.put("repo", "../engine.bundle");
        y.put("engine", engine);
        List<Object> tasks = new ArrayList<>();
        for (Object o : (List<Object>) y.get("tasks")) {
            if (o instanceof Map<?, ?> m && taskId.equals(m.get("id"))) {
                tasks.add(o);
            }
        }
        y.put("tasks", tasks);
        Map<String, Object> arm = new LinkedHashMap<>();
        arm.put("name", AGENT);
        arm.put("patches", Map.of(taskId, HarborFiles.PATCH));
        y.put("agents", List.of(arm));
        Map<String, Object> run = y.get("run") instanceof Map<?, ?> r ? new LinkedHashMap<>((Map<String, Object>) r)
                : new LinkedHashMap<>();
        run.put("executor", "local");
        Map<String, Object> confine = run.get("confine") instanceof Map<?, ?> c
                ? new LinkedHashMap<>((Map<String, Object>) c) : new LinkedHashMap<>();
        confine.put("arms", "off");
        run.put("confine", confine);
        y.put("run", run);
        DumperOptions d = new DumperOptions();
        d.setDefaultFlowStyle(DumperOptions.FlowStyle.BLOCK);
        d.setWidth(120);
        return "# The verifier's suite (isobench tasks export harbor): " + taskId + " only, the agent's patch as arm "
                + AGENT + ".\n" + new Yaml(new SafeConstructor(new LoaderOptions()), new Representer(d), d).dump(y);
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> loadYaml(Path file) throws IOException {
        Object o = new Yaml(new SafeConstructor(new LoaderOptions())).load(Files.readString(file));
        if (!(o instanceof Map<?, ?> m)) {
            throw new IsobenchException.BadInput(file + ": not a suite (a YAML mapping)");
        }
        return (Map<String, Object>) m;
    }

    private static List<TaskSpec> select(Suite suite, List<String> ids) {
        suite.requireCommits();
        if (ids.isEmpty()) {
            return suite.runnableTasks();
        }
        List<TaskSpec> out = new ArrayList<>();
        for (String id : ids) {
            out.add(suite.task(id).orElseThrow(() -> new IsobenchException.BadInput("--task " + id + ": no such task"
                    + " in " + suite.file() + " (fix: one of " + suite.tasks().stream().map(TaskSpec::id).toList()
                    + ")")));
        }
        return out;
    }

    /** A git directory holding the engine's history (a bundle is cloned bare into {@code tmp}). */
    private static Path engineRepo(Suite suite, Path tmp) {
        Path repo = suite.engine().localPath();
        if (!suite.engine().isBundle()) {
            return repo;
        }
        Path dst = tmp.resolve("engine.git");
        Git.git(tmp, "clone", "-q", "--bare", repo.toString(), dst.toString());
        return dst;
    }

    private static String stem(Path file) {
        String n = file.getFileName().toString();
        return n.contains(".") ? n.substring(0, n.lastIndexOf('.')) : n;
    }

    private static void deleteTree(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (var walk = Files.walk(dir)) {
            for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
                p.toFile().setWritable(true);
                Files.deleteIfExists(p);
            }
        }
    }
}
