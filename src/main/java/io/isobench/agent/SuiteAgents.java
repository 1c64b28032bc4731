package io.isobench.agent;

import io.isobench.guard.AtomicFile;
import io.isobench.task.AgentSpec;
import io.isobench.task.Suite;
import io.isobench.task.SuiteAgentsEdit;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * Writes the attempts' patches next to the suite ({@code patches/NAME@k/TASK.diff}) and the suite's {@code agents:}
 * entries {@code NAME@1..K} that name them (docs/agents.md). An attempt without a patch (failed, empty) has no entry
 * for its task, so {@code isobench run} has no arm for it; every attempt number 1..K gets an entry.
 */
final class SuiteAgents {

    private SuiteAgents() {
    }

    /**
     * @param patches task id → (attempt → patch text) of the attempts that left one
     * @return the suite file
     */
    static Path write(Suite suite, AgentSpec agent, Map<String, Map<Integer, String>> patches, int attempts)
            throws IOException {
        Path file = suite.file().toAbsolutePath();
        Path dir = file.getParent();
        Map<Integer, Map<String, String>> byAttempt = new TreeMap<>();
        for (int k = 1; k <= attempts; k++) {
            byAttempt.put(k, new LinkedHashMap<>());
        }
        for (Map.Entry<String, Map<Integer, String>> t : patches.entrySet()) {
            for (Map.Entry<Integer, String> a : t.getValue().entrySet()) {
                String rel = "patches/" + agent.name() + "@" + a.getKey() + "/" + t.getKey() + ".diff";
                java.nio.file.Files.createDirectories(dir.resolve(rel).getParent());
                AtomicFile.write(dir.resolve(rel), a.getValue().getBytes(StandardCharsets.UTF_8));
                byAttempt.computeIfAbsent(a.getKey(), k -> new LinkedHashMap<>()).put(t.getKey(), rel);
            }
        }
        SuiteAgentsEdit.replaceAttempts(file, agent.name(), agent.model(), byAttempt);
        return file;
    }

    /** The relative path of an attempt's patch (for messages). */
    static Path patchPath(String agent, int attempt, String task) {
        return Path.of("patches", agent + "@" + attempt, task + ".diff");
    }
}
