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
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

/**
 * Measures one track's series (docs/statistics.md §21, "The series"): builds every measured commit once, in a git
 * worktree of its own by the executor's own preparation (the one {@code run} uses), then runs the task's measured job
 * at each slot of the {@link TrackOrder} through {@link SeriesRuns}, so every run is an ordinary stored run of the
 * track's session (arm {@code track}, the commit's full id, round = pass − 1).
 *
 * <p>Resume: a slot whose run is stored with status ok is not run again (its value is read back); a placeholder or a
 * failed run is run again under the same id. A commit that does not build is {@code build_failed} (its build's last
 * lines as detail) and left out of the series; the track goes on, and the next attempt builds it again (what failed
 * may have been the machine: a missing compiler, a closed folder).
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
     * @param envRoot   the task's folder of worktrees, {@code WORKDIR/envs/TASK}: commit P of track T goes to {@code T-cP}
     *                  (the {@code WORKDIR/envs/TASK/ARM} form, so that a confined command sees the work folder)
     * @param executor  the executor the jobs run on
     */
    record Setup(Suite suite, String taskId, Job template, ArmSpec arm, Path repo, Path envRoot, Executor executor) {
    }

    /**
     * The series as measured.
     *
     * @param commits     the range's rows with their final states
     * @param values      per position, its ok runs (pass and primary value; measured positions only)
     * @param interrupted the thread was interrupted before every slot ran
     */
    record Measured(List<TrackCommit> commits, Map<Integer, List<Run>> values, boolean interrupted) {
    }

    /** An ok run of the series: its pass (1..K) and its primary value. */
    record Run(int pass, double value) {
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
    Measured measure(String sessionId, List<TrackCommit> rows, List<TrackOrder.Slot> slots, TrackProgress progress,
                     int parallel) {
        Map<Integer, TrackCommit> byPos = new ConcurrentSkipListMap<>(); // by position, read while runs end
        rows.forEach(c -> byPos.put(c.position(), c));
        Map<Integer, List<Run>> values = new TreeMap<>();
        Map<Integer, Integer> left = new HashMap<>();
        List<TrackOrder.Slot> todo = new ArrayList<>();
        for (TrackOrder.Slot s : slots) {
            Job job = job(s);
            RunRecord done = store.run(SeriesRuns.runId(sessionId, job)).orElse(null);
            if (done != null && done.status() == RunRecord.RunStatus.SUCCESS && done.primaryValue() != null) {
                values.computeIfAbsent(s.position(), k -> new ArrayList<>()).add(new Run(s.pass(),
                        done.primaryValue()));
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
                say.accept(String.format(Locale.ROOT, "track %s: commit %d/%d %s does not build: %s", setup.taskId(),
                        pos + 1, byPos.size(), short12(c.commitId()), env.failure().category() + " — "
                                + env.failure().detail()));
                TrackCommit bad = c.withState("build_failed", env.failure().category() + ": " + detail);
                byPos.put(pos, bad);
                store.putTrackCommits(List.of(bad));
                continue;
            }
            envs.put(pos, env);
            say.accept(String.format(Locale.ROOT, "track %s: commit %d/%d %s ready%s", setup.taskId(), pos + 1,
                    byPos.size(), short12(c.commitId()), env.build() == null ? ""
                            : String.format(Locale.ROOT, ", built in %.1f s", env.build().durationMs() / 1000)));
        }
        Slots run = new Slots(sessionId, new SeriesRuns(store, setup.executor(), say), byPos, envs, buildLogs,
                new Tallies(values, left, new HashMap<>()), progress);
        boolean interrupted = parallel <= 1 ? run.oneAtATime(todo) : run.atOnce(todo, parallel);
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

    /** Per position: its ok runs' values, its slots left, its failed runs. */
    private record Tallies(Map<Integer, List<Run>> values, Map<Integer, Integer> left,
                           Map<Integer, Integer> failed) {
    }

    /** Runs the slots left, one at a time or several at once, and keeps each commit's state. */
    private final class Slots {
        private final String sessionId;
        private final SeriesRuns runs;
        private final Map<Integer, TrackCommit> byPos;
        private final Map<Integer, Environment> envs;
        private final Map<Integer, String> buildLogs;
        private final Tallies tallies;
        private final TrackProgress progress;
        private final AtomicBoolean stop = new AtomicBoolean();

        Slots(String sessionId, SeriesRuns runs, Map<Integer, TrackCommit> byPos, Map<Integer, Environment> envs,
              Map<Integer, String> buildLogs, Tallies tallies, TrackProgress progress) {
            this.sessionId = sessionId;
            this.runs = runs;
            this.byPos = byPos;
            this.envs = envs;
            this.buildLogs = buildLogs;
            this.tallies = tallies;
            this.progress = progress;
        }

        /** In order, one at a time; true when the thread was interrupted before the last. */
        boolean oneAtATime(List<TrackOrder.Slot> todo) {
            Thread me = Thread.currentThread();
            for (TrackOrder.Slot s : todo) {
                if (me.isInterrupted()) {
                    return true;
                }
                run(s, me::isInterrupted);
            }
            return false;
        }

        /** In order, up to {@code parallel} at once ({@code --parallel N}); an interrupt stops what has not started. */
        boolean atOnce(List<TrackOrder.Slot> todo, int parallel) {
            ExecutorService pool = Executors.newFixedThreadPool(parallel);
            try {
                List<Future<?>> futures = new ArrayList<>();
                for (TrackOrder.Slot s : todo) {
                    futures.add(pool.submit(() -> {
                        if (!stop.get()) {
                            run(s, stop::get);
                        }
                    }));
                }
                for (Future<?> f : futures) {
                    try {
                        f.get();
                    } catch (InterruptedException e) {
                        stop.set(true);
                        Thread.currentThread().interrupt();
                    } catch (ExecutionException e) {
                        stop.set(true);
                        throw e.getCause() instanceof RuntimeException r ? r : new IllegalStateException(e.getCause());
                    }
                }
            } finally {
                pool.shutdown();
            }
            return stop.get() || Thread.currentThread().isInterrupted();
        }

        private void run(TrackOrder.Slot s, BooleanSupplier cancelled) {
            Environment env = envs.get(s.position());
            if (env == null) {
                return; // did not build
            }
            TrackCommit c = byPos.get(s.position());
            RunRecord rec = runs.run(sessionId, job(s).in(env.path()), c.commitId(), env,
                    buildLogs.get(s.position()), SEED, cancelled);
            synchronized (this) {
                int pos = s.position();
                if (rec.status() == RunRecord.RunStatus.SUCCESS && rec.primaryValue() != null) {
                    tallies.values().computeIfAbsent(pos, k -> new ArrayList<>()).add(new Run(s.pass(),
                            rec.primaryValue()));
                } else {
                    tallies.failed().merge(pos, 1, Integer::sum);
                }
                if (tallies.left().merge(pos, -1, Integer::sum) == 0) {
                    List<Run> v = tallies.values().getOrDefault(pos, List.of());
                    Integer bad = tallies.failed().get(pos);
                    TrackCommit updated = v.isEmpty() ? c.withState("failed", "every run failed: "
                            + (rec.failure() == null ? "no value" : rec.failure().category() + " — "
                            + rec.failure().detail())) : c.withState("measured", v.size() + " ok run(s)"
                            + (bad == null ? "" : ", " + bad + " failed"));
                    byPos.put(pos, updated);
                    store.putTrackCommits(List.of(updated));
                }
                progress.ran(c.position(), c.commitId());
            }
        }
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
        ArmSpec arm = setup.arm().on(TRACK_ARM, c.commitId(), setup.envRoot().resolve(c.trackId() + "-c" + c.position()));
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
