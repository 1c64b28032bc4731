package io.isobench.loadgen;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.SplittableRandom;
import java.util.function.ToIntFunction;

/**
 * The datasets ISO-Bench's task commands name beyond random/sharegpt (docs/loadgen.md, "Sonnet" and "Prefix
 * repetition"): vLLM's {@code sonnet} and {@code prefix_repetition}, with vLLM's flags and defaults. Both are seeded
 * by {@code --seed} alone, so every arm of a task gets the same prompts byte for byte ({@link Datasets#digest}).
 */
final class ReplayDatasets {

    /** vLLM's SonnetDataset base instruction, verbatim. */
    static final String SONNET_BASE = "Pick as many lines as you can from these poem lines:\n";

    private ReplayDatasets() {
    }

    /**
     * vLLM's SonnetDataset.sample: the average tokens per poem line sets how many lines fit the budget
     * ({@code round((input_len − base) / avg)}, Python's half-even rounding); the first
     * {@code round((prefix_len − base) / avg)} lines of the file are a prefix every prompt shares; the rest are drawn
     * uniformly with replacement; a draw whose prompt exceeds {@code input_len} tokens is redrawn. Lengths are counted
     * with the tokenizer (special tokens included, as {@code tokenizer(text).input_ids} counts them) or, without one,
     * estimated at 4 characters a token. The prompt is sent unformatted: the chat template is not applied (see
     * docs/loadgen.md for what vLLM does instead).
     */
    static List<Prompt> sonnet(DatasetSpec spec, int count, long seed, BpeTokenizer tk) {
        List<String> lines = poemLines(spec);
        ToIntFunction<String> len = tk == null ? Datasets::estimateTokens : s -> tk.count(s, true);
        double total = 0;
        for (String l : lines) {
            total += len.applyAsInt(l);
        }
        double avg = total / lines.size();
        int base = len.applyAsInt(SONNET_BASE);
        if (spec.inputLen() <= base) {
            throw new IllegalArgumentException("--sonnet-input-len (" + spec.inputLen() + ") must be more than the "
                    + base + " tokens of the base instruction");
        }
        int numInput = (int) Math.rint((spec.inputLen() - base) / avg);
        int numPrefix = Math.min(lines.size(), Math.max((int) Math.rint((spec.prefixLen() - base) / avg), 0));
        StringBuilder head = new StringBuilder(SONNET_BASE);
        for (int i = 0; i < numPrefix; i++) {
            head.append(lines.get(i));
        }
        int extra = Math.max(0, numInput - numPrefix);
        SplittableRandom rng = new SplittableRandom(seed);
        List<Prompt> out = new ArrayList<>(count);
        long tries = 0;
        while (out.size() < count) {
            if (++tries > 1000L + 100L * count) {
                throw new IllegalArgumentException("--dataset-name sonnet: no draw of " + extra + " lines after the "
                        + numPrefix + " prefix lines fits --sonnet-input-len " + spec.inputLen() + " tokens (raise it or"
                        + " lower --sonnet-prefix-len)");
            }
            StringBuilder p = new StringBuilder(head);
            for (int i = 0; i < extra; i++) {
                p.append(lines.get(rng.nextInt(lines.size())));
            }
            String text = p.toString();
            int n = len.applyAsInt(text);
            if (n <= spec.inputLen()) {
                out.add(new Prompt(text, tk == null ? -1 : n, spec.outputLen()));
            }
        }
        return out;
    }

    /** The file's lines, each with its line end kept (Python's {@code readlines()}). */
    static List<String> poemLines(DatasetSpec spec) {
        String text;
        try {
            text = Files.readString(spec.path(), StandardCharsets.UTF_8);
        } catch (NoSuchFileException e) {
            throw new IllegalArgumentException("dataset file " + spec.path() + " does not exist");
        } catch (IOException e) {
            throw new IllegalArgumentException("dataset file " + spec.path() + " cannot be read as UTF-8 text: "
                    + e.getMessage());
        }
        List<String> lines = new ArrayList<>();
        int start = 0;
        for (int i = 0; i < text.length(); i++) {
            if (text.charAt(i) == '\n') {
                lines.add(text.substring(start, i + 1));
                start = i + 1;
            }
        }
        if (start < text.length()) {
            lines.add(text.substring(start));
        }
        if (lines.isEmpty()) {
            throw new IllegalArgumentException("dataset file " + spec.path() + " has no lines");
        }
        return lines;
    }

    /**
     * vLLM's PrefixRepetitionRandomDataset: {@code num_prefixes} random prefixes, {@code count / num_prefixes}
     * requests each (prefix + its own random suffix), shuffled. With a tokenizer the text is single-token words, so
     * prefix and suffix are exact token counts (checked by encoding); without one, random words calibrated at
     * {@code tokensPerWord}. Fewer than {@code count} prompts (a remainder) are cycled to {@code count}.
     */
    static List<Prompt> prefixRepetition(DatasetSpec spec, int count, long seed, double tokensPerWord, BpeTokenizer tk) {
        int perPrefix = count / spec.numPrefixes();
        if (perPrefix == 0) {
            throw new IllegalArgumentException("--prefix-repetition-num-prefixes (" + spec.numPrefixes()
                    + ") is more than the " + count + " prompts to make (fix: raise --num-prompts)");
        }
        String[] pool = tk == null ? null : Datasets.singleTokenWords(tk);
        SplittableRandom rng = new SplittableRandom(seed);
        List<Prompt> out = new ArrayList<>(count);
        for (int p = 0; p < spec.numPrefixes(); p++) {
            String prefix = text(rng, pool, spec.prefixLen(), tokensPerWord);
            for (int j = 0; j < perPrefix; j++) {
                String suffix = text(rng, pool, spec.inputLen(), tokensPerWord);
                String text = tk != null ? Datasets.joined(tk, prefix + suffix)
                        : prefix.isEmpty() || suffix.isEmpty() ? prefix + suffix : prefix + " " + suffix;
                int expected = -1;
                if (tk != null) {
                    int n = tk.count(text, false);
                    if (n != spec.prefixLen() + spec.inputLen()) {
                        throw new IllegalStateException("tokenizer " + tk.source() + ": a prefix-repetition prompt of "
                                + (spec.prefixLen() + spec.inputLen()) + " single-token words encodes to " + n + " tokens");
                    }
                    expected = n + tk.specialTokenCount();
                }
                out.add(new Prompt(text, expected, spec.outputLen()));
            }
        }
        Collections.shuffle(out, new Random(seed));
        for (int i = 0; out.size() < count; i++) {
            out.add(out.get(i));
        }
        return out;
    }

    private static String text(SplittableRandom rng, String[] pool, int tokens, double tokensPerWord) {
        if (tokens == 0) {
            return "";
        }
        return pool != null ? Datasets.pick(rng, pool, tokens)
                : Datasets.words(rng, Math.max(1, (int) Math.round(tokens / tokensPerWord)));
    }
}
