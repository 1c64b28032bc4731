package io.isobench.parse;

import io.isobench.Mode;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * <b>The one console-text mode detector</b>: which benchmark mode a console output shows (legacy-import.md
 * "Mode", R3/R4/R5). Modes are tried in {@link #ORDER}: a serving result header, an {@code Avg latency: … seconds}
 * line, a {@code Throughput: … requests/s} line, an {@code est. speed input} or {@code start generating} line.
 * Matching is case-insensitive; lines are split on {@code \n} only.
 *
 * <p>{@link OutputParser} picks the mode of its metrics in the same order, counting a mode only when its lines gave
 * metrics (a header without rows, or a {@code start generating} marker without an {@code est. speed} line, shows a
 * mode here but gives no metrics there). On every raw console text of the legacy trees both answers agree.
 */
public final class ConsoleMode {

    /** The precedence of the modes a console can show, first wins. */
    static final List<Mode> ORDER = List.of(Mode.SERVING, Mode.LATENCY, Mode.THROUGHPUT, Mode.PREFIX_CACHING);

    private static final int F = Pattern.MULTILINE | Pattern.UNIX_LINES | Pattern.CASE_INSENSITIVE;
    private static final Map<Mode, Pattern> SIGNS = Map.of(
            Mode.SERVING, Pattern.compile("=+ Serving Benchmark Result =+", F),
            Mode.LATENCY, Pattern.compile("Avg latency: [0-9.eE+-]+ seconds", F),
            Mode.THROUGHPUT, Pattern.compile("Throughput: [0-9.]+ requests/s", F),
            Mode.PREFIX_CACHING, Pattern.compile("est\\. speed input|start generating", F));

    private ConsoleMode() {
    }

    /** The mode the console text shows, or empty when it shows none (null text: none). */
    public static Optional<Mode> of(String text) {
        if (text == null) {
            return Optional.empty();
        }
        for (Mode m : ORDER) {
            if (SIGNS.get(m).matcher(text).find()) {
                return Optional.of(m);
            }
        }
        return Optional.empty();
    }
}
