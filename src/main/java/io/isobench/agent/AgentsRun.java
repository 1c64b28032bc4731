package io.isobench.agent;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.isobench.Arm;
import io.isobench.IsobenchException;
import io.isobench.Mode;
import io.isobench.parse.Better;
import io.isobench.parse.MetricDictionary;
import io.isobench.plan.GpuDiscovery;
import io.isobench.store.RunRecord;
import io.isobench.store.SessionRecord;
import io.isobench.store.Store;
import io.isobench.task.AgentRunner;
import io.isobench.task.AgentSpec;
import io.isobench.task.Suite;
import io.isobench.task.TaskSpec;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * {@code isobench agents run} (docs/agents.md): runs one agent K times per task on sealed parent trees, stores every
 * attempt ({@link AttemptRecords}, its patch byte for byte) as soon as it ends; the suite file is only read.
 * {@code isobench run SUITE --attempts-of SESSION} measures the stored attempts (attempt k → agent arm
 * {@code NAME@k}, {@link StoredAttempts}); {@code isobench agents export-suite} writes them into a suite file.
 * Attempts run in order attempt 1 of every task, then attempt 2, …; a resumed session ({@code --resume}) skips every
 * attempt already stored and redoes one that was cut off (its folder is cleared first, leftovers killed). An attempt
 * isobench fails to run (an exception, a collection error) is stored as {@link AttemptStatus#ATTEMPT_CRASHED} with
 * its reason, and one cut off twice (isobench itself died while it ran, twice) too, so a resumed run never repeats a
 * crash; one attempt's failure never drops another attempt.
 */
public final class AgentsRun {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final DateTimeFormatter ID_TIME = DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss'Z'")
            .withZone(ZoneOffset.UTC);

    /**
     * What to run.
     *
     * @param suite         the suite (read, never written)
     * @param agent         the agent's name in the suite (it needs a {@code runner:})
     * @param tasks         task ids (empty: every runnable task)
     * @param attempts      K, attempts per task
     * @param executor      {@code local} or {@code docker}
     * @param workdir       where the attempts' folders go
     * @param resumeSession a session to continue ({@code latest}: the newest unfinished one of this agent), or null
     */
    public record Request(Suite suite, String agent, List<String> tasks, int attempts, String executor, Path workdir,
                          String resumeSession) {
        public Request {
            tasks = List.copyOf(tasks);
            if (attempts < 1) {
                throw new IsobenchException.BadInput("--attempts (" + attempts + ") must be >= 1");
            }
            if (!executor.equals("local") && !executor.equals("docker")) {
                throw new IsobenchException.BadInput("--executor " + executor + ": agents run on local or docker"
                        + " (fix: --executor docker for the sandbox)");
            }
        }
    }

    /** One attempt's line in the summary. */
    public record AttemptRow(String taskId, int attempt, AttemptStatus status, String detail, Usage usage,
                             double wallS, int patchLines, boolean resumed) {
    }

    /** What a run did. */
    public record Summary(String sessionId, List<AttemptRow> attempts) {
    }

    /** Makes the sandbox for an agent (docker needs the suite's image; tests may supply their own). */
    @FunctionalInterface
    public interface SandboxFactory {
        AgentSandbox create(AgentConfig config, AgentRunner runner, Suite suite) throws IOException;
    }

    private final Store store;
    private final Map<String, String> env;
    private final Consumer<String> progress;
    private final SandboxFactory sandboxes;
    /** {@code --gpus}: GPUs per attempt, overriding the runner's {@code sandbox.gpus}; null: the runner's. */
    private Integer gpusOverride;
    /** Where attempts' GPUs come from; null: this host ({@link AttemptGpus.Host#of}), found when first needed. */
    private AttemptGpus.Host gpuHost;

    /**
     * @param env       isobench's environment (the secrets are read from it)
     * @param progress  one line per event (stderr in the CLI)
     * @param sandboxes how a sandbox is made ({@link #defaultSandboxes()} in the CLI)
     */
    public AgentsRun(Store store, Map<String, String> env, Consumer<String> progress, SandboxFactory sandboxes) {
        this.store = store;
        this.env = Map.copyOf(env);
        this.progress = progress;
        this.sandboxes = sandboxes;
    }

    /** GPUs per attempt ({@code --gpus}; null: the runner's {@code sandbox.gpus}); returns this. */
    public AgentsRun gpus(Integer perAttempt) {
        if (perAttempt != null && perAttempt < 0) {
            throw new IsobenchException.BadInput("--gpus " + perAttempt + ": must be >= 0 (fix: e.g. --gpus 1)");
        }
        this.gpusOverride = perAttempt;
        return this;
    }

    /** Where attempts' GPUs come from (tests: a fake inventory, lock folder and nvidia-smi); returns this. */
    public AgentsRun gpuHost(AttemptGpus.Host host) {
        this.gpuHost = host;
        return this;
    }

    /** local → {@link LocalSandbox}; docker → {@link DockerSandbox}. */
    public static SandboxFactory defaultSandboxes(String executor) {
        return (config, runner, suite) -> executor.equals("docker")
                ? dockerSandbox(config, runner, suite)
                : new LocalSandbox(config.cliOrDefault(), config.baseUrl());
    }

    /** The default agent image base: the docker executor's default arm image. */
    static final String DEFAULT_IMAGE = "isobench/python:bookworm";

    private static AgentSandbox dockerSandbox(AgentConfig config, AgentRunner runner, Suite suite) {
        CliInstall cli = CliInstall.of(config, runner);
        Map<String, String> s = runner.sandbox();
        DockerSandbox.Limits d = DockerSandbox.Limits.DEFAULT;
        DockerSandbox.Limits limits = new DockerSandbox.Limits(
                s.containsKey("cpus") ? Double.parseDouble(s.get("cpus")) : d.cpus(),
                s.containsKey("memory_mb") ? Long.parseLong(s.get("memory_mb")) : d.memoryMb(),
                s.containsKey("pids") ? Integer.parseInt(s.get("pids")) : d.pids(), d.tmpMb());
        String agent = runner.adapter().equals("command") ? "command" : runner.adapter();
        DockerSandbox sandbox = new DockerSandbox(DockerSandbox.Options.of(agent, s.getOrDefault("image",
                DEFAULT_IMAGE), cli.dir(), cli.cli(), config.baseUrl()).withLimits(limits));
        if (runner.gpus() > 0) {
            try {
                sandbox.withGpus(GpuPassthrough.detect(GpuPassthrough.probe(sandbox.docker())));
            } catch (RuntimeException e) {
                sandbox.close();
                throw e;
            }
        }
        return sandbox;
    }

    public Summary run(Request req) throws IOException {
        Suite suite = req.suite();
        AgentSpec spec = suite.agents().stream()
                .filter(a -> Arm.normalizeAgent(a.name()).equals(Arm.normalizeAgent(req.agent())))
                .findFirst()
                .orElseThrow(() -> new IsobenchException.BadInput("agent '" + req.agent() + "' is not in "
                        + suite.file() + " (fix: one of " + suite.agents().stream().map(AgentSpec::name).toList()
                        + ", with a runner: block)"));
        if (spec.runner() == null) {
            throw new IsobenchException.BadInput("agents[" + spec.name() + "] has no runner: (fix: add runner:"
                    + " {adapter: claude-code|codex|command, …}; docs/agents.md)");
        }
        if (spec.name().contains("@")) {
            throw new IsobenchException.BadInput("agent '" + spec.name() + "' is an attempt written by agents run"
                    + " (fix: run the agent it came from)");
        }
        List<TaskSpec> tasks = tasks(suite, req.tasks());
        AgentRunner agentRunner = gpusOverride == null ? spec.runner()
                : spec.runner().withSandbox("gpus", Integer.toString(gpusOverride));
        int gpus = agentRunner.gpus();
        if (gpus > 0 && gpuHost == null) {
            gpuHost = AttemptGpus.Host.of(env);
        }
        if (gpus > 0) {
            gpuHost().check(gpus);
        }
        AgentAdapter adapter = AgentAdapter.of(spec.runner().adapter());
        AgentConfig config = config(spec);
        PromptTemplate template = template(suite);
        String sessionId = session(req, spec, tasks);
        progress.accept("agents run " + sessionId + ": " + spec.name() + " (" + adapter.id() + ", " + req.executor()
                + "), " + tasks.size() + " task(s) x " + req.attempts() + " attempt(s)");
        List<AttemptRow> rows = new ArrayList<>();
        Map<String, String> secrets = AttemptRunner.secretsFrom(adapter, config, env);
        try (AgentSandbox sandbox = sandboxes.create(config, agentRunner, suite)) {
            AttemptRunner runner = new AttemptRunner(adapter, config, sandbox, secrets,
                    AttemptLimits.of(spec.runner().limits()));
            for (int k = 1; k <= req.attempts(); k++) {
                for (TaskSpec t : tasks) {
                    AttemptRecords.AttemptContext c = new AttemptRecords.AttemptContext(sessionId, t.id(),
                            spec.name(), k, adapter.id(), sandbox.name(), spec.model());
                    Optional<RunRecord> done = store.run(c.runId())
                            .filter(r -> r.outcome().status() != RunRecord.RunStatus.NOT_RUN);
                    if (done.isPresent()) {
                        rows.add(row(done.get(), t.id(), k, true));
                        continue;
                    }
                    rows.add(attempt(req, t, c, runner, template, gpus));
                }
            }
        }
        store.putSession(session(sessionId).status("agents-complete").time(startedAt(sessionId), Instant.now())
                .build());
        progress.accept("agents run " + sessionId + ": done; the store holds the attempts as agents "
                + spec.name() + "@1.." + spec.name() + "@" + req.attempts());
        return new Summary(sessionId, rows);
    }

    /** The GPU source when attempts want GPUs (else an empty one: checks against 0 GPUs pass). */
    private AttemptGpus.Host gpuHost() {
        return gpuHost != null ? gpuHost : new AttemptGpus.Host(new GpuDiscovery.Inventory(List.of(), "none"),
                null, null, null, 0);
    }

    private AttemptRow attempt(Request req, TaskSpec t, AttemptRecords.AttemptContext c, AttemptRunner runner,
                               PromptTemplate template, int gpus) throws IOException {
        Suite suite = req.suite();
        Path dir = req.workdir().toAbsolutePath().resolve("agents").resolve(c.sessionId()).resolve(t.id())
                .resolve(c.armName());
        if (Files.exists(dir)) {
            runner.reap(AttemptDirs.under(dir));
            deleteTree(dir);
        }
        AttemptDirs dirs = AttemptDirs.under(dir);
        Path repo = suite.engine().localPath();
        String parentRef = t.parentCommit() != null ? t.parentCommit() : t.humanCommit() + "^";
        SealedRepo sealed = SealedRepo.create(repo, parentRef, dirs);
        String parent = SealedRepo.git(repo, Map.of(), "rev-parse", parentRef + "^{commit}").strip();
        String subject = SealedRepo.git(repo, Map.of(), "log", "-1", "--format=%s", t.humanCommit()).strip();
        String metric = metric(t);
        Better better = better(metric);
        String prompt = template.render(t.id(), t.perfCommand(), metric, better != Better.HIGHER,
                runner.launch(dirs, "").repoDir(), subject);
        Instant started = Instant.now();
        int cutOff = starts(dir);
        AttemptResult r;
        List<String> egress = List.of();
        AttemptRecords.Gpus gpuFacts = null;
        if (cutOff >= CUT_OFF_LIMIT) {
            progress.accept("  " + t.id() + " attempt " + c.attempt() + ": cut off " + cutOff + " times; not run"
                    + " again");
            r = AttemptResult.crashed("isobench ended while this attempt ran, " + cutOff + " times (see the folder "
                    + dir + "); recorded so that --resume does not run it again", 0);
        } else {
            AttemptGpus lease = gpus == 0 ? null : leaseGpus(gpus, c);
            try {
                String mode = lease == null ? null : runner.lendGpus(dirs, lease.ids());
                progress.accept("  " + t.id() + " attempt " + c.attempt() + ": running" + (lease == null ? ""
                        : " on GPU(s) " + lease.ids() + " (" + mode + ")"));
                Files.writeString(startsFile(dir), Integer.toString(cutOff + 1));
                if (lease != null) {
                    lease.sample(dir.resolve("gpu-telemetry.csv")); // on the host, outside the container's mounts
                }
                r = runGuarded(runner, dirs, sealed, prompt);
                try {
                    egress = runner.finish(dirs);
                } catch (RuntimeException e) {
                    progress.accept("  " + t.id() + " attempt " + c.attempt() + ": ending its sandbox failed: "
                            + e.getMessage());
                }
                gpuFacts = lease == null ? null : lease.facts(mode);
            } finally {
                if (lease != null) {
                    runner.lendGpus(dirs, List.of());
                    lease.close();
                }
            }
        }
        r = priced(r, runner);
        List<String> argv = adapterArgv(runner, dirs, prompt);
        RunRecord run = AttemptRecords.store(store, c, new AttemptRecords.Seal(parent, sealed.commit(),
                template.sha256(), PromptTemplate.sha256(prompt), template.hints().label()), r,
                new AttemptRecords.Facts(argv, runner.budget(), started, egress), gpuFacts);
        Files.deleteIfExists(startsFile(dir));
        AttemptRow row = row(run, t.id(), c.attempt(), false);
        progress.accept(String.format(Locale.ROOT, "  %s attempt %d: %s (%s) %d turns, %d+%d tokens%s,"
                        + " %.1f s, %d patch lines", t.id(), c.attempt(), r.status(), r.detail(), r.usage().turns(),
                r.usage().tokensIn(), r.usage().tokensOut(),
                r.usage().costUsd() == null ? "" : String.format(Locale.ROOT, ", $%.4f", r.usage().costUsd()),
                r.wallS(), row.patchLines()));
        return row;
    }

    /** The attempt's GPUs through the host-wide lease (bounded wait; one line when they stay held elsewhere). */
    private AttemptGpus leaseGpus(int gpus, AttemptRecords.AttemptContext c) throws IOException {
        try {
            return gpuHost.lease(gpus, "agents run " + c.runId());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted waiting for GPUs", e);
        }
    }

    /** Starts of an attempt that ended without a record before it is recorded {@link AttemptStatus#ATTEMPT_CRASHED}. */
    static final int CUT_OFF_LIMIT = 2;

    /** The attempt; an exception (or an error a failed allocation throws) becomes its {@code ATTEMPT_CRASHED} record. */
    private static AttemptResult runGuarded(AttemptRunner runner, AttemptDirs dirs, SealedRepo sealed, String prompt)
            throws IOException {
        long t0 = System.nanoTime();
        try {
            return runner.run(dirs, sealed, prompt);
        } catch (Exception | OutOfMemoryError | StackOverflowError e) {
            if (Thread.currentThread().isInterrupted()) { // isobench is stopping: the attempt is cut off, not failed
                throw e instanceof IOException io ? io : new IOException("interrupted", e);
            }
            return AttemptResult.crashed(runner.redact("isobench failed while running the attempt: "
                    + e.getClass().getSimpleName() + ": " + e.getMessage()), (System.nanoTime() - t0) / 1e9);
        }
    }

    /** The file counting the starts of the attempt in {@code dir} (beside it: its folder is cleared on a rerun). */
    private static Path startsFile(Path dir) {
        return dir.resolveSibling(dir.getFileName() + ".starts");
    }

    private static int starts(Path dir) {
        try {
            return Integer.parseInt(Files.readString(startsFile(dir)).strip());
        } catch (IOException | NumberFormatException e) {
            return 0;
        }
    }

    private static void deleteTree(Path dir) throws IOException {
        try (var walk = Files.walk(dir)) {
            for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }

    private static List<String> adapterArgv(AttemptRunner runner, AttemptDirs dirs, String prompt) {
        return runner.invocation(dirs, prompt).argv();
    }

    /** Prices the tokens with the runner's pricing when the CLI reported no cost. */
    private static AttemptResult priced(AttemptResult r, AttemptRunner runner) {
        Double usd = runner.price(r.usage());
        if (r.usage().costUsd() != null || usd == null) {
            return r;
        }
        return r.withUsage(r.usage().withCostUsd(usd));
    }

    private static AttemptRow row(RunRecord run, String task, int k, boolean resumed) {
        var d = run.details().section(AttemptRecords.SECTION);
        Usage u = new Usage(d.path("turns").asInt(), d.path("tokens_in").asLong(), d.path("tokens_out").asLong(),
                d.path("cost_usd").isNumber() ? d.path("cost_usd").asDouble() : null);
        return new AttemptRow(task, k, AttemptStatus.valueOf(d.path("status").asText("AGENT_CRASH")),
                d.path("detail").asText(""), u, d.path("wall_s").asDouble(), d.path("patch_lines").asInt(), resumed);
    }

    private static List<TaskSpec> tasks(Suite suite, List<String> ids) {
        if (ids.isEmpty()) {
            return suite.runnableTasks();
        }
        List<TaskSpec> out = new ArrayList<>();
        for (String id : ids) {
            out.add(suite.task(id).orElseThrow(() -> new IsobenchException.BadInput("--tasks: no task '" + id
                    + "' in " + suite.file() + " (fix: one of " + suite.tasks().stream().map(TaskSpec::id).toList()
                    + ")")));
        }
        return out;
    }

    static AgentConfig config(AgentSpec spec) {
        AgentRunner r = spec.runner();
        Map<String, Double> b = r.budget();
        Budget budget = new Budget(b.get("wall_s"), b.containsKey("turns") ? (int) Math.round(b.get("turns")) : null,
                b.containsKey("tokens") ? Math.round(b.get("tokens")) : null, b.get("usd"));
        return new AgentConfig(r.adapter(), r.cli(), r.argv(), spec.model(), r.baseUrl(), r.secrets(), r.env(),
                budget, r.pricing());
    }

    private static PromptTemplate template(Suite suite) throws IOException {
        var p = suite.agentPrompt();
        String text = p.template() == null ? PromptTemplate.DEFAULT : Files.readString(p.template());
        return new PromptTemplate(text, PromptTemplate.Hints.parse(p.hints()));
    }

    private static String metric(TaskSpec t) {
        if (t.generic() != null) {
            return t.generic().offline() != null ? t.generic().offline().primary() : t.generic().serving().primary();
        }
        return Mode.fromLabel(t.modeLabel()).map(MetricDictionary::primaryMetric).orElse(null);
    }

    private static Better better(String metric) {
        if (metric == null) {
            return Better.LOWER;
        }
        MetricDictionary.Definition d = MetricDictionary.lookup(metric);
        return d == null ? Better.LOWER : d.better();
    }

    private String session(Request req, AgentSpec spec, List<TaskSpec> tasks) {
        if (req.resumeSession() != null) {
            String id = req.resumeSession().equals("latest") ? latest(spec.name()) : req.resumeSession();
            SessionRecord s = store.session(id).orElseThrow(() -> new IsobenchException.BadInput("--resume: no"
                    + " session '" + id + "' in " + store.describe() + " (fix: the id agents run printed)"));
            if (!s.isAgentsRun()) {
                throw new IsobenchException.BadInput("--resume: " + id + " is a measurement session (fix: resume it"
                        + " with isobench run --resume)");
            }
            progress.accept("agents run " + id + ": resuming");
            return id;
        }
        String id = SessionRecord.AGENTS_PREFIX + ID_TIME.format(Instant.now()) + "-"
                + HexFormat.of().formatHex(SecureRandom.getSeed(3));
        Map<String, Object> about = new LinkedHashMap<>();
        about.put("suite", String.valueOf(req.suite().file()));
        about.put("agent", spec.name());
        about.put("adapter", spec.runner().adapter());
        about.put("attempts", req.attempts());
        about.put("tasks", tasks.stream().map(TaskSpec::id).toList());
        about.put("executor", req.executor());
        try {
            store.putSession(session(id).suiteJson(JSON.writeValueAsString(about)).status("agents-running")
                    .time(Instant.now(), null).build());
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
        return id;
    }

    private String latest(String agent) {
        List<SessionRecord> all = store.sessions();
        for (int i = all.size() - 1; i >= 0; i--) {
            SessionRecord s = all.get(i);
            if (s.isAgentsRun() && !"agents-complete".equals(s.status()) && s.suiteJson() != null
                    && s.suiteJson().contains("\"agent\":\"" + agent + "\"")) {
                return s.sessionId();
            }
        }
        throw new IsobenchException.BadInput("--resume: no unfinished agents run of '" + agent + "' in "
                + store.describe() + " (fix: start one without --resume)");
    }

    private SessionRecord.Builder session(String id) {
        SessionRecord.Builder b = SessionRecord.builder(id);
        store.session(id).ifPresent(s -> b.suiteJson(s.suiteJson()).time(s.startedAt(), s.endedAt()));
        return b;
    }

    private Instant startedAt(String id) {
        return store.session(id).map(SessionRecord::startedAt).orElse(Instant.now());
    }
}
