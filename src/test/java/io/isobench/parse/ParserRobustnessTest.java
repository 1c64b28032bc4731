package io.isobench.parse;

import org.junit.jupiter.api.parallel.Isolated;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.Size;
import net.jqwik.api.constraints.StringLength;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * No parser throws or hangs, whatever the input: random bytes, random strings, strings built from real block
 * fragments. Each parse must finish well under a second (the regexes are linear by construction).
 */
@Isolated("it bounds measured parse times: nothing runs beside it (ItLocks)")
class ParserRobustnessTest {

    /**
     * A hang guard, not a performance target (that is what benchmarks are for): linear-time parsing takes well under
     * a second here; catastrophic backtracking or an endless loop takes minutes or forever.
     */
    static final long LIMIT_MS = 30_000;

    static final List<String> FRAGMENTS = List.of(
            "============ Serving Benchmark Result ============", "==================================================",
            "Successful requests:                     100       ", "Benchmark duration (s):                  0.89      ",
            "Total input tokens:                      23958     ", "Total generated tokens:                  6400      ",
            "Request throughput (req/s):              112.16    ", "Output token throughput (tok/s):         7178.39   ",
            "Total Token throughput (tok/s):          34050.26  ", "Input token throughput (tok/s):          8056.06   ",
            "---------------Time to First Token----------------", "Mean TTFT (ms):                          156.72    ",
            "P99 TTFT (ms):                           213.92    ", "Mean TPOT (ms):                          11.32     ",
            "Std ITL (ms): nan", "P99.9 E2EL (ms): 1e309", "Mean TPOT (ms):", "Mean TPOT (ms): 1.2.3",
            "Throughput: 10.49 requests/s, 4611.33 tokens/s", "Throughput: 50.08 requests/s, 19152.84 total tokens/s, 6410.83 output tokens/s",
            "Total num prompt tokens:  25441", "Total num output tokens:  12800", "Throughput: ", "requests/s, ",
            "Avg latency: 3.2030584950697083 seconds", "99% percentile latency: 1e-05 seconds", "100% percentile latency: 1 seconds",
            "------start generating------", "------warm up------", "cost time 6.09",
            "Processed prompts: 100%|██████████| 100/100 [00:05<00:00, 16.74it/s, est. speed input: 10794.96 toks/s, output: 3347.27 toks/s]",
            "est. speed input: ", " toks/s, output: ", "%|", "]", "[", "|", "\r", "\n", "\r\n", "\t", " ", "",
            "\u001B[1;36m", "\u001B[0;0m", "\u001B]0;title\u0007", "\u001B", "\u001B[", "\u009B31m",
            "{\"impl_tag\": \"child\", \"avg_ms\": 1.2286713695526124, \"p50_ms\": 1.2264000177383423}",
            "{\"impl_tag\": \"child\", \"error\": \"boom\"}", "{\"avg_ms\": }", "{", "}", "\"avg_ms\"",
            "[rank0]: torch.cuda.OutOfMemoryError: CUDA out of memory.", "SERVER_CRASHED",
            "ValueError: Unknown RoPE scaling type llama3", "no space left on device", "Broken pipe",
            "Never received a valid chunk", "Command '['git', 'reset', '--hard', 'HEAD']' timed out after 60 seconds",
            "ERROR:    [Errno 98] error while attempting to bind on address ('0.0.0.0', 8000): address already in use",
            "Authorization: Bearer abc", "hf_abcdefghijklmnopqrstuvwxyz", "123456789", "0.", ".5", "-", "e", "E+",
            "AttributeError: X has no attribute y", "triton compilation error", "build timed out");

    @Provide
    Arbitrary<String> fragmentText() {
        return Arbitraries.of(FRAGMENTS).list().ofMinSize(0).ofMaxSize(120)
                .flatMap(parts -> Arbitraries.of("\n", "", "\r", " ").list().ofSize(parts.size()).map(seps -> {
                    StringBuilder b = new StringBuilder();
                    for (int i = 0; i < parts.size(); i++) {
                        b.append(parts.get(i)).append(seps.get(i));
                    }
                    return b.toString();
                }));
    }

    static void parseAllWays(String text) {
        ParsedOutput p = timed(text, "parse", () -> OutputParser.parse(text));
        assertNoInternalError(p);
        for (OutputParser.Truncation t : OutputParser.Truncation.values()) {
            assertNoInternalError(timed(text, "parse " + t, () -> OutputParser.parse(text, t)));
        }
        // the defensive catch-alls must never be what answers
        timed(text, "classify", () -> FailureClassifier.classify(text))
                .ifPresent(f -> assertThat(f.detail()).doesNotStartWith("classifier error"));
        // error and raw both hold the text: twice the input, twice the allowance
        timed(text, "classify with hints", 2, () -> FailureClassifier.classify("error", text, text))
                .ifPresent(f -> assertThat(f.detail()).doesNotStartWith("classifier error"));
        timed(text, "save-result", () -> SaveResultParser.parse(text));
        assertThat(p.metrics()).allMatch(m -> Double.isFinite(m.value()) && MetricDictionary.lookup(m.name()) != null);
        assertThat(p.evidence().keySet()).containsExactlyInAnyOrderElementsOf(p.metrics().stream().map(Metric::name).toList());
    }

    static void assertNoInternalError(ParsedOutput p) {
        assertThat(p.warnings()).noneMatch(w -> w.startsWith("parser error"));
    }

    /** Each single call must finish (no hang), even for 5 MB of hostile text. */
    static <T> T timed(String text, String what, Supplier<T> call) {
        return timed(text, what, 1, call);
    }

    static <T> T timed(String text, String what, int inputs, Supplier<T> call) {
        long t0 = System.nanoTime();
        T result = call.get();
        long ms = (System.nanoTime() - t0) / 1_000_000;
        assertThat(ms).as("%s of %d chars took %d ms", what, text.length(), ms).isLessThan(inputs * LIMIT_MS);
        return result;
    }

    @Property(tries = 300)
    void fragmentsOfRealBlocks(@ForAll("fragmentText") String text) {
        parseAllWays(text);
    }

    @Property(tries = 300)
    void randomStrings(@ForAll @StringLength(max = 3000) String text) {
        parseAllWays(text);
    }

    @Property(tries = 200)
    void randomBytes(@ForAll @Size(max = 4000) byte[] bytes) {
        parseAllWays(new String(bytes, StandardCharsets.UTF_8));
        parseAllWays(new String(bytes, StandardCharsets.ISO_8859_1));
    }

    @Property(tries = 12)
    void hugeSingleLines(@ForAll("hugeLine") String text) {
        // steady-state timing: let the JIT compile the scanning loops on a smaller sample of the same text first
        String warmUp = text.substring(0, text.length() / 5);
        OutputParser.parse(warmUp);
        FailureClassifier.classify("error", warmUp, warmUp);
        parseAllWays(text);
    }

    static final int FIVE_MB = 5 * 1024 * 1024;

    @Provide
    Arbitrary<String> hugeLine() {
        Map<String, String> seeds = Map.ofEntries(
                Map.entry("letters", "a"), Map.entry("digits", "1"), Map.entry("spaces", " "), Map.entry("equals", "="),
                Map.entry("bars", "%|]"), Map.entry("cr", "\r"), Map.entry("esc", "\u001B["), Map.entry("osc", "\u001B]"),
                Map.entry("header", "============ Serving Benchmark Result ============"),
                Map.entry("speed", "est. speed input: 1 toks/s, output: 2 toks/s"), Map.entry("git", "['git'"),
                Map.entry("cuda", "CUDA "), Map.entry("json", "{\"avg_ms\": 1, "), Map.entry("throughput", "Throughput: 1"),
                Map.entry("label", "Mean TPOT (ms): "), Map.entry("pct", "99% percentile latency: "));
        return Arbitraries.of(seeds.values()).flatMap(seed -> Arbitraries.of("", "Throughput: ", "Mean TPOT (ms): ",
                "============ Serving Benchmark Result ============\n", "{", "------start generating------\n")
                .map(prefix -> prefix + seed.repeat(FIVE_MB / seed.length()) + "x"));
    }
}
