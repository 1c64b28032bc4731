package io.isobench.agent;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.isobench.Arm;
import io.isobench.Fields;
import io.isobench.atif.AtifValidator;
import io.isobench.exec.GpuSampler;
import io.isobench.parse.FailureCategory;
import io.isobench.plan.GpuLease;
import io.isobench.store.RunDetails;
import io.isobench.store.RunRecord;
import io.isobench.store.Store;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * An attempt as stored (docs/agents.md, "What is recorded"): a run of kind {@link RunRecord.RunKind#AGENT_ATTEMPT}
 * in the agents-run session, round = attempt number, arm {@code agent:NAME@k}, its raw stdout as the log artifact,
 * and the {@code agent_attempt} details section: usage, versions, the prompt's hashes, budget, and the artifact ids of
 * the patch, the normalised trajectory (an ATIF-v1.7 document, checked before it is stored: an invalid one is stored
 * with {@code trajectory_atif_errors} said, never dropped) and the raw stderr. Written in one transaction.
 * {@code patch_sha256} is the sha256 of the patch file as written (what a measured run records); {@code patch_artifact} the stored copy, kept byte
 * for byte ({@link Store#PATCH_KIND}: the generic redactor never runs over a patch), so both ids are the same and a
 * resumed run can restore the file from the store. A patch that held the attempt's own secret value is stored with it
 * masked ({@code patch_masked}: true) and its attempt is {@link AttemptStatus#PATCH_HAS_SECRET}, never measured.
 */
public final class AttemptRecords {

    /** The details section of an attempt. */
    public static final String SECTION = "agent_attempt";

    private static final ObjectMapper JSON = new ObjectMapper();

    private AttemptRecords() {
    }

    /** What identifies an attempt and how it was run, besides its result. */
    public record AttemptContext(String sessionId, String taskId, String agent, int attempt, String adapter,
                                 String executor, String model) {

        /** The attempt's arm name: {@code NAME@k}. */
        public String armName() {
            return agent + "@" + attempt;
        }

        /** The attempt's run id (stable: a resumed session finds it). */
        public String runId() {
            return sessionId + "/" + taskId + "/" + armName();
        }
    }

    /** The prompt and commits an attempt saw. */
    public record Seal(String parentCommit, String sealedCommit, String templateSha256, String promptSha256,
                       String hints) {
    }

    /**
     * How the attempt ran.
     *
     * @param argv    the agent's argv as run (secrets are never in it; redacted again by the store)
     * @param budget  the budget it ran under
     * @param started when it started
     * @param egress  the model-endpoint requests it made through the sandbox's proxy (empty: not seen)
     */
    public record Facts(List<String> argv, Budget budget, Instant started, List<String> egress) {
    }

    /**
     * The GPUs an attempt held (docs/agents.md, "GPUs in the sandbox").
     *
     * @param ids       host indexes
     * @param models    each GPU's model name (null where unknown: an {@code ISOBENCH_GPUS} inventory)
     * @param uuids     each GPU's UUID (null where unknown)
     * @param mode      how they reached the attempt: {@code nvidia-runtime}, {@code device-nodes}, {@code local}
     * @param telemetry what the host-side sampler read while the attempt ran
     * @param csv       the raw series (stored as a {@code gpu-telemetry} artifact), or null when none was sampled
     */
    public record Gpus(List<Integer> ids, List<String> models, List<String> uuids, String mode,
                       GpuSampler.Result telemetry, Path csv) {
        public Gpus {
            ids = List.copyOf(ids);
            models = Collections.unmodifiableList(new ArrayList<>(models));
            uuids = Collections.unmodifiableList(new ArrayList<>(uuids));
        }
    }

    /** Stores the attempt (artifacts and run) in one transaction; returns the stored run. */
    public static RunRecord store(Store store, AttemptContext c, Seal seal, AttemptResult r, Facts f) {
        return store(store, c, seal, r, f, null);
    }

    /**
     * As {@link #store(Store, AttemptContext, Seal, AttemptResult, Facts)} for an attempt that held GPUs
     * ({@code gpus} null: none): the {@code agent_attempt} section gains {@code gpus}, {@code gpu_ids},
     * {@code gpu_models}, {@code gpu_uuids}, {@code gpu_mode} and a {@code gpu_telemetry} object shaped as measured runs'
     * section (the series as a {@code gpu-telemetry} artifact, {@code series_sha256}; {@code window: attempt}).
     */
    public static RunRecord store(Store store, AttemptContext c, Seal seal, AttemptResult r, Facts f, Gpus gpus) {
        List<String> argv = f.argv();
        Budget budget = f.budget();
        Instant started = f.started();
        return store.inTransaction(tx -> {
            String stdoutSha = tx.putArtifact("agent-stdout", r.rawStdout().getBytes(StandardCharsets.UTF_8));
            String stderrSha = tx.putArtifact("agent-stderr", r.rawStderr().getBytes(StandardCharsets.UTF_8));
            byte[] patch = r.patchBytes();
            String patchArtifact = patch.length == 0 ? null : tx.putArtifact(Store.PATCH_KIND, patch);
            String patchSha = patch.length == 0 ? null : sha256(patch);
            String trajectory = r.trajectory().toJson(header(c, seal, r, budget), r.usage());
            List<AtifValidator.Error> atifErrors = AtifValidator.validate(trajectory, AtifValidator.Profile.WRITE);
            // an invalid document is a bug: loud under tests (-ea), stored with the errors said in production
            assert atifErrors.isEmpty() : "the trajectory of " + c.runId() + " is not valid ATIF:\n"
                    + AtifValidator.lines(atifErrors, 20);
            String trajSha = tx.putArtifact("trajectory", trajectory.getBytes(StandardCharsets.UTF_8));
            Map<String, Object> d = new LinkedHashMap<>();
            d.put("task", c.taskId());
            d.put("agent", c.agent());
            d.put("attempt", c.attempt());
            d.put("adapter", c.adapter());
            d.put("cli_version", r.cliVersion());
            d.put("executor", c.executor());
            d.put("model", c.model());
            d.put("prompt_template_sha256", seal.templateSha256());
            d.put("prompt_sha256", seal.promptSha256());
            d.put("hints", seal.hints());
            d.put("turns", r.usage().turns());
            d.put("tokens_in", r.usage().tokensIn());
            d.put("tokens_out", r.usage().tokensOut());
            d.put("cost_usd", r.usage().costUsd());
            d.put("wall_s", Math.round(r.wallS() * 1000) / 1000.0);
            d.put("status", r.status().name());
            d.put("detail", r.detail());
            d.put("exit_code", r.exitCode());
            d.put("patch_sha256", patchSha);
            d.put("patch_artifact", patchArtifact);
            d.put("patch_lines", lines(patch));
            d.put("patch_bytes", patch.length);
            d.put("patch_masked", r.status() == AttemptStatus.PATCH_HAS_SECRET);
            d.put("trajectory_sha256", trajSha);
            if (!atifErrors.isEmpty()) {
                d.put("trajectory_atif_errors", atifErrors.stream().limit(20).map(AtifValidator.Error::toString)
                        .toList());
            }
            d.put("stderr_sha256", stderrSha);
            d.put("budget", AttemptRunner.budgetMap(budget));
            d.put("egress", f.egress());
            d.put("parent_commit", seal.parentCommit());
            d.put("sealed_commit", seal.sealedCommit());
            if (gpus != null) {
                d.putAll(AttemptGpus.keys(gpus));
                Map<String, Object> telemetry = new LinkedHashMap<>();
                telemetry.put("gpus_held", new GpuLease(gpus.ids()).cudaVisibleDevices());
                telemetry.put("window", "attempt");
                telemetry.putAll(gpus.telemetry().toMap(null));
                telemetry.remove("series");
                if (gpus.csv() != null) {
                    try {
                        telemetry.put("series_sha256", tx.putArtifact("gpu-telemetry", Files.readAllBytes(gpus.csv())));
                    } catch (IOException e) {
                        telemetry.put("series_unreadable", e.getMessage());
                    }
                }
                d.put("gpu_telemetry", telemetry);
            }
            RunRecord.Builder b = RunRecord.builder(c.runId())
                    .session(c.sessionId())
                    .kind(RunRecord.RunKind.AGENT_ATTEMPT)
                    .round(c.attempt())
                    .commit(seal.parentCommit(), seal.parentCommit().substring(0, Math.min(8,
                            seal.parentCommit().length())))
                    .agent(c.armName())
                    .arm(Arm.agent(c.armName()))
                    .model(c.model())
                    .status(r.status() == AttemptStatus.OK ? RunRecord.RunStatus.SUCCESS : RunRecord.RunStatus.FAILED)
                    .startedAt(started)
                    .durationMs(r.wallS() * 1000)
                    .argvJson(json(argv))
                    .logArtifact(stdoutSha)
                    .details(RunDetails.of(Fields.inOrder(SECTION, d)));
            if (r.status() != AttemptStatus.OK) {
                FailureCategory cat = FailureCategory.valueOf(r.status().name());
                b.failure(new RunRecord.FailureInfo(cat.name(), r.detail(), null,
                        cat.retry() != FailureCategory.Retry.NO));
            }
            RunRecord run = b.build();
            tx.putRun(run);
            return run;
        });
    }

    /** The ATIF header of an attempt's trajectory: its session, agent, and isobench's facts under extra.isobench. */
    private static Trajectory.Header header(AttemptContext c, Seal seal, AttemptResult r, Budget budget) {
        Map<String, Object> x = new LinkedHashMap<>();
        x.put("run_id", c.runId());
        x.put("task", c.taskId());
        x.put("agent", c.agent());
        x.put("attempt", c.attempt());
        x.put("adapter", c.adapter());
        x.put("executor", c.executor());
        x.put("status", r.status().name());
        x.put("prompt_template_sha256", seal.templateSha256());
        x.put("prompt_sha256", seal.promptSha256());
        x.put("parent_commit", seal.parentCommit());
        x.put("sealed_commit", seal.sealedCommit());
        x.put("budget", AttemptRunner.budgetMap(budget));
        return new Trajectory.Header(c.sessionId(), c.adapter(), r.cliVersion(), c.model(), x);
    }

    /** The sha256 (hex) of {@code bytes}: the id of a patch file as written. */
    static String sha256(byte[] bytes) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256")
                    .digest(bytes));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    private static int lines(byte[] patch) {
        int n = 0;
        for (byte b : patch) {
            if (b == '\n') {
                n++;
            }
        }
        return n;
    }

    private static String json(Object o) {
        try {
            return JSON.writeValueAsString(o);
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }
}
