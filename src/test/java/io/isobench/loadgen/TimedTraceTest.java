package io.isobench.loadgen;

import io.isobench.Golden;
import io.isobench.SharedData;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Timed traces read, windowed, scaled and turned into prompts ({@link TraceFile}, {@link TimedTrace}). The fixtures
 * are written by hand for these rules: {@code src/test/resources/timed-trace/small.jsonl} (Mooncake format, 4-token
 * blocks when read here: shared, cut and over-long hash ids, a record without any, a blank line) and
 * {@code azure.csv} (Azure's columns and datetimes).
 */
class TimedTraceTest {

    static final Path SMALL = Path.of("src/test/resources/timed-trace/small.jsonl");
    static final Path AZURE = Path.of("src/test/resources/timed-trace/azure.csv");
    static final DatasetSpec.Trace BLOCK4 = new DatasetSpec.Trace(4, 0.001, 1.0, 0.0, Double.POSITIVE_INFINITY,
            DatasetSpec.Labels.DEFAULT);

    @Test
    void parsedRequestsWindowsAndOffsetsMatchTheGolden() throws IOException {
        List<TimedTrace.Request> all = TraceFile.read(SMALL, BLOCK4);
        StringBuilder sb = new StringBuilder("# small.jsonl, --timed-trace-sec-multiplier 0.001\n");
        for (TimedTrace.Request r : all) {
            sb.append(line(r));
        }
        sb.append("# offsets (ns), whole trace, speed-up 1\n").append(Arrays.toString(TimedTrace.offsetsNs(all, 1.0)))
                .append('\n');
        DatasetSpec.Trace w = new DatasetSpec.Trace(4, 0.001, 2.0, 0.5, 3.0, DatasetSpec.Labels.DEFAULT);
        List<TimedTrace.Request> win = TimedTrace.window(all, w, 1000, SMALL);
        sb.append("# window --trace-start 0.5 --trace-duration 3 (trace seconds), then --trace-speedup 2\n");
        for (TimedTrace.Request r : win) {
            sb.append(line(r));
        }
        sb.append(Arrays.toString(TimedTrace.offsetsNs(win, w.speedup()))).append('\n');
        Golden.check(Path.of("src/test/resources/timed-trace/small.parsed.txt"), sb.toString());
    }

    private static String line(TimedTrace.Request r) {
        return String.format(Locale.ROOT, "line=%d trace_s=%.3f in=%d out=%d hash_ids=%s%n", r.line(), r.traceS(),
                r.inputLen(), r.outputLen(), Arrays.toString(r.hashIds()));
    }

    @Test
    void windowSpeedupAndNumPromptsMaths() {
        List<TimedTrace.Request> all = TraceFile.read(SMALL, BLOCK4);
        // trace seconds 0, 0.5, 0.5, 1.75, 3, 5 (the first record is 0; 1 ms = 0.001 s)
        assertThat(all).extracting(TimedTrace.Request::traceS).containsExactly(0.0, 0.5, 0.5, 1.75, 3.0, 5.0);
        assertThat(TimedTrace.offsetsNs(all, 4.0)).containsExactly(0L, 125_000_000L, 125_000_000L, 437_500_000L,
                750_000_000L, 1_250_000_000L);
        // [start, start + duration): 3.0 is out of [0.5, 3.0); offsets start at the window's first request
        DatasetSpec.Trace w = new DatasetSpec.Trace(4, 0.001, 1.0, 0.5, 2.5, DatasetSpec.Labels.DEFAULT);
        List<TimedTrace.Request> win = TimedTrace.window(all, w, 1000, SMALL);
        assertThat(win).extracting(TimedTrace.Request::line).containsExactly(2, 4, 5);
        assertThat(TimedTrace.offsetsNs(win, 1.0)).containsExactly(0L, 0L, 1_250_000_000L);
        // --num-prompts takes the first records of the window (vLLM: the first N records, never more)
        assertThat(TimedTrace.window(all, BLOCK4, 2, SMALL)).extracting(TimedTrace.Request::line).containsExactly(1, 2);
        // a multiplier of 1 reads the same numbers as seconds (vLLM's default)
        DatasetSpec.Trace secs = new DatasetSpec.Trace(4, 1.0, 1.0, 0, Double.POSITIVE_INFINITY, DatasetSpec.Labels.DEFAULT);
        assertThat(TraceFile.read(SMALL, secs).get(5).traceS()).isEqualTo(5000.0);
        assertThatThrownBy(() -> TimedTrace.window(all, new DatasetSpec.Trace(4, 0.001, 1, 6.0, 1.0,
                DatasetSpec.Labels.DEFAULT), 10, SMALL)).hasMessageContaining("no record in the window --trace-start 6.0 s")
                .hasMessageContaining("fix:");
    }

    @Test
    void sameHashIdSameBlockDifferentHashIdDifferentBlock() {
        List<Prompt> p = TimedTrace.prompts(TraceFile.read(SMALL, BLOCK4), 4, 7, 1.0, null);
        String[][] w = p.stream().map(x -> x.text().split(" ")).toArray(String[][]::new);
        assertThat(Arrays.stream(w).mapToInt(a -> a.length)).containsExactly(10, 6, 12, 3, 9, 5); // input lengths, 1 word = 1 token
        // block 1 opens requests 1, 2, 3 and 5; blocks 1+2 open requests 1 and 3
        assertThat(slice(w[1], 0, 4)).isEqualTo(slice(w[0], 0, 4)).isEqualTo(slice(w[4], 0, 4));
        assertThat(slice(w[2], 0, 8)).isEqualTo(slice(w[0], 0, 8));
        // the last block is cut: request 1's 2 words of block 3 are not request 3's block 5
        assertThat(slice(w[2], 8, 10)).isNotEqualTo(slice(w[0], 8, 10));
        // block 4 (request 2) is not block 2 (request 1)
        assertThat(slice(w[1], 4, 6)).isNotEqualTo(slice(w[0], 4, 6));
        // more hash ids than the input needs: the first ones, cut (block 6's first 3 words)
        assertThat(w[3]).hasSize(3);
        // a request's own tokens beyond its blocks, and a request without hash ids, are its own
        assertThat(slice(w[4], 4, 9)).isNotEqualTo(slice(w[0], 4, 9));
        assertThat(p).extracting(Prompt::outputLen).containsExactly(3, 2, 5, 1, 4, 2);
        assertThat(p).extracting(Prompt::expectedInputTokens).containsExactly(10, 6, 12, 3, 9, 5);
        // seeded: the same seed, the same bytes; another seed, other text
        assertThat(TimedTrace.prompts(TraceFile.read(SMALL, BLOCK4), 4, 7, 1.0, null)).isEqualTo(p);
        assertThat(TimedTrace.prompts(TraceFile.read(SMALL, BLOCK4), 4, 8, 1.0, null).get(0).text())
                .isNotEqualTo(p.get(0).text());
        // a block is the same text wherever the window starts (seeded by the hash id, not by position)
        DatasetSpec.Trace late = new DatasetSpec.Trace(4, 0.001, 1.0, 0.5, Double.POSITIVE_INFINITY, DatasetSpec.Labels.DEFAULT);
        List<Prompt> q = TimedTrace.prompts(TimedTrace.window(TraceFile.read(SMALL, late), late, 100, SMALL), 4, 7, 1.0, null);
        assertThat(q.get(1).text()).isEqualTo(p.get(2).text());
    }

    private static List<String> slice(String[] a, int from, int to) {
        return Arrays.asList(a).subList(from, to);
    }

    @Test
    void withTheFixtureTokenizerEveryPromptIsExactlyItsInputLength() {
        BpeTokenizer tk = BpeTokenizer.load(SharedData.require("fixtures/tiny-llama-hf/tokenizer.json"));
        List<TimedTrace.Request> all = TraceFile.read(SMALL, BLOCK4);
        List<Prompt> p = TimedTrace.prompts(all, 4, 0, 1.0, tk);
        for (int i = 0; i < p.size(); i++) {
            assertThat(tk.count(p.get(i).text(), false)).isEqualTo(all.get(i).inputLen());
            assertThat(p.get(i).expectedInputTokens()).isEqualTo(all.get(i).inputLen() + tk.specialTokenCount());
        }
        // shared blocks are shared text: request 3 begins with request 1's first two blocks
        String a = p.get(0).text();
        String b = p.get(2).text();
        int common = 0;
        while (common < Math.min(a.length(), b.length()) && a.charAt(common) == b.charAt(common)) {
            common++;
        }
        assertThat(tk.count(a.substring(0, common), false)).isGreaterThanOrEqualTo(8);
    }

    @Test
    void azureCsvIsOneMappingAway() {
        List<TimedTrace.Request> a = TraceFile.read(AZURE, DatasetSpec.Trace.DEFAULT);
        assertThat(a).extracting(TimedTrace.Request::line).containsExactly(2, 3, 4, 5);
        assertThat(TimedTrace.offsetsNs(a, 1.0)).containsExactly(0L, 4_314_579_000L, 4_314_579_000L, 5_419_410_000L);
        assertThat(a).extracting(TimedTrace.Request::inputLen).containsExactly(374, 396, 879, 12);
        assertThat(a).extracting(TimedTrace.Request::outputLen).containsExactly(44, 109, 30, 1);
        assertThat(a).allSatisfy(r -> assertThat(r.hashIds()).isEmpty());
        List<Prompt> p = TimedTrace.prompts(a, 512, 0, 1.0, null);
        assertThat(p.get(0).text().split(" ")).hasSize(374);
        assertThat(p.get(1).text()).doesNotStartWith(p.get(0).text().substring(0, 40)); // no shared blocks
    }

    @Test
    void badRecordsAreOneLineErrorsNamingFileLineAndFix(@TempDir Path dir) throws IOException {
        assertBad(dir, "{\"timestamp\": 0, \"input_length\": 4, \"output_length\": 1}\nnot json\n",
                "line 2 is not a JSON object");
        assertBad(dir, "{\"timestamp\": 0, \"output_length\": 1, \"hash_ids\": [1]}\n",
                "line 1 has no \"input_length\"", "--timed-trace-label-input-length");
        assertBad(dir, "{\"timestamp\": 0, \"input_length\": 4, \"output_length\": -3}\n",
                "line 1 has \"output_length\" -3, not a whole number of tokens >= 1");
        assertBad(dir, "{\"timestamp\": 5, \"input_length\": 4, \"output_length\": 1}\n"
                        + "{\"timestamp\": 4, \"input_length\": 4, \"output_length\": 1}\n",
                "line 2 has \"timestamp\" 4, earlier than line 1's 5", "sort the file by timestamp");
        assertBad(dir, "{\"input_length\": 4, \"output_length\": 1}\n", "line 1 has no numeric \"timestamp\"",
                "--timed-trace-label-timestamp");
        assertBad(dir, "{\"timestamp\": 0, \"input_length\": 4, \"output_length\": 1, \"hash_ids\": \"1,2\"}\n",
                "line 1 has \"hash_ids\" that is not an array of integers");
        assertBad(dir, "time,in,out\n1,2,3\n", "line 1 is neither a JSON object (Mooncake JSONL) nor an Azure CSV");
        assertBad(dir, "TIMESTAMP,ContextTokens,GeneratedTokens\nyesterday,3,4\n", "line 2 has TIMESTAMP 'yesterday'");
        assertBad(dir, "\n\n", "has no records");
        assertThatThrownBy(() -> TraceFile.read(dir.resolve("absent.jsonl"), BLOCK4)).hasMessageContaining("does not exist");
        // the label flags rename the fields
        Path f = dir.resolve("renamed.jsonl");
        Files.writeString(f, "{\"ts\": 7, \"isl\": 4, \"osl\": 2, \"blocks\": [3]}\n");
        List<TimedTrace.Request> r = TraceFile.read(f, new DatasetSpec.Trace(4, 0.001, 1, 0, Double.POSITIVE_INFINITY,
                new DatasetSpec.Labels("ts", "isl", "osl", "blocks")));
        assertThat(r.get(0).inputLen()).isEqualTo(4);
        assertThat(r.get(0).hashIds()).containsExactly(3L);
    }

    @Test
    void anOffsetNoReplayCanWaitForIsRefusedBeforeAnythingIsSent(@TempDir Path dir) throws IOException {
        // a trace in microseconds read as milliseconds is 1,000 times longer; one stamped past 2^62 ns would hang
        // the replay for centuries (the scheduler's sum with nanoTime wraps soon after): refused, naming the line
        for (String ts : List.of("1e16", "4611686018427387904")) {
            Path f = dir.resolve("far-" + ts + ".jsonl");
            Files.writeString(f, "{\"timestamp\": 0, \"input_length\": 4, \"output_length\": 1}\n"
                    + "{\"timestamp\": 1, \"input_length\": 4, \"output_length\": 1}\n"
                    + "{\"timestamp\": " + ts + ", \"input_length\": 4, \"output_length\": 1}\n");
            List<TimedTrace.Request> all = TraceFile.read(f, BLOCK4);
            assertThatThrownBy(() -> TimedTrace.window(all, BLOCK4, 1000, f))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageStartingWith("trace " + f + " line 3: its send offset is ")
                    .hasMessageContainingAll("beyond the 146 years a replay can schedule", "--timed-trace-sec-multiplier")
                    .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n"));
            // the records before it replay: a window that ends before it is fine
            assertThat(TimedTrace.window(all, BLOCK4, 2, f)).hasSize(2);
        }
        // past a double's range: no trace time at all, refused as a bad record (not dropped from the window)
        assertBad(dir, "{\"timestamp\": 0, \"input_length\": 4, \"output_length\": 1}\n"
                + "{\"timestamp\": 1e400, \"input_length\": 4, \"output_length\": 1}\n",
                "line 2 has \"timestamp\" 1E+400, past any time a replay can reach", "--timed-trace-sec-multiplier");
        assertBad(dir, "TIMESTAMP,ContextTokens,GeneratedTokens\n1700-01-01 00:00:00,3,4\n2260-01-01 00:00:00,3,4\n",
                "line 3 has TIMESTAMP 2260-01-01 00:00:00, more than 292 years after the first row's");
        // the bound holds after the speed-up: 100 years replays at speed 1 and is refused slowed down 2x
        Path f = dir.resolve("century.jsonl");
        Files.writeString(f, "{\"timestamp\": 0, \"input_length\": 4, \"output_length\": 1}\n"
                + "{\"timestamp\": 3155760000000, \"input_length\": 4, \"output_length\": 1}\n");
        List<TimedTrace.Request> all = TraceFile.read(f, BLOCK4);
        assertThat(TimedTrace.offsetsNs(TimedTrace.window(all, BLOCK4, 1000, f), 1.0))
                .containsExactly(0L, 3_155_760_000_000_000_000L);
        DatasetSpec.Trace slow = new DatasetSpec.Trace(4, 0.001, 0.5, 0, Double.POSITIVE_INFINITY,
                DatasetSpec.Labels.DEFAULT);
        assertThatThrownBy(() -> TimedTrace.window(all, slow, 1000, f)).hasMessageContaining("/ --trace-speedup 0.5");
    }

    @Test
    void aByteOrderMarkBeforeTheFirstRecordIsNotData(@TempDir Path dir) throws IOException {
        String body = "{\"timestamp\": 0, \"input_length\": 4, \"output_length\": 1}\r\n"
                + "{\"timestamp\": 2, \"input_length\": 4, \"output_length\": 1, \"hash_ids\": [7]}\r\n";
        Path plain = dir.resolve("plain.jsonl");
        Path marked = dir.resolve("marked.jsonl");
        Files.writeString(plain, body);
        Files.writeString(marked, "\uFEFF" + body);
        List<TimedTrace.Request> a = TraceFile.read(plain, BLOCK4);
        List<TimedTrace.Request> b = TraceFile.read(marked, BLOCK4);
        assertThat(b).hasSize(2);
        assertThat(b).extracting(TimedTraceTest::line).isEqualTo(a.stream().map(TimedTraceTest::line).toList());
        Path csv = dir.resolve("marked.csv");
        Files.writeString(csv, "\uFEFFTIMESTAMP,ContextTokens,GeneratedTokens\r\n2023-11-16 18:15:46.6805900,3,4\r\n");
        assertThat(TraceFile.read(csv, BLOCK4)).extracting(TimedTrace.Request::inputLen).containsExactly(3);
    }

    private static void assertBad(Path dir, String content, String... expected) throws IOException {
        Path f = Files.createTempFile(dir, "trace", ".jsonl");
        Files.writeString(f, content);
        assertThatThrownBy(() -> TraceFile.read(f, BLOCK4)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("trace file " + f).hasMessageContainingAll(expected)
                .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n"));
    }

    @Test
    void aLinesOwnTokensAreNeverAHashIdsBlock(@TempDir Path dir) throws IOException {
        // line 2 pads with its own tokens; hash id 2 names a block: at seed 0 they must still differ
        Path f = dir.resolve("t.jsonl");
        Files.writeString(f, "{\"timestamp\": 0, \"input_length\": 8, \"output_length\": 1, \"hash_ids\": [2]}\n"
                + "{\"timestamp\": 1, \"input_length\": 8, \"output_length\": 1}\n");
        List<Prompt> p = TimedTrace.prompts(TraceFile.read(f, BLOCK4), 8, 0, 1.0, null);
        assertThat(p.get(1).text()).isNotEqualTo(p.get(0).text());
        assertThat(TimedTrace.key(0, 1, 2)).isNotEqualTo(TimedTrace.key(0, 2, 2)).isNotEqualTo(TimedTrace.key(1, 1, 2));
    }

    @Test
    void scheduleDigestChangesWithAnyOffset() {
        assertThat(TimedTrace.scheduleSha256(new long[] {0, 5})).isEqualTo(TimedTrace.scheduleSha256(new long[] {0, 5}))
                .isNotEqualTo(TimedTrace.scheduleSha256(new long[] {0, 6}))
                .isNotEqualTo(TimedTrace.scheduleSha256(new long[] {0, 5, 5}));
    }
}
