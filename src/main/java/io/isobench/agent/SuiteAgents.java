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

    /** Writes one attempt's patch file ({@code patches/NAME@k/TASK.diff} beside the suite), byte for byte. */
    static void writePatch(Suite suite, String agent, int attempt, String task, String patch) throws IOException {
        Path file = suite.file().toAbsolutePath().getParent().resolve(patchPath(agent, attempt, task));
        java.nio.file.Files.createDirectories(file.getParent());
        AtomicFile.write(file, patch.getBytes(StandardCharsets.UTF_8));
    }

    /**
     * Points the suite's {@code NAME@k} agents at the patch files of the attempts that left one; a file that is
     * missing or no longer has the stored attempt's sha256 (edited or deleted since) is refused.
     *
     * @param patches task id → (attempt → patch sha256)
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
                Path rel = patchPath(agent.name(), a.getKey(), t.getKey());
                Path p = dir.resolve(rel);
                if (!java.nio.file.Files.isRegularFile(p) || !PromptTemplate.sha256(java.nio.file.Files.readString(p))
                        .equals(a.getValue())) {
                    throw new io.isobench.IsobenchException.BadInput(p + ": missing or changed since attempt "
                            + a.getKey() + " wrote it (fix: restore it, or rerun that attempt in a new agents run)");
                }
                byAttempt.computeIfAbsent(a.getKey(), k -> new LinkedHashMap<>()).put(t.getKey(), rel.toString());
            }
        }
        SuiteAgentsEdit.replaceAttempts(file, agent.name(), agent.model(), byAttempt);
        return file;
    }

    /** The path of an attempt's patch, relative to the suite's folder. */
    static Path patchPath(String agent, int attempt, String task) {
        return Path.of("patches", agent + "@" + attempt, task + ".diff");
    }
}
