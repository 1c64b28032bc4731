package io.isobench.cli;

import io.isobench.IsobenchException;
import io.isobench.parse.FailureCategory;
import io.isobench.report.RunListing;
import io.isobench.store.RunFilter;
import io.isobench.store.RunRecord;
import io.isobench.store.Store;
import io.isobench.store.Stores;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.util.Arrays;
import java.util.EnumSet;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.function.Function;

@Command(name = "runs", mixinStandardHelpOptions = true,
        description = {"List the stored runs, one line each: what happened to each run, without SQL.",
                "Columns: run_id,source,commit,agent,arm,pipeline,mode,status,category,evidence,metric,value,unit,superseded,attempt_at.",
                "Final attempts only unless --all-attempts; --agent unknown: runs whose source names no agent."})
final class RunsCommand implements Callable<Integer> {

    /** The statuses a user can ask for, as the command line spells them. */
    enum StatusOption {
        SUCCESS(RunRecord.RunStatus.SUCCESS), FAILED(RunRecord.RunStatus.FAILED), NOT_RUN(RunRecord.RunStatus.NOT_RUN),
        SKIPPED(RunRecord.RunStatus.SKIPPED);

        final RunRecord.RunStatus status;

        StatusOption(RunRecord.RunStatus status) {
            this.status = status;
        }
    }

    @Spec
    CommandSpec spec;

    @Option(names = "--agent", paramLabel = "NAME", description = "Only this agent's runs ('-' and '_' are interchangeable);"
            + " 'unknown': the runs whose source names no agent.")
    String agent;

    @Option(names = "--commit", paramLabel = "HEX",
            description = "Only this commit: 4 to 40 hex characters (an 8-character id matches the full hash).")
    String commit;

    @Option(names = "--status", paramLabel = "success|failed|not_run|skipped", description = "Only runs with this status.")
    StatusOption status;

    @Option(names = "--category", paramLabel = "CATEGORY",
            description = "Only failed runs of this failure category (DESIGN.md §7, e.g. GPU_OOM, UNKNOWN).")
    String category;

    @Option(names = "--pipeline", paramLabel = "NAME",
            description = "Only runs of this pipeline (modal, separate, docker_3way, native, hf_import, …).")
    String pipeline;

    @Option(names = "--arm", paramLabel = "ARM",
            description = "Only this arm: baseline, human, agent (every agent), agent:NAME, attempt, baseline-aa.")
    String arm;

    @Option(names = "--source", paramLabel = "PREFIX",
            description = "Only runs whose source (the column) starts with PREFIX: a path relative to the imported"
                    + " root, a session id, an HF table file.")
    String source;

    @Option(names = "--all-attempts",
            description = "Also list the attempts a later attempt of the same commit superseded (progress logs).")
    boolean allAttempts;

    @Option(names = "--format", paramLabel = "table|csv|json", defaultValue = "table",
            description = "table (default: aligned, evidence shortened), csv (RFC 4180, a contract) or json.")
    RunListing.Format format;

    /** Every kind but the superseded attempts: what {@code runs} lists by default. */
    static final Set<RunRecord.RunKind> FINAL_KINDS =
            EnumSet.complementOf(EnumSet.of(RunRecord.RunKind.LEGACY_SUPERSEDED));

    /** The --arm option as a stored arm label, checked. */
    private String armLabel() {
        if (arm == null || arm.isBlank()) {
            return null;
        }
        String a = arm.strip().toLowerCase(Locale.ROOT);
        if (a.matches("baseline|baseline-aa|human|agent|attempt") || a.startsWith("agent:") && a.length() > 6) {
            return a;
        }
        throw new IsobenchException.BadInput("--arm " + arm + " is not an arm; use baseline, human, agent,"
                + " agent:NAME, attempt or baseline-aa");
    }

    @Override
    public Integer call() {
        Main main = (Main) spec.root().userObject();
        String db = main.existingDbSpec();
        String cat = null;
        if (category != null) {
            cat = category.strip().toUpperCase(Locale.ROOT);
            String wanted = cat;
            if (Arrays.stream(FailureCategory.values()).noneMatch(c -> c.name().equals(wanted))) {
                throw new IsobenchException.BadInput("--category " + category + " is not a failure category; use one of "
                        + String.join(", ", Arrays.stream(FailureCategory.values()).map(Enum::name).toList()));
            }
        }
        if (commit != null && !commit.strip().toLowerCase(Locale.ROOT).matches("[0-9a-f]{4,40}")) {
            throw new IsobenchException.BadInput("--commit " + commit + " is not a commit id: give 4 to 40 hex"
                    + " characters (e.g. 299ebb62)");
        }
        String armLabel = armLabel();
        String wantedCategory = cat;
        RunFilter wanted = RunFilter.runs().ofAgent(agent).ofCommit(commit)
                .withStatus(status == null ? null : status.status).inCategory(wantedCategory)
                .within(pipeline, armLabel, source);
        Function<Set<RunRecord.RunKind>, RunFilter> ofKinds = wanted::ofKinds;
        RunFilter filter = ofKinds.apply(allAttempts ? null : FINAL_KINDS);
        try (Store store = Stores.open(db)) {
            long n = RunListing.write(sink -> store.forEachRun(filter, sink), format, main.out);
            long superseded = store.countRuns(ofKinds.apply(EnumSet.of(RunRecord.RunKind.LEGACY_SUPERSEDED)), null);
            if (n == 0) {
                main.err.println("isobench: no runs match in " + store.describe()
                        + (superseded > 0 ? " (" + superseded + " runs of superseded attempts do: --all-attempts)" : ""));
            } else if (superseded > 0) {
                main.err.println("isobench: " + n + " runs" + (allAttempts
                        ? ", every attempt (" + superseded + " of superseded attempts)"
                        : " of final attempts; " + superseded + " runs of superseded attempts not listed (--all-attempts)"));
            }
        }
        return Main.OK;
    }
}
