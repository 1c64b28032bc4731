package io.isobench.session;

import io.isobench.analysis.PilotTable;
import io.isobench.plan.AutoSweep;
import io.isobench.plan.Job;
import io.isobench.plan.Plan;
import io.isobench.store.RunRecord;
import io.isobench.store.Store;
import io.isobench.task.Sweep;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static io.isobench.session.RunRecorder.runId;

/**
 * The pilot phase of a session's {@code sweep: auto} tasks (docs/loadgen.md, "Load sweeps"; docs/statistics.md,
 * section 17): before round 1, the baseline's server is measured at the rates {@link AutoSweep}'s rule asks for, each
 * pilot a measured job of its own run through the session's executor (pipeline {@code native-pilot}: stored and shown,
 * never a measurement), until the rule decides the points every arm is then measured at.
 *
 * <p><b>Persisted as runs.</b> The pilots are the session's stored runs, and the rule is deterministic: walking it
 * over the stored pilots gives the same rates, the same run ids and the same points. So {@code --resume} reads the
 * points back without running a pilot again, and a pilot phase killed half-way continues: the pilots that finished
 * are reused, only the missing ones run (a pilot killed while running runs again, from its start).
 */
final class PilotPhase {

    private PilotPhase() {
    }

    /** Per {@code sweep: auto} task of the plan, the points its stored pilots decided; tasks still undecided absent. */
    static Map<String, List<Double>> decided(Store store, String sessionId, Plan plan) {
        Map<String, List<Double>> out = new LinkedHashMap<>();
        for (Job template : plan.pilots()) {
            walk(store, sessionId, template, null).ifPresent(p -> out.put(template.taskId(), p));
        }
        return out;
    }

    /**
     * Runs the missing pilots of every undecided task whose baseline is ready, and gives the points decided (with
     * those decided before). A task whose baseline cannot run is left undecided: it gets no rounds.
     *
     * @param ready  whether the task's baseline environment is ready
     * @param runJob runs one pilot job to its end and stores its run
     * @param note   one line per task: where its points came from
     */
    static Map<String, List<Double>> run(Store store, String sessionId, Plan plan,
                                         Predicate<String> ready, Consumer<Job> runJob,
                                         Consumer<String> note) {
        Map<String, List<Double>> out = new LinkedHashMap<>();
        for (Job template : plan.pilots()) {
            if (!ready.test(template.taskId())) {
                note.accept("sweep auto " + template.taskId() + ": not piloted, the baseline's environment is not"
                        + " ready; the task has no measured rounds");
                continue;
            }
            walk(store, sessionId, template, runJob).ifPresent(p -> {
                out.put(template.taskId(), p);
                note.accept("sweep auto " + template.taskId() + ": points " + String.join(", ",
                        p.stream().map(Sweep::text).toList()) + " req/s, decided by its pilots against the baseline");
            });
        }
        return out;
    }

    /**
     * The pilot job of a stored pilot run id ({@code SESSION/TASK/baseline/pilotN/request_rate=R}) of one of the plan's
     * undecided tasks: what a resumed session reaps a killed pilot's container or cluster job by.
     */
    static Optional<Job> jobOf(Plan plan, String sessionId, String rid) {
        for (Job template : plan.pilots()) {
            String prefix = runId(sessionId, template);
            if (!rid.startsWith(prefix)) {
                continue;
            }
            Matcher m = Pattern.compile("([0-9]+)/request_rate=([0-9.eE+-]+)")
                    .matcher(rid.substring(prefix.length()));
            if (m.matches()) {
                return Optional.of(AutoSweep.pilotJob(template, Integer.parseInt(m.group(1)),
                        Double.parseDouble(m.group(2))));
            }
        }
        return Optional.empty();
    }

    /**
     * Walks the rule over the task's stored pilots; where one is missing, runs it ({@code runJob}) or, without a
     * runner, stops undecided.
     */
    private static Optional<List<Double>> walk(Store store, String sessionId, Job template, Consumer<Job> runJob) {
        Sweep auto = template.sweepPoint().sweep();
        AutoSweep.Settings settings = AutoSweep.settingsOf(auto);
        List<AutoSweep.Pilot> pilots = new ArrayList<>();
        while (true) {
            AutoSweep.Step step = AutoSweep.next(pilots, auto.minGoodFraction(), settings);
            if (step.done()) {
                return Optional.of(step.points());
            }
            Job job = AutoSweep.pilotJob(template, pilots.size() + 1, step.nextRps());
            String rid = runId(sessionId, job);
            Optional<RunRecord> stored = finished(store, rid);
            if (stored.isEmpty()) {
                if (runJob == null) {
                    return Optional.empty();
                }
                runJob.accept(job);
                stored = finished(store, rid);
                if (stored.isEmpty()) {
                    throw new IllegalStateException("pilot " + rid + " ran but stored no run");
                }
            }
            pilots.add(PilotTable.pilotOf(stored.get(), step.nextRps()));
        }
    }

    private static Optional<RunRecord> finished(Store store, String rid) {
        return store.run(rid).filter(r -> r.status() != RunRecord.RunStatus.NOT_RUN);
    }
}
