package io.isobench.legacy;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.isobench.Mode;
import io.isobench.engine.EngineAdapter;
import io.isobench.engine.Engines;
import io.isobench.parse.OutputParser;
import io.isobench.store.RunRecord;

import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/** A run being extracted from a legacy file, before it becomes a {@link RunRecord}. Mutable, package-private. */
final class RunDraft {

    private static final Pattern ENV_ASSIGNMENT = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*=.*");

    /** A primary-metric candidate: the value as written, and where it came from (raw | json). */
    record Value(RawText.Found found, String origin) {
    }

    String arm;                       // baseline | human | agent
    int index;                        // position inside the file (R2 entries)
    RunRecord.RunKind kind = RunRecord.RunKind.LEGACY;
    String commit;
    RunRecord.RunStatus status = RunRecord.RunStatus.NOT_RUN;
    Mode mode;
    String model;
    Value primary;
    final Map<Mode, Value> byMode = new EnumMap<>(Mode.class);
    Map<String, Long> workload = Map.of();
    boolean servingBlock;
    RawText.Found outputTokS;
    final Map<String, Double> metrics = new LinkedHashMap<>();
    String raw;
    String failureError;              // error text the failure classifier reads (with the status and the raw)
    OutputParser.Truncation truncation = OutputParser.Truncation.NONE;
    /** The engine whose reader and failure lines read the run's output ({@link #engineOf}): vLLM's by default. */
    EngineAdapter engine = Engines.vllm();
    String sourceStatus;
    String sourceError;
    Instant startedAt;
    Double durationMs;
    String engineVersion;
    String envRef;
    final List<String> notes = new ArrayList<>();
    ObjectNode extra = LenientJson.MAPPER.createObjectNode();
    String agentOverride;             // agent named by the file itself (R11/R12 patch path)
    String notRunReason;              // why a NOT_RUN arm never ran ("not run: the baseline arm failed first (…)")
    /** Console text beyond {@link #raw} where the file keeps the cause (stdout/stderr fields, sidecar logs), by label. */
    final Map<String, String> console = new LinkedHashMap<>();

    /**
     * The adapter a legacy run's output is read with (docs/engines.md, "Which adapter"): the one its perf_command's
     * program names ({@link Engines#forCommand} on the command's words split at white space, leading {@code env} and
     * {@code NAME=value} words skipped); vLLM's when the run has no command or its program is no engine's tool.
     */
    static EngineAdapter engineOf(String command) {
        if (command == null || command.isBlank()) {
            return Engines.vllm();
        }
        List<String> words = new ArrayList<>(List.of(command.strip().split("\\s+")));
        while (!words.isEmpty() && (words.get(0).equals("env") || ENV_ASSIGNMENT.matcher(words.get(0)).matches())) {
            words.remove(0);
        }
        return Engines.forCommand(words);
    }
}
