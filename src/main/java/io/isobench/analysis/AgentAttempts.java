package io.isobench.analysis;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import io.isobench.Arm;
import io.isobench.store.RunDetails;
import io.isobench.store.RunFilter;
import io.isobench.store.RunRecord;
import io.isobench.store.Store;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Predicate;

/**
 * The stored attempts of {@code isobench agents run} (runs of kind {@link RunRecord.RunKind#AGENT_ATTEMPT}; their
 * details' {@code agent_attempt} section, docs/agents.md), read once for the report and the export, and the link from
 * a measured agent arm to the attempt it measured ({@link #forArm}): by the attempt's run id the measured runs
 * recorded, else (runs recorded before that key) by the same normalised agent arm ({@code agent:NAME@k}), task and
 * patch SHA-256, the latest started.
 *
 * <p>Attempts are never measured samples: this class is the only reader of the kind outside the store.
 */
public final class AgentAttempts {

    /** The details section an attempt writes. */
    public static final String SECTION = "agent_attempt";

    /**
     * The key of a measured run's details that names the stored attempt its arm measures: the attempt's run id
     * ({@code SESSION/TASK/NAME@k}), written for the arms {@code isobench run --attempts-of} plans.
     */
    public static final String ATTEMPT_RUN = "agent_attempt_run";

    /** No attempts. */
    public static final AgentAttempts NONE = new AgentAttempts(List.of());

    /**
     * One attempt as stored.
     *
     * @param runId     the attempt's run id
     * @param startedAt when it started (null when not recorded)
     * @param arm       its arm, {@code agent:NAME@k} (normalised)
     * @param section   the {@code agent_attempt} section (a JSON object; read through the accessors)
     */
    public record Attempt(String runId, Instant startedAt, Arm arm, JsonNode section) {

        /** The task id. */
        public String task() {
            return text("task");
        }

        /** The agent name, normalised ({@code -} → {@code _}, lower case), without {@code @k}. */
        public String agent() {
            String a = text("agent");
            return a == null ? baseName(arm.label()) : Arm.normalizeAgent(a);
        }

        /** k, the attempt's number (1-based). */
        public int attempt() {
            JsonNode n = section.path("attempt");
            return n.isNumber() ? n.asInt() : attemptNumber(arm.label());
        }

        /** OK, AGENT_TIMEOUT, BUDGET_EXCEEDED, AGENT_CRASH or EMPTY_PATCH. */
        public String status() {
            return text("status");
        }

        /** A field as text, or null when absent or JSON null. */
        public String text(String key) {
            JsonNode n = section.path(key);
            return n.isMissingNode() || n.isNull() ? null : n.asText();
        }

        /** A numeric field, or null when absent or not a number. */
        public Double number(String key) {
            JsonNode n = section.path(key);
            return n.isNumber() ? Double.valueOf(n.asDouble()) : null;
        }

        /** A whole-number field, or null when absent or not a number. */
        public Long count(String key) {
            JsonNode n = section.path(key);
            return n.isNumber() ? Long.valueOf(n.asLong()) : null;
        }
    }

    private final List<Attempt> all;

    private AgentAttempts(List<Attempt> all) {
        this.all = List.copyOf(all);
    }

    /** Every attempt in the store, ordered by start time (then run id). */
    public static AgentAttempts read(Store store) {
        List<RunRecord> runs = new ArrayList<>();
        store.forEachRun(RunFilter.runs().ofKinds(Set.of(RunRecord.RunKind.AGENT_ATTEMPT)), runs::add);
        return of(runs);
    }

    /** The attempts among {@code runs} (other kinds are skipped). */
    public static AgentAttempts of(List<RunRecord> runs) {
        List<Attempt> out = new ArrayList<>();
        for (RunRecord r : runs) {
            if (r.kind() != RunRecord.RunKind.AGENT_ATTEMPT) {
                continue;
            }
            JsonNode s = r.details().section(SECTION);
            out.add(new Attempt(r.runId(), r.startedAt(), r.arm(), s.isObject() ? s
                    : JsonNodeFactory.instance.objectNode()));
        }
        out.sort(Comparator.comparing((Attempt a) -> a.startedAt() == null ? Instant.EPOCH : a.startedAt())
                .thenComparing(Attempt::runId));
        return new AgentAttempts(out);
    }

    /** The attempts that pass {@code keep}. */
    public AgentAttempts filter(Predicate<Attempt> keep) {
        return new AgentAttempts(all.stream().filter(keep).toList());
    }

    public List<Attempt> all() {
        return all;
    }

    public boolean isEmpty() {
        return all.isEmpty();
    }

    /**
     * The attempt a measured agent arm measured, from the arm's stored runs at one task. By identity: the attempt's
     * run id that a run of the arm recorded ({@link #ATTEMPT_RUN}; every run planned by {@code run --attempts-of}
     * records it), empty when this store does not hold that attempt. A run without it (recorded before the key
     * existed, or a patch a suite file names) falls back to the old join, {@link #byPatch}. The one place the link is
     * made.
     *
     * @param arm  the measured arm (an agent arm; every other arm has no attempt)
     * @param task the task
     * @param runs the arm's runs at the task (other arms' runs are skipped)
     */
    public Optional<Attempt> forArm(Arm arm, String task, List<RunRecord> runs) {
        if (arm == null || arm.kind() != Arm.Kind.AGENT) {
            return Optional.empty();
        }
        String patchSha256 = null;
        for (RunRecord r : runs) {
            if (!arm.equals(r.arm())) {
                continue;
            }
            String key = attemptRunOf(r.details());
            if (key != null) {
                return all.stream().filter(a -> a.runId().equals(key)).reduce((first, last) -> last);
            }
            patchSha256 = patchSha256 != null ? patchSha256 : r.details().patchSha256();
        }
        return byPatch(arm, task, patchSha256);
    }

    /**
     * Whether {@code a} is the attempt an arm of its label measured, the arm's runs having recorded
     * {@code recordedAttemptRun} (null: none) and applied {@code measuredPatchSha256}: the rule of {@link #forArm}
     * for one attempt (by identity, else by patch).
     */
    public static boolean measuredBy(Attempt a, String recordedAttemptRun, String measuredPatchSha256) {
        if (recordedAttemptRun != null) {
            return recordedAttemptRun.equals(a.runId());
        }
        return measuredPatchSha256 != null && measuredPatchSha256.equals(a.text("patch_sha256"));
    }

    /** The attempt run id a measured run recorded ({@link #ATTEMPT_RUN}), or null. */
    public static String attemptRunOf(RunDetails details) {
        JsonNode n = details.section(ATTEMPT_RUN);
        return n.isTextual() ? n.asText() : null;
    }

    /**
     * The fallback link of runs that recorded no attempt run id (stores written before it was recorded): same arm,
     * task and patch SHA-256; the latest started of several; empty when none matches (a patch written by hand,
     * or attempts not in this store). Two attempts that left the same patch under the same label (an agents run
     * repeated) cannot be told apart here: the latest wins.
     */
    Optional<Attempt> byPatch(Arm arm, String task, String patchSha256) {
        if (arm == null || task == null || patchSha256 == null) {
            return Optional.empty();
        }
        Attempt best = null;
        for (Attempt a : all) {
            if (arm.equals(a.arm()) && task.equals(a.task()) && patchSha256.equals(a.text("patch_sha256"))) {
                best = a; // ordered by start: the last match is the latest
            }
        }
        return Optional.ofNullable(best);
    }

    /**
     * The attempts at {@code task}, one per (agent, k): the latest started (an agents run repeated later replaces
     * it), in agent then attempt order.
     */
    public List<Attempt> ofTask(String task) {
        Map<Arm, Attempt> latest = new LinkedHashMap<>();
        for (Attempt a : all) {
            if (task != null && task.equals(a.task())) {
                latest.put(Arm.attemptOf(a.agent(), Math.max(1, a.attempt())), a);
            }
        }
        List<Attempt> out = new ArrayList<>(latest.values());
        out.sort(Comparator.comparing(Attempt::agent).thenComparingInt(Attempt::attempt));
        return out;
    }

    /**
     * The agent name of an arm label or agent name without its attempt suffix: {@code agent:a@2} → {@code a},
     * {@code agent:b} → {@code b} (the suffix rule: {@link Arm}).
     */
    public static String baseName(String armOrName) {
        Arm a = agentArm(armOrName);
        return a.kind() == Arm.Kind.AGENT ? a.agentBase() : a.agentName();
    }

    /** The attempt number of an arm label or agent name: {@code agent:a@2} → 2; 1 without a suffix. */
    public static int attemptNumber(String armOrName) {
        return Math.max(1, agentArm(armOrName).attempt());
    }

    /** The agent arm of a label {@code agent:NAME} or a bare agent name, as written (not normalised). */
    private static Arm agentArm(String armOrName) {
        String n = armOrName.startsWith("agent:") ? armOrName.substring("agent:".length()) : armOrName;
        return n.isBlank() ? new Arm(Arm.Kind.OTHER, n) : new Arm(Arm.Kind.AGENT, n);
    }
}
