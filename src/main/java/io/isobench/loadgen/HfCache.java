package io.isobench.loadgen;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Finds a model's {@code tokenizer.json} in a local HuggingFace hub cache, as a site with a warm cache has it:
 * {@code --tokenizer ORG/NAME} (or {@code --model ORG/NAME}, vLLM's default tokenizer) is
 * {@code HUB/models--ORG--NAME/snapshots/REV/tokenizer.json}, where HUB is {@code $HF_HUB_CACHE}, else
 * {@code $HF_HOME/hub}, else {@code ~/.cache/huggingface/hub} (huggingface_hub's rule), and REV is the snapshot
 * {@code refs/main} names when it has the file, else the only or newest snapshot (by modification time) that has it.
 * Nothing is downloaded.
 */
final class HfCache {

    private static final Pattern REPO_ID = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]*/[A-Za-z0-9][A-Za-z0-9._-]*");

    /** A lookup's outcome: the file (null when absent) and the paths tried, for a one-line message. */
    record Lookup(Path tokenizerJson, List<Path> tried) {
        /** "tried A, B" for a warning. */
        String triedText() {
            return "tried " + String.join(", ", tried.stream().map(Path::toString).toList());
        }
    }

    private HfCache() {
    }

    /** True for an {@code ORG/NAME} hub id (not a path that exists, not an absolute or dotted path). */
    static boolean isRepoId(String s) {
        return REPO_ID.matcher(s).matches() && !s.contains("..") && !Files.exists(Path.of(s));
    }

    /** The hub cache folder: {@code HF_HUB_CACHE}, else {@code HF_HOME/hub}, else {@code userHome/.cache/huggingface/hub}. */
    static Path hubDir(Map<String, String> env, String userHome) {
        String hub = env.get("HF_HUB_CACHE");
        if (hub != null && !hub.isBlank()) {
            return Path.of(hub);
        }
        String home = env.get("HF_HOME");
        return (home != null && !home.isBlank() ? Path.of(home) : Path.of(userHome, ".cache", "huggingface"))
                .resolve("hub");
    }

    /** The hub cache folder of this process (its environment and {@code user.home}). */
    static Path hubDir() {
        return hubDir(System.getenv(), System.getProperty("user.home"));
    }

    /** Looks {@code repoId} up under {@code hub}. */
    static Lookup find(String repoId, Path hub) {
        Path repo = hub.resolve("models--" + repoId.replace("/", "--"));
        Path snapshots = repo.resolve("snapshots");
        List<Path> tried = new ArrayList<>();
        Path ref = repo.resolve("refs").resolve("main");
        if (Files.isRegularFile(ref)) {
            try {
                String rev = Files.readString(ref).strip();
                Path f = snapshots.resolve(rev).resolve("tokenizer.json");
                tried.add(f);
                if (!rev.isEmpty() && !rev.contains("/") && Files.isRegularFile(f)) {
                    return new Lookup(f, tried);
                }
            } catch (IOException e) {
                tried.add(ref);
            }
        }
        tried.add(snapshots.resolve("*").resolve("tokenizer.json"));
        Path best = null;
        FileTime bestTime = null;
        if (Files.isDirectory(snapshots)) {
            try (Stream<Path> s = Files.list(snapshots)) {
                for (Path snap : s.sorted().toList()) {
                    Path f = snap.resolve("tokenizer.json");
                    if (Files.isRegularFile(f)) {
                        FileTime t = Files.getLastModifiedTime(snap);
                        if (best == null || t.compareTo(bestTime) > 0) {
                            best = f;
                            bestTime = t;
                        }
                    }
                }
            } catch (IOException e) {
                return new Lookup(null, tried);
            }
        }
        return new Lookup(best, tried);
    }
}
