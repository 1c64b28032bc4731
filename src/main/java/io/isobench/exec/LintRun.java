package io.isobench.exec;

import io.isobench.Arm;
import io.isobench.env.ArmSetup;
import io.isobench.env.Environment;
import io.isobench.parse.MetricRule;
import io.isobench.parse.Readout;
import io.isobench.parse.RuleReader;
import io.isobench.plan.ArmSpec;
import io.isobench.plan.Job;
import io.isobench.plan.JobSpec;
import io.isobench.plan.Plan;
import io.isobench.plan.Planner;
import io.isobench.task.GenericTask;
import io.isobench.task.Suite;
import io.isobench.task.TaskSpec;

import java.io.IOException;
import java.math.BigDecimal;
import java.math.MathContext;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.function.Consumer;

/**
 * {@code isobench tasks lint SUITE --run}: whether a generic engine's rules match its real output can only be known by
 * running it, so this runs each offline task's command once in its baseline (setup steps, the baseline's environment
 * and build, as a session would) and reports every metric rule's value or why it did not match, and the texts the
 * output rule reads. A session does the same at the baseline's first check (the lint run); this finds a bad rule before
 * a session is spent on it.
 */
public final class LintRun {

    private LintRun() {
    }

    /** The report, one block per task ({@code ok} / {@code ERROR} lines); setup failures throw as in a session. */
    public static String run(Suite suite, Path workdir, Consumer<String> progress) {
        Plan plan = Planner.plan(suite, new Planner.Options(1, null, workdir, false));
        int limit = suite.run().timeouts().buildS();
        SessionSetup.run(plan, limit, progress);
        Executor local = LocalExecutor.KIND.create(null);
        StringBuilder out = new StringBuilder();
        for (TaskSpec t : suite.tasks()) {
            GenericTask.Offline o = t.generic() == null ? null : t.generic().offline();
            ArmSpec arm = plan.arm(t.id(), Arm.BASELINE).orElse(null);
            if (o == null || arm == null) {
                out.append(t.id()).append(": nothing to run (").append(o == null ? "not a generic offline task: its"
                        + " command is linted without running it" : "not planned").append(")\n");
                continue;
            }
            Environment env = local.prepare(arm, plan.repo(), new ArmSetup(suite.recipesFor(t.id(), arm.label()),
                    suite.buildArgv(t), limit));
            if (!env.ready()) {
                out.append(t.id()).append(": ERROR ").append(env.failure().category()).append(" preparing the baseline ")
                        .append(arm.commitRef()).append(": ").append(env.failure().detail()).append('\n');
                continue;
            }
            Job job = plan.jobs().stream().filter(j -> j.jobId().equals(t.id() + "/baseline/r0")).findFirst()
                    .orElseThrow().withEnv(env.env());
            job = job.withSpec(((JobSpec.Measure) job.spec())
                    .withReadout(new Readout(o.metrics(), o.primary(), o.probe() == null ? o.output() : null)));
            out.append(lint(t, job, arm, progress));
        }
        return out.toString();
    }

    private static String lint(TaskSpec t, Job job, ArmSpec arm, Consumer<String> progress) {
        progress.accept("lint run " + t.id() + " baseline " + arm.commitRef() + ": " + String.join(" ", job.argv()));
        Path log;
        try {
            log = LocalExecutor.logFile(job.cwd(), "lint-");
        } catch (IOException e) {
            return t.id() + ": ERROR cannot create a log file: " + e.getMessage() + "\n";
        }
        try {
            GenericRun.Ran ran = GenericRun.execute(job, Executor.Hooks.NONE, log, System.nanoTime(), new HashMap<>(),
                    new Launch(Placement.LOCAL, Duration.ofSeconds(5)));
            StringBuilder b = new StringBuilder();
            b.append(t.id()).append(": lint run of the baseline (").append(arm.commitRef()).append(") in ")
                    .append(job.cwd());
            if (ran.failure() != null) {
                JobResult f = ran.failure();
                return b.append(": ERROR ").append(f.failure().category()).append(": ").append(f.failure().detail())
                        .append('\n').toString();
            }
            b.append(String.format(Locale.ROOT, ": exit 0, %s=%.3f s, %s=%s%n", MetricRule.WALL, ran.wallS(),
                    MetricRule.CPU, ran.cpu() == null ? "unknown" : String.format(Locale.ROOT, "%.6f s (%s)",
                            ran.cpu().seconds(), ran.cpu().resolution().source())));
            for (MetricRule r : job.readout().metrics()) {
                RuleReader.Value v = RuleReader.value(r.read(), ran.streams());
                b.append(v.value() != null ? String.format(Locale.ROOT, "  ok     %s = %s %s", r.name(),
                        num(v.value()), r.unit()) : "  ERROR  RULE_NO_MATCH " + r.name() + ": " + v.problem())
                        .append("   (").append(r.read().describe()).append(")\n");
            }
            if (job.readout().output() != null) {
                List<String> texts = RuleReader.texts(job.readout().output(), ran.streams());
                b.append(texts.isEmpty() ? "  ERROR  OUTPUT_NO_MATCH the output rule found no text"
                        : String.format(Locale.ROOT, "  ok     output: %d text(s), %d chars", texts.size(),
                        texts.stream().mapToInt(String::length).sum()))
                        .append("   (").append(job.readout().output().describe()).append(")\n");
            }
            b.append("  primary metric: ").append(job.readout().primary()).append('\n');
            return b.toString();
        } finally {
            try {
                Files.deleteIfExists(log);
            } catch (IOException e) {
                // temp file
            }
        }
    }

    private static String num(double v) {
        return BigDecimal.valueOf(v).round(new MathContext(6)).stripTrailingZeros().toPlainString();
    }
}
