package io.isobench.task;

import io.isobench.engine.Dialect;
import io.isobench.guard.Secrets;

import java.util.Locale;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The perf_command lint: {@link #parse(String)} turns a command line (as ISO-Bench and suites write it) into a
 * {@link ParsedPerfCommand} — tool, mode, model, GPU count, server/client flag split, lint findings — without ever
 * running a shell. The command's flags are read in the dialect of the engine adapter whose tool it runs
 * ({@code engine.Engines#forCommand}: vLLM's, SGLang's; vLLM's when none claims it; docs/engines.md).
 */
public final class PerfCommand {

    /**
     * What the task says about itself, checked against the command: the task's model, its mode label
     * ({@code serving|throughput|latency|prefix_caching}, or ISO-Bench's {@code standalone}) and its GPU count.
     * Any of them may be null.
     */
    public record Hints(String model, String modeLabel, Integer gpus) {
        public static final Hints NONE = new Hints(null, null, null);
    }

    private static final Pattern NUMBER = Pattern.compile("-?\\d+(\\.\\d+)?([eE][-+]?\\d+)?");
    static final Set<String> DATASET_FILE_NAMES = Set.of("sharegpt", "sonnet", "custom", "burstgpt", "timed_trace",
            "timed-trace");

    private PerfCommand() {
    }

    public static ParsedPerfCommand parse(String raw) {
        return parse(raw, Hints.NONE);
    }

    public static ParsedPerfCommand parse(String raw, Hints hints) {
        return new PerfCommandParser(raw, hints == null ? Hints.NONE : hints).run();
    }

    /** A command line with its secrets hidden ({@link Secrets}, the one redactor). */
    public static String redact(String text) {
        return Secrets.redact(text);
    }

    static boolean usable(String model) {
        return model != null && !model.isBlank() && !model.trim().equalsIgnoreCase("unknown")
                && !model.trim().equalsIgnoreCase("n/a");
    }

    static boolean isFlagLike(String t) {
        return t.length() > 1 && t.startsWith("-") && !NUMBER.matcher(t).matches();
    }

    /** A known flag of the dialect that is not a boolean. */
    static boolean needsValue(Dialect dialect, String canonical) {
        return !dialect.isBoolean(canonical) && !dialect.isOptionalBoolean(canonical)
                && dialect.known().contains(canonical);
    }

    static boolean isInt(String v, int min) {
        try {
            return Integer.parseInt(v.trim()) >= min;
        } catch (NumberFormatException e) {
            return false;
        }
    }

    static boolean isDatasetFlag(String name) {
        return name.equals("--dataset-path") || name.equals("--dataset");
    }

    static boolean isLocalFile(String path, String datasetName) {
        if (path.startsWith("/") || path.startsWith("~") || path.startsWith("./") || path.startsWith("../")) {
            return true;
        }
        if (path.startsWith("benchmarks/")) {
            return false; // shipped with the engine repo (e.g. benchmarks/sonnet.txt)
        }
        String lower = path.toLowerCase(Locale.ROOT);
        if (lower.matches(".*\\.(json|jsonl|csv|txt|parquet|arrow|tsv)$")) {
            return true;
        }
        return datasetName != null && DATASET_FILE_NAMES.contains(datasetName.toLowerCase(Locale.ROOT));
    }

    static boolean isUserPath(String p) {
        return p.startsWith("~") || p.matches("/(home|Users|root|data|mnt|scratch|workspace|nfs)/.*");
    }

    static String baseName(String p) {
        int slash = p.lastIndexOf('/');
        return slash < 0 ? p : p.substring(slash + 1);
    }
}
