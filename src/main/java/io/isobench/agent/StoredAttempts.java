package io.isobench.agent;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.isobench.Arm;
import io.isobench.IsobenchException;
import io.isobench.guard.AtomicFile;
import io.isobench.store.RunFilter;
import io.isobench.store.RunRecord;
import io.isobench.store.SessionRecord;
import io.isobench.store.Store;
import io.isobench.task.AgentSpec;
import io.isobench.task.Suite;
import io.isobench.task.TaskSpec;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Consumer;
import java.util.stream.Collectors;

/**
 * The attempts one {@code isobench agents run} stored (session {@code agents-…}), as the agent arms {@code NAME@k} a
 * measurement plans: the store is the truth about attempts (docs/agents.md, "Measuring the attempts").
 *
 * <p>Rule: attempt k of agent NAME is the agent arm {@code NAME@k}, k = 1..K (K: the attempts the run was asked for,
 * else the largest stored k); its patch for a task is the stored patch of the attempt that succeeded there (status
 * SUCCESS with a {@code patch_sha256}); an attempt without one has no arm at that task. A suite's own {@code NAME@…}
 * entries of the same agent are replaced, every other agent is kept. The patch bytes come from the store's copy (same
 * sha256), written under the work folder, never beside the suite; the suite file is never written here
 * ({@link #exportTo} is the one explicit export of {@code NAME@k} entries into a suite file).
 */
public final class StoredAttempts {

    private static final ObjectMapper JSON = new ObjectMapper();

    /**
     * One agent's attempts.
     *
     * @param agent    the agent as the suite names it (no {@code @k})
     * @param model    its model, or null
     * @param attempts K: the attempt arms {@code NAME@1..K}
     * @param patches  task id → (k → patch sha256) of the attempts that left a patch
     * @param runs     task id → (k → the attempt's run id) of the same attempts: what a measured arm records as the
     *                 attempt it measures
     */
    private record Agent(String agent, String model, int attempts, Map<String, Map<Integer, String>> patches,
                         Map<String, Map<Integer, String>> runs) {
    }

    private final Store store;
    private final String sessionId;
    private final List<Agent> agents;

    private StoredAttempts(Store store, String sessionId, List<Agent> agents) {
        this.store = store;
        this.sessionId = sessionId;
        this.agents = List.copyOf(agents);
    }

    /**
     * The attempts of agents-run session {@code sessionId}.
     *
     * @param option the option that named the session (in the error line)
     * @throws IsobenchException.BadInput no such session, a measurement session, or one without attempts
     */
    public static StoredAttempts read(Store store, String sessionId, String option) {
        Optional<SessionRecord> s = store.session(sessionId);
        if (s.isPresent() && !s.get().isAgentsRun()) {
            throw new IsobenchException.BadInput(option + " " + sessionId + ": a measurement session, not an agents"
                    + " run (fix: the session id `isobench agents run` printed, agents-…)");
        }
        List<RunRecord> runs = new ArrayList<>();
        store.forEachRun(RunFilter.runs().ofKinds(Set.of(RunRecord.RunKind.AGENT_ATTEMPT))
                .inSession(sessionId), runs::add);
        if (runs.isEmpty()) {
            throw new IsobenchException.BadInput(option + " " + sessionId + ": " + (s.isEmpty() ? "no session '"
                    + sessionId + "' in " + store.describe() + " (fix: the session id `isobench agents run` printed,"
                    + " and the same --db)" : "the agents run stored no attempt (fix: isobench agents run … --resume "
                    + sessionId + ")"));
        }
        int asked = s.map(StoredAttempts::asked).orElse(0);
        Map<String, Agent> byAgent = new LinkedHashMap<>();
        for (RunRecord r : runs) {
            JsonNode d = r.details().section(AttemptRecords.SECTION);
            String name = text(d, "agent") != null ? text(d, "agent") : r.arm().agentBase();
            int k = d.path("attempt").isInt() ? d.path("attempt").asInt() : r.arm().attempt();
            if (name == null || k < 1) {
                continue;
            }
            Agent a = byAgent.computeIfAbsent(Arm.normalizeAgent(name), x -> new Agent(name, text(d, "model"),
                    asked, new LinkedHashMap<>(), new LinkedHashMap<>()));
            String sha = text(d, "patch_sha256");
            if (r.outcome().status() == RunRecord.RunStatus.SUCCESS && sha != null) {
                a.patches().computeIfAbsent(text(d, "task"), x -> new TreeMap<>()).put(k, sha);
                a.runs().computeIfAbsent(text(d, "task"), x -> new TreeMap<>()).put(k, r.runId());
            }
            byAgent.put(Arm.normalizeAgent(name), new Agent(a.agent(), a.model() != null ? a.model()
                    : text(d, "model"), Math.max(a.attempts(), k), a.patches(), a.runs()));
        }
        return new StoredAttempts(store, sessionId, new ArrayList<>(byAgent.values()));
    }

    /** K as the run was asked for ({@code attempts} in the session's settings), 0 when not recorded. */
    private static int asked(SessionRecord s) {
        try {
            return s.suiteJson() == null ? 0 : JSON.readTree(s.suiteJson()).path("attempts").asInt(0);
        } catch (IOException e) {
            return 0;
        }
    }

    /** The attempt arms, {@code NAME@1..NAME@K} per agent, in the order the store holds them. */
    public String describe() {
        return String.join(", ", agents.stream().map(a -> a.agent() + "@1.." + a.agent() + "@" + a.attempts())
                .toList());
    }

    /**
     * {@code suite} with the agent arms {@code NAME@1..K} of these attempts (in place of its own {@code NAME@…}
     * entries of the agent), their patches written from the store under {@code dir}
     * ({@code dir/SESSION/NAME@k/TASK.diff}), each arm knowing the stored attempt it measures (its run id,
     * {@link AgentSpec#attemptRunFor}); a task the suite does not have is left out, and a patch the store has no
     * intact copy of is left out with a line to {@code progress}.
     */
    public Suite plan(Suite suite, Path dir, Consumer<String> progress) throws IOException {
        List<AgentSpec> out = new ArrayList<>(suite.agents());
        for (Agent agent : agents) {
            out = others(out, agent.agent());
            for (int k = 1; k <= agent.attempts(); k++) {
                Map<String, Path> files = new LinkedHashMap<>();
                Map<String, String> attemptRuns = new LinkedHashMap<>();
                for (TaskSpec t : suite.tasks()) {
                    String sha = agent.patches().getOrDefault(t.id(), Map.of()).get(k);
                    Optional<byte[]> bytes = sha == null ? Optional.empty()
                            : store.artifact(sha).filter(b -> AttemptRecords.sha256(b).equals(sha));
                    if (sha != null && bytes.isEmpty()) {
                        progress.accept("  " + agent.agent() + "@" + k + " at " + t.id() + ": the store has no intact"
                                + " copy of patch " + sha + " (fix: rerun that attempt in a new agents run)");
                    }
                    if (bytes.isEmpty()) {
                        continue;
                    }
                    Path file = dir.toAbsolutePath().resolve(sessionId).resolve(agent.agent() + "@" + k)
                            .resolve(t.id() + ".diff");
                    Files.createDirectories(file.getParent());
                    AtomicFile.writeBytes(file, bytes.get());
                    files.put(t.id(), file);
                    attemptRuns.put(t.id(), agent.runs().get(t.id()).get(k));
                }
                out.add(new AgentSpec(agent.agent() + "@" + k, agent.model(), files, null, attemptRuns));
            }
        }
        return suite.withAgents(out);
    }

    /**
     * The one explicit export: per agent, writes the attempts' patch files beside the suite
     * ({@code patches/NAME@k/TASK.diff}, from the store) and rewrites the suite file's {@code NAME@k} entries to name
     * them ({@link SuiteAgents}).
     *
     * @return the suite file
     */
    public Path exportTo(Suite suite, Consumer<String> progress) throws IOException {
        Path file = suite.file();
        for (Agent agent : agents) {
            AgentSpec spec = suite.agents().stream()
                    .filter(a -> Arm.normalizeAgent(a.name()).equals(Arm.normalizeAgent(agent.agent()))).findFirst()
                    .orElse(new AgentSpec(agent.agent(), agent.model(), Map.of()));
            Map<String, Map<Integer, String>> inSuite = new LinkedHashMap<>();
            for (TaskSpec t : suite.tasks()) {
                if (agent.patches().containsKey(t.id())) {
                    inSuite.put(t.id(), agent.patches().get(t.id()));
                }
            }
            file = SuiteAgents.write(suite, new AgentSpec(spec.name(), spec.model() != null ? spec.model()
                    : agent.model(), Map.of()), inSuite, agent.attempts(), store::artifact, progress);
        }
        return file;
    }

    /** {@code agents} but the attempt entries ({@code NAME@k}) of {@code agent}. */
    private static List<AgentSpec> others(List<AgentSpec> agents, String agent) {
        String base = Arm.normalizeAgent(agent);
        return agents.stream().filter(a -> {
            Arm arm = Arm.agent(a.name());
            return !(arm.isAttempt() && arm.agentBase().equals(base));
        }).collect(Collectors.toCollection(ArrayList::new));
    }

    private static String text(JsonNode d, String key) {
        JsonNode n = d.path(key);
        return n.isMissingNode() || n.isNull() ? null : n.asText();
    }
}
