package io.isobench.history;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.isobench.Arm;
import io.isobench.IsobenchException;
import io.isobench.env.Hardware;
import io.isobench.exec.Executor;
import io.isobench.exec.ExecutorKind;
import io.isobench.exec.Executors;
import io.isobench.exec.SessionSetup;
import io.isobench.parse.Better;
import io.isobench.parse.MetricDictionary;
import io.isobench.plan.Job;
import io.isobench.plan.Plan;
import io.isobench.plan.Planner;
import io.isobench.proc.ProcessGroup;
import io.isobench.session.SessionRequest;
import io.isobench.store.SessionRecord;
import io.isobench.store.Store;
import io.isobench.store.Stores;
import io.isobench.store.TaskRecord;
import io.isobench.store.TrackChange;
import io.isobench.store.TrackCommit;
import io.isobench.store.TrackRecord;
import io.isobench.task.Suite;
import io.isobench.task.TaskSpec;

import java.io.PrintWriter;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * {@code isobench track}: for each task of a suite, the commits of a range measured as a series (resumable), its
 * change points found ({@link TrackDetection}), then every candidate confirmed or rejected by a real paired session
 * ({@link ChangeConfirmer}, which also bisects). Everything is stored: the track, its commits and their states, the
 * series' runs (ordinary runs of the track's session), the changes.
 *
 * <p>Guarantees: the track id is a function of the suite name, the task, the resolved REV1 and REV2, N and K, so the
 * same command finds its track and continues it (nothing stored is measured again); the store is closed while the
 * confirming sessions run (they open it themselves).
 */
public final class Track {

    private static final ObjectMapper JSON = new ObjectMapper();

    /**
     * What a track is asked to do.
     *
     * @param template the session request of the track: its suite, work folder, store, executor and feedback (the
     *                 confirming sessions take it over); its session id names the track's session (null: the track id)
     * @param range    {@code REV1..REV2}
     * @param settings which task, every N-th commit, K runs, bisect
     * @param err      where progress goes
     * @param tty      a terminal: one progress line rewritten
     */
    public record Request(SessionRequest template, String range, Settings settings, PrintWriter err, boolean tty) {
    }

    /**
     * @param taskId one task of the suite (null: every task)
     * @param every  N: the measured positions are 0, N, 2N, … and the last
     * @param runs   K: the runs of each measured commit (passes of the order)
     * @param bisect bisect a confirmed change between two measured commits that are not adjacent
     */
    public record Settings(String taskId, int every, int runs, boolean bisect) {
        public Settings {
            if (every < 1) {
                throw new IsobenchException.BadInput("--every " + every + ": must be >= 1");
            }
            if (runs < 2) {
                throw new IsobenchException.BadInput("--runs " + runs + ": must be >= 2 (a commit's spread needs two)");
            }
        }
    }

    /**
     * One task's track as it ended.
     *
     * @param track   the stored track
     * @param commits its range with the commits' states
     * @param changes its change rows (candidates, then confirmed or rejected)
     */
    public record Tracked(TrackRecord track, List<TrackCommit> commits, List<TrackChange> changes) {
    }

    /**
     * @param tracks      the tasks' tracks, in suite order
     * @param interrupted the measurement was interrupted (the tracks after it not started; run the command again)
     */
    public record Result(List<Tracked> tracks, boolean interrupted) {
    }

    private Track() {
    }

    /** Runs (or continues) the track of every task asked for. */
    public static Result run(Request request) {
        Suite suite = request.template().suite();
        if (suite.engine().artifact() != null) {
            throw new IsobenchException.BadInput("engine.artifact: track builds each commit of the range from source"
                    + " (fix: a suite whose engine.repo is a git repository or bundle, without artifact)");
        }
        List<TaskSpec> tasks = suite.tasks();
        String only = request.settings().taskId();
        if (only != null) {
            tasks = tasks.stream().filter(t -> t.id().equals(only)).toList();
            if (tasks.isEmpty()) {
                throw new IsobenchException.BadInput("--task " + only + ": no such task in the suite (tasks: "
                        + String.join(", ", suite.tasks().stream().map(TaskSpec::id).toList()) + ")");
            }
        }
        List<Tracked> out = new ArrayList<>();
        for (TaskSpec task : tasks) {
            Optional<Tracked> t = runTask(request, task);
            if (t.isEmpty()) {
                return new Result(out, true);
            }
            out.add(t.get());
        }
        return new Result(out, false);
    }

    /** The deterministic track id: {@code track-} and 12 hex digits of SHA-256 over its defining values. */
    static String trackId(String suiteName, String taskId, String base, String tip, int every, int runs) {
        try {
            MessageDigest md = MessageDigest.getInstance("SHA-256");
            String key = String.join("\u0000", suiteName, taskId, base, tip, Integer.toString(every),
                    Integer.toString(runs));
            return "track-" + HexFormat.of().formatHex(md.digest(key.getBytes(StandardCharsets.UTF_8)))
                    .substring(0, 12);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /** One task's track; empty when the measurement was interrupted. */
    private static Optional<Tracked> runTask(Request request, TaskSpec task) {
        SessionRequest template = request.template();
        Consumer<String> say = template.feedback().listener()::note;
        String[] revs = TrackRange.split(request.range());
        // the task on the range's ends: the planner's measured job (command, readout, limits) and the setup steps
        Suite one = template.suite().withTasks(List.of(task.withCommits(revs[1], revs[0])));
        Planner.Options po = template.planOptions();
        Plan plan = Planner.plan(one, new Planner.Options(1, po.seed(), po.workdir(), false,
                po.serverMetricsIntervalMs()));
        if (!plan.skipped().isEmpty()) {
            throw new IsobenchException.BadInput("task " + task.id() + " cannot be tracked: "
                    + plan.skipped().get(0).category() + " — " + plan.skipped().get(0).reason());
        }
        Job measured = plan.jobs().stream().filter(j -> j.kind() == Job.Kind.MEASURE).findFirst().orElseThrow();
        SessionSetup.run(plan, one.run().timeouts().buildS(), say);
        if (plan.repo() == null) {
            throw new IsobenchException.BadInput("engine.repo " + one.engine().repo() + ": track reads the range's"
                    + " commits from a local repository (fix: a local clone or a git bundle as engine.repo)");
        }
        TrackRange range = TrackRange.resolve(plan.repo(), request.range());
        Settings s = request.settings();
        String trackId = trackId(plan.suite(), task.id(), range.base(), range.tip(), s.every(), s.runs());
        String executorName = template.executor().name() != null ? template.executor().name()
                : one.run().executor();
        Executor executor = Executors.create(executorName, one);
        String metric = measured.readout() != null ? measured.readout().primary()
                : MetricDictionary.primaryMetric(measured.mode());
        Better better = measured.readout() != null && measured.readout().primaryDefinition() != null
                ? measured.readout().primaryDefinition().better() : MetricDictionary.require(metric).better();
        List<Integer> selected = TrackRange.selected(range.commits().size(), s.every());
        List<TrackOrder.Slot> slots = TrackOrder.of(selected, s.runs());

        TrackRecord track;
        TrackSeries.Measured m;
        try (Store store = Stores.open(template.db())) {
            Optional<TrackRecord> stored = store.track(trackId);
            String sessionId = stored.map(TrackRecord::sessionId).orElse(
                    template.sessionId() != null ? template.sessionId() : trackId);
            Instant started = stored.map(TrackRecord::startedAt).orElse(Instant.now());
            track = TrackRecord.builder(trackId, task.id()).suite(plan.suite(), one.engine().repo())
                    .range(range.base() + ".." + range.tip(), range.base(), s.every(), s.runs())
                    .metric(metric, better.label()).session(sessionId, started)
                    .settingsJson(json(settings(range, s, selected, slots))).build();
            store.putTrack(track);
            store.putTrackCommits(rows(trackId, range, selected, store.trackCommits(trackId)));
            store.putTask(TaskRecord.builder(task.id()).repo(one.engine().repo()).perfCommand(task.perfCommand())
                    .model(task.model()).gpus(null, task.gpus()).build());
            Hardware hw = executor.kind().can(ExecutorKind.Capability.RUNS_ON_THIS_HOST) ? Hardware.detect() : null;
            int parallel = template.executor().parallelJobs() > 0 ? template.executor().parallelJobs()
                    : Math.max(1, executor.gpuCapacity());
            String machine = machineJson(hw, executorName, parallel);
            store.putSession(session(sessionId, started, null, hw, machine, plan, track));
            say.accept("track " + task.id() + ": " + trackId + ", session " + sessionId + ", " + range.commits().size()
                    + " commit(s) " + TrackSeries.short12(range.base()) + ".." + TrackSeries.short12(range.tip())
                    + ", " + selected.size() + " measured, " + slots.size() + " run(s)");
            Path envRoot = po.workdir().resolve("envs").resolve(task.id()); // WORKDIR/envs/TASK/ARM: the sandbox sees WORKDIR (env.ArmWalls)
            TrackSeries series = new TrackSeries(new TrackSeries.Setup(one, task.id(), measured,
                    plan.arm(task.id(), Arm.HUMAN).orElseThrow(), plan.repo(), envRoot, executor), store, say);
            TrackProgress progress = new TrackProgress(request.err(), request.tty(), task.id(), slots.size(),
                    range.commits().size(), System::nanoTime);
            // Ctrl-C / SIGTERM: tear down the run in flight, say how to continue (the stored runs are kept)
            executor.beginSession(sessionId); // cluster executors name their jobs after it (adopted on resume)
            String again = template.feedback().resumeCommand().apply(sessionId);
            Thread hook = new Thread(() -> {
                ProcessGroup.reapLaunched(Duration.ofSeconds(2));
                template.feedback().listener().interrupted(again);
            }, "isobench-track-teardown");
            Runtime.getRuntime().addShutdownHook(hook);
            try {
                m = series.measure(sessionId, store.trackCommits(trackId), slots, progress, parallel);
            } finally {
                try {
                    Runtime.getRuntime().removeShutdownHook(hook);
                } catch (IllegalStateException e) {
                    // shutting down: the hook runs
                }
            }
            if (m.interrupted()) {
                return Optional.empty();
            }
            store.putSession(session(sessionId, started, Instant.now(), hw, machine, plan, track));
            // candidates: a change already confirmed or rejected keeps its row
            Map<String, TrackChange> known = new LinkedHashMap<>();
            store.trackChanges(task.id()).stream().filter(c -> c.trackId().equals(trackId))
                    .forEach(c -> known.put(c.commitId() + "\u0000" + c.metric(), c));
            for (TrackChange c : TrackDetection.candidates(track, m.commits(), m.values(), better)) {
                TrackChange had = known.get(c.commitId() + "\u0000" + c.metric());
                if (had == null || "candidate".equals(had.status())) {
                    store.putTrackChange(c);
                }
            }
            boolean any = m.values().values().stream().anyMatch(v -> !v.isEmpty());
            track = track.withStatus(any ? "measured" : "failed");
            store.putTrack(track);
            if (!any) {
                return Optional.of(new Tracked(track, m.commits(), List.of()));
            }
        }
        // the confirming sessions open the store themselves (DuckDB: one writer per file)
        SessionRequest confirming = new SessionRequest(one.withTasks(List.of(task)), po, template.db(), null, false,
                template.executor(), template.feedback());
        List<TrackChange> changes = new ChangeConfirmer(confirming, task.id(), s.bisect()).confirm(track, m.commits());
        try (Store store = Stores.open(template.db())) {
            track = track.withStatus("done");
            store.putTrack(track);
            return Optional.of(new Tracked(track, store.trackCommits(trackId), changes));
        }
    }

    /** The range's rows: selected or not, states an earlier attempt stored kept. */
    static List<TrackCommit> rows(String trackId, TrackRange range, List<Integer> selected, List<TrackCommit> stored) {
        Map<Integer, TrackCommit> had = new LinkedHashMap<>();
        stored.forEach(c -> had.put(c.position(), c));
        List<TrackCommit> out = new ArrayList<>();
        for (TrackRange.Commit c : range.commits()) {
            boolean sel = selected.contains(c.position());
            TrackCommit prev = had.get(c.position());
            TrackCommit fresh = TrackCommit.of(trackId, c.position(), c.commitId(), c.parentCommit(), c.subject(), sel);
            out.add(prev != null && prev.commitId().equals(c.commitId()) && prev.selected() == sel
                    ? fresh.withState(prev.state(), prev.detail()) : fresh);
        }
        return out;
    }

    private static Map<String, Object> settings(TrackRange range, Settings s, List<Integer> selected,
                                                List<TrackOrder.Slot> slots) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("format", "isobench-track/1");
        m.put("base", range.base());
        m.put("tip", range.tip());
        m.put("commits", range.commits().size());
        m.put("every", s.every());
        m.put("runs_per_commit", s.runs());
        m.put("measured_positions", selected);
        m.put("runs", slots.size());
        m.put("block", TrackOrder.BLOCK);
        m.put("order_rule", "pass p = 1..K: the measured commits but the anchor, ascending (p odd) or descending"
                + " (p even), in blocks of " + TrackOrder.BLOCK + ", each block bracketed by an anchor (REV1) run;"
                + " values by pass, not normalised by the anchor (docs/statistics.md §21f)");
        m.put("bisect", s.bisect());
        return m;
    }

    /** The machine facts stored with the track's session (as a session's: host, CPUs, executor, hardware). */
    private static String machineJson(Hardware hw, String executor, int parallel) {
        Map<String, Object> machine = new LinkedHashMap<>();
        machine.put("host", host());
        machine.put("cpus", Runtime.getRuntime().availableProcessors());
        machine.put("os", System.getProperty("os.name") + " " + System.getProperty("os.version"));
        machine.put("java", Runtime.version().toString());
        machine.put("executor", executor);
        machine.put("parallel", parallel);
        machine.put("hardware_id", hw == null ? null : hw.id());
        machine.put("hardware", hw == null ? null : hw.toMap());
        return json(machine);
    }

    private static SessionRecord session(String id, Instant started, Instant ended, Hardware hw, String machine,
                                         Plan plan, TrackRecord track) {
        Map<String, Object> suiteJson = new LinkedHashMap<>();
        suiteJson.put("track", track.trackId());
        suiteJson.put("plan", plan.toMap());
        return SessionRecord.builder(id).time(started, ended).machine(host(), hw == null ? Runtime.getRuntime()
                        .availableProcessors() + " cpu(s)" : hw.cpuModel() + ", " + hw.cores() + " cores",
                        hw == null ? "not fingerprinted" : hw.gpuText(), machine)
                .suiteJson(json(suiteJson)).statsConfigJson(track.settingsJson()).seed(plan.seed())
                .status(ended == null ? "running" : "complete").build();
    }

    private static String host() {
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (Exception e) {
            return "unknown";
        }
    }

    private static String json(Object o) {
        try {
            return JSON.writeValueAsString(o);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }
}
