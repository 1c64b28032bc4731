package io.isobench.history;

import io.isobench.Arm;
import io.isobench.env.ArmSetup;
import io.isobench.env.Environment;
import io.isobench.exec.Executor;
import io.isobench.guard.Secrets;
import io.isobench.plan.ArmSpec;
import io.isobench.plan.Job;
import io.isobench.session.SeriesRuns;
import io.isobench.store.RunRecord;
import io.isobench.store.Store;
import io.isobench.store.TrackCommit;
import io.isobench.task.Suite;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Consumer;

/**
 * Measures one track's series (docs/statistics.md §21, "The series"): builds every measured commit once, in a git
 * worktree of its own by the executor's own preparation (the one {@code run} uses), then runs the task's measured job
 * at each slot of the {@link TrackOrder} through {@link SeriesRuns}, so every run is an ordinary stored run of the
 * track's session (arm {@code track}, the commit's full id, round = pass − 1).
 *
 * <p>Resume: a slot whose run is stored with status ok is not run again (its value is read back); a placeholder or a
 * failed run is run again under the same id. A commit that does not build is {@code build_failed} (its build's last
 * lines as detail), left out of the series and not built again on resume; the track goes on. The anchor must build.
 * Stops before the next slot when the thread is interrupted (the stored runs stay; the same command continues).
 */
final class TrackSeries {

    /** The arm of every series run. */
    static final Arm TRACK_ARM = Arm.other("track");
    /** The seed stored as each run's place (the order is not random). */
    private static final long SEED = 0;
    /** The build log lines a {@code build_failed} commit keeps as its detail. */
    private static final int DETAIL_LINES = 12;

    /**
     * What the measurement needs.
     *
     * @param suite     the suite (the track task's build and recipes)
     * @param taskId    the track task
     * @param template  the task's measured job as the planner made it (command, readout, limits, env)
     * @param arm       the task's human arm as the planner made it (its recipes and build: every commit's)
     * @param repo      the engine repository (local)
     * @param envRoot   where the commits' worktrees go
     * @param executor  the executor the jobs run on
     */
    record Setup(Suite suite, String taskId, Job template, ArmSpec arm, Path repo, Path envRoot, Executor executor) {
    }

    /**
     * The series as measured.
     *
     * @param commits     the range's rows with their final states
     * @param values      per position, the primary values of its ok runs in run order (measured positions only)
     * @param interrupted the thread was interrupted before every slot ran
     */
    record Measured(List<TrackCommit> commits, Map<Integer, List<Double>> values, boolean interrupted) {
    }

    private final Setup setup;
    private final Store store;
    private final Consumer<String> say;

    TrackSeries(Setup setup, Store store, Consumer<String> say) {
        this.setup = setup;
        this.store = store;
        this.say = say;
    }

    /** Builds what is left to build and runs what is left to run; commits' states are stored as they change. */
    Measured measure(String sessionId, List<TrackCommit> rows, List<TrackOrder.Slot> slots, TrackProgress progress) {
        Map<Integer, TrackCommit> byPos = new TreeMap<>();
        rows.forEach(c -> byPos.put(c.position(), c));
        Map<Integer, List<Double>> values = new TreeMap<>();
        Map<Integer, Integer> left = new HashMap<>();
        Map<Integer, Integer> failed = new HashMap<>();
        List<TrackOrder.Slot> todo = new ArrayList<>();
        for (TrackOrder.Slot s : slots) {
            if ("build_failed".equals(byPos.get(s.position()).state())) {
                continue;
            }
            Job job = job(s);
            RunRecord done = store.run(SeriesRuns.runId(sessionId, job)).orElse(null);
            if (done != null && done.status() == RunRecord.RunStatus.SUCCESS && done.primaryValue() != null) {
                values.computeIfAbsent(s.position(), k -> new ArrayList<>()).add(done.primaryValue());
                progress.already();
            } else {
                todo.add(s);
                left.merge(s.position(), 1, Integer::sum);
            }
        }
        // every commit with a run left is built once (the anchor first: without it there is no series)
        Map<Integer, Environment> envs = new LinkedHashMap<>();
        Map<Integer, String> buildLogs = new HashMap<>();
        for (int pos : left.keySet().stream().sorted().toList()) {
            TrackCommit c = byPos.get(pos);
            Environment env = prepare(c);
            if (env.build() != null) {
                buildLogs.put(pos, store.putArtifact("build_log",
                        Secrets.redact(env.build().log()).getBytes(StandardCharsets.UTF_8)));
            }
            if (!env.ready()) {
                String detail = lastLines(env.log());
                say.accept(String.format("track %s: commit %d %s does not build: %s", setup.taskId(), pos,
                        short12(c.commitId()), env.failure().category() + " — " + env.failure().detail()));
                TrackCommit bad = c.withState("build_failed", env.failure().category() + ": " + detail);
                byPos.put(pos, bad);
                store.putTrackCommits(List.of(bad));
                continue;
            }
            envs.put(pos, env);
        }
        SeriesRuns runs = new SeriesRuns(store, setup.executor(), say);
        Thread me = Thread.currentThread();
        boolean interrupted = false;
        for (TrackOrder.Slot s : todo) {
            if (me.isInterrupted()) {
                interrupted = true;
                break;
            }
            Environment env = envs.get(s.position());
            if (env == null) {
                continue; // did not build
            }
            TrackCommit c = byPos.get(s.position());
            RunRecord rec = runs.run(sessionId, job(s).in(env.path()), c.commitId(), env,
                    buildLogs.get(s.position()), SEED, me::isInterrupted);
            if (rec.status() == RunRecord.RunStatus.SUCCESS && rec.primaryValue() != null) {
                values.computeIfAbsent(s.position(), k -> new ArrayList<>()).add(rec.primaryValue());
            } else {
                failed.merge(s.position(), 1, Integer::sum);
            }
            int remaining = left.merge(s.position(), -1, Integer::sum);
            if (remaining == 0) {
                List<Double> v = values.getOrDefault(s.position(), List.of());
                TrackCommit updated = v.isEmpty() ? c.withState("failed", "every run failed: "
                        + (rec.failure() == null ? "no value" : rec.failure().category() + " — "
                        + rec.failure().detail())) : c.withState("measured", v.size() + " ok run(s)"
                        + (failed.containsKey(s.position()) ? ", " + failed.get(s.position()) + " failed" : ""));
                byPos.put(s.position(), updated);
                store.putTrackCommits(List.of(updated));
            }
            progress.ran(c.position(), c.commitId());
        }
        // commits every run of which was stored by an earlier attempt
        for (TrackCommit c : new ArrayList<>(byPos.values())) {
            if (c.selected() && "pending".equals(c.state()) && !left.containsKey(c.position())
                    && values.containsKey(c.position())) {
                TrackCommit updated = c.withState("measured", values.get(c.position()).size() + " ok run(s)");
                byPos.put(c.position(), updated);
                store.putTrackCommits(List.of(updated));
            }
        }
        return new Measured(List.copyOf(byPos.values()), values, interrupted);
    }

    /** The measured job of a slot: the planner's job of the task, as arm {@code track} at the slot's place. */
    Job job(TrackOrder.Slot s) {
        Job t = setup.template();
        return new Job(new Job.Place(0, s.jobId(setup.taskId()), setup.taskId(), s.pass() - 1), TRACK_ARM,
                t.mode(), t.spec(), t.where(), t.limits());
    }

    /** The commit's worktree, made and built like the task's human arm (its recipes and build step). */
    private Environment prepare(TrackCommit c) {
        Suite suite = setup.suite();
        ArmSpec arm = setup.arm().on(TRACK_ARM, c.commitId(), setup.envRoot().resolve("c" + c.position()));
        return setup.executor().prepare(arm, setup.repo(), new ArmSetup(suite.recipesFor(setup.taskId(),
                setup.arm().label()), arm.build(), suite.run().timeouts().buildS()));
    }

    private static String lastLines(String log) {
        if (log == null || log.isBlank()) {
            return "";
        }
        String[] lines = Secrets.redact(log).strip().split("\n");
        return String.join("\n", List.of(lines).subList(Math.max(0, lines.length - DETAIL_LINES), lines.length));
    }

    static String short12(String commit) {
        return commit.length() <= 12 ? commit : commit.substring(0, 12);
    }
}
