package io.isobench.agent;

import io.isobench.guard.AtomicFile;
import io.isobench.task.AgentSpec;
import io.isobench.task.Suite;
import io.isobench.task.SuiteAgentsEdit;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * The explicit export of an agents run's attempts into a suite file ({@code isobench agents export-suite},
 * {@link StoredAttempts#exportTo}; never a side effect of {@code agents run}): writes the attempts' patches next to the suite ({@code patches/NAME@k/TASK.diff}) and the suite's {@code agents:}
 * entries {@code NAME@1..K} that name them (docs/agents.md). An attempt without a patch (failed, empty) has no entry
 * for its task, so {@code isobench run} has no arm for it; every attempt number 1..K gets an entry. A patch file is
 * bytes, written and checked byte for byte; one that went missing or changed is restored from the store's copy (same
 * sha256), else only its own entry is left out, with a line saying so: one attempt never drops the others.
 */
final class SuiteAgents {

    private SuiteAgents() {
    }

    /**
     * Points the suite's {@code NAME@k} agents at the patch files of the attempts that left one; a file that is
     * missing or no longer has the stored attempt's sha256 (edited or deleted since) is written again from
     * {@code stored} when it has those bytes, else left out of the suite with a line to {@code progress}.
     *
     * @param patches task id → (attempt → patch sha256)
     * @param stored  the stored artifact with a sha256, if any
     * @return the suite file
     */
    static Path write(Suite suite, AgentSpec agent, Map<String, Map<Integer, String>> patches, int attempts,
                      Function<String, Optional<byte[]>> stored, Consumer<String> progress) throws IOException {
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
                if (!a.getValue().equals(sha256(p))) {
                    Optional<byte[]> copy = stored.apply(a.getValue())
                            .filter(b -> AttemptRecords.sha256(b).equals(a.getValue()));
                    if (copy.isEmpty()) {
                        progress.accept("  " + p + ": missing or changed since attempt " + a.getKey() + " wrote it,"
                                + " and the store has no copy: " + agent.name() + "@" + a.getKey() + " has no patch"
                                + " for " + t.getKey() + " (fix: restore the file, or rerun that attempt in a new"
                                + " agents run)");
                        continue;
                    }
                    Files.createDirectories(p.getParent());
                    AtomicFile.writeBytes(p, copy.get());
                    progress.accept("  " + p + ": missing or changed since attempt " + a.getKey() + " wrote it;"
                            + " written again from the store");
                }
                byAttempt.computeIfAbsent(a.getKey(), k -> new LinkedHashMap<>()).put(t.getKey(), rel.toString());
            }
        }
        SuiteAgentsEdit.replaceAttempts(file, agent.name(), agent.model(), byAttempt);
        return file;
    }

    /** The sha256 of file {@code p}'s bytes (read as a stream), or null when it is not a readable regular file. */
    private static String sha256(Path p) {
        if (!Files.isRegularFile(p, LinkOption.NOFOLLOW_LINKS)) {
            return null;
        }
        try (var in = Files.newInputStream(p)) {
            MessageDigest md = MessageDigest.getInstance("SHA-256");
            byte[] buf = new byte[1 << 16];
            int r;
            while ((r = in.read(buf)) >= 0) {
                md.update(buf, 0, r);
            }
            return HexFormat.of().formatHex(md.digest());
        } catch (IOException | NoSuchAlgorithmException e) {
            return null;
        }
    }

    /** The path of an attempt's patch, relative to the suite's folder. */
    static Path patchPath(String agent, int attempt, String task) {
        return Path.of("patches", agent + "@" + attempt, task + ".diff");
    }
}
