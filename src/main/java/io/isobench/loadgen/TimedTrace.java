package io.isobench.loadgen;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.IOException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.SplittableRandom;

/**
 * A timed trace ({@code --dataset-name timed-trace}, vLLM's {@code timed_trace}): each record of the file is one
 * request with its own send offset, input length, output length and, in the Mooncake format, the hash ids of its
 * prompt's blocks. Guarantees, for the same file, flags and seed: the same records in the same order, the same
 * offsets to the nanosecond and the same prompts byte for byte (so every arm replays the same work); a hash id is
 * the same block of text wherever it appears (shared prefixes hit the server's prefix cache as in production); a bad
 * record is a one-line {@link IllegalArgumentException} naming the file, the line and the fix, before anything is
 * sent. The rules are docs/loadgen.md's "timed-trace" entry; {@link TraceFile} reads the two formats.
 */
final class TimedTrace {

    /** Decimals as {@link BigDecimal}: a stamp keeps every digit, and one past a double's range is a number, not ∞. */
    static final ObjectMapper JSON = new ObjectMapper().enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS);

    /** Domains of the generator seeds: a hash id's block and a line's own tokens never share a stream. */
    private static final long BLOCK_DOMAIN = 0x9E3779B97F4A7C15L;
    private static final long OWN_DOMAIN = 0xC2B2AE3D27D4EB4FL;

    /**
     * The latest send offset a replay schedules: 2^62 ns, about 146 years (an offset is added to a {@code nanoTime},
     * so it stays well inside a {@code long}); anything later is a unit mistake, refused before anything is sent.
     */
    static final double MAX_OFFSET_NS = 0x1p62;
    private static final long MAX_OFFSET_YEARS = (long) (MAX_OFFSET_NS / 1e9 / 86_400 / 365.25);

    private TimedTrace() {
    }

    /**
     * One request of the trace.
     *
     * @param line        the file's line number (1-based): a request's own tokens are seeded by it
     * @param traceS      seconds since the file's first record (numeric timestamps: times the sec multiplier)
     * @param inputLen    input tokens
     * @param outputLen   output tokens ({@code max_tokens})
     * @param hashIds     the prompt's blocks, in order (empty: no shared blocks)
     */
    record Request(int line, double traceS, int inputLen, int outputLen, long[] hashIds) {
    }

    /** What a run replays: the prompts (warm-ups last) and each measured request's intended offset in ns. */
    record Replay(List<Prompt> prompts, long[] offsetsNs) {
    }

    /**
     * The requests a run replays: the records inside the window ({@code startS ≤ traceS < startS + durationS}), at
     * most {@code maxRequests} of them (the first ones, as vLLM takes the first {@code --num-prompts} records).
     */
    static List<Request> window(List<Request> all, DatasetSpec.Trace t, int maxRequests, Path file) {
        List<Request> out = new ArrayList<>();
        for (Request r : all) {
            if (out.size() >= maxRequests) {
                break;
            }
            if (r.traceS() >= t.startS() && r.traceS() - t.startS() < t.durationS()) {
                out.add(r);
            }
        }
        if (out.isEmpty()) {
            throw new IllegalArgumentException("trace " + file + ": no record in the window --trace-start " + t.startS()
                    + " s" + (Double.isInfinite(t.durationS()) ? "" : " --trace-duration " + t.durationS() + " s")
                    + " (its " + all.size() + " records span " + all.get(all.size() - 1).traceS()
                    + " s; fix: a window inside that)");
        }
        // timestamps never decrease, so the window's last request has its largest offset
        Request last = out.get(out.size() - 1);
        double lastNs = (last.traceS() - out.get(0).traceS()) / t.speedup() * 1e9;
        if (!(lastNs < MAX_OFFSET_NS)) {
            throw new IllegalArgumentException("trace " + file + " line " + last.line() + ": its send offset is "
                    + lastNs / 1e9 + " s (its trace time less the window's first record's"
                    + (t.speedup() == 1 ? "" : ", / --trace-speedup " + t.speedup()) + "), beyond the "
                    + MAX_OFFSET_YEARS + " years a replay can schedule (fix: the timestamps' unit:"
                    + " --timed-trace-sec-multiplier turns them into seconds; or a window with --trace-start and"
                    + " --trace-duration)");
        }
        return out;
    }

    /** Offsets in ns from the window's first request, divided by the speed-up. */
    static long[] offsetsNs(List<Request> requests, double speedup) {
        long[] ns = new long[requests.size()];
        double first = requests.get(0).traceS();
        for (int i = 0; i < ns.length; i++) {
            ns[i] = Math.round((requests.get(i).traceS() - first) / speedup * 1e9);
        }
        return ns;
    }

    /** The requests of {@code spec}'s trace a run of at most {@code maxRequests} requests replays. */
    static List<Request> window(DatasetSpec spec, int maxRequests) {
        return window(TraceFile.read(spec.path(), spec.trace()), spec.trace(), maxRequests, spec.path());
    }

    /** The replay of {@code requests} (from {@link #window(DatasetSpec, int)}) with {@code warmups} more prompts. */
    static Replay replay(DatasetSpec spec, List<Request> requests, int warmups, long seed, double tokensPerWord,
                         BpeTokenizer tk) {
        List<Prompt> prompts = prompts(requests, spec.trace().blockTokens(), seed, tokensPerWord, tk);
        for (int i = 0; i < warmups; i++) {
            prompts.add(prompts.get(i % requests.size()));
        }
        return new Replay(prompts, offsetsNs(requests, spec.trace().speedup()));
    }

    /**
     * The prompts: a request's text is its hash ids' blocks in order, each block {@code blockTokens} single-token
     * words drawn by a generator seeded with (seed, hash id) alone; the last block is cut to what is left of the input
     * length (its first words: a prefix of the whole block); tokens the blocks do not cover are the request's own,
     * seeded with (seed, line). With a tokenizer every word is one token (checked by encoding); without one, a block
     * is {@code round(blockTokens / tokensPerWord)} common words and a prompt {@code round(inputLen / tokensPerWord)}.
     */
    static List<Prompt> prompts(List<Request> requests, int blockTokens, long seed, double tokensPerWord, BpeTokenizer tk) {
        String[] pool = tk != null ? Datasets.singleTokenWords(tk) : spaced(Datasets.WORDS);
        int blockWords = tk != null ? blockTokens : Math.max(1, (int) Math.round(blockTokens / tokensPerWord));
        List<Prompt> out = new ArrayList<>(requests.size());
        for (Request r : requests) {
            int left = tk != null ? r.inputLen() : Math.max(1, (int) Math.round(r.inputLen() / tokensPerWord));
            int words = left;
            StringBuilder sb = new StringBuilder(left * 6);
            for (long h : r.hashIds()) {
                if (left == 0) {
                    break; // hash ids beyond the input length are ignored (as vLLM)
                }
                int take = Math.min(blockWords, left);
                draw(sb, new SplittableRandom(key(seed, BLOCK_DOMAIN, h)), pool, take);
                left -= take;
            }
            if (left > 0) {
                draw(sb, new SplittableRandom(key(seed, OWN_DOMAIN, r.line())), pool, left);
            }
            String text = tk != null ? Datasets.joined(tk, sb.toString()) : sb.substring(1);
            int expected = r.inputLen();
            if (tk != null) {
                int n = tk.count(text, false);
                if (n != words) {
                    throw new IllegalStateException("tokenizer " + tk.source() + ": a trace prompt of " + words
                            + " single-token words encodes to " + n + " tokens");
                }
                expected = n + tk.specialTokenCount();
            }
            out.add(new Prompt(text, expected, r.outputLen()));
        }
        return out;
    }

    /** A generator seed for (seed, domain, id): SplitMix64's finalizer over each part in turn. */
    static long key(long seed, long domain, long id) {
        return mix64(mix64(mix64(domain) ^ id) ^ seed);
    }

    private static long mix64(long z) {
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }

    private static void draw(StringBuilder sb, SplittableRandom rng, String[] pool, int n) {
        for (int i = 0; i < n; i++) {
            sb.append(pool[rng.nextInt(pool.length)]);
        }
    }

    private static String[] spaced(String[] words) {
        String[] out = new String[words.length];
        for (int i = 0; i < words.length; i++) {
            out[i] = " " + words[i];
        }
        return out;
    }

    /**
     * The schedule's fingerprint: SHA-256 over each intended offset in ns, in decimal, one per line, in order. Equal
     * on two arms exactly when they were asked to send at the same offsets.
     */
    static String scheduleSha256(long[] offsetsNs) {
        MessageDigest md = sha256();
        for (long ns : offsetsNs) {
            md.update((ns + "\n").getBytes(StandardCharsets.US_ASCII));
        }
        return HexFormat.of().formatHex(md.digest());
    }

    /** SHA-256 of the file's bytes. */
    static String sha256(Path file) {
        try {
            return HexFormat.of().formatHex(sha256().digest(Files.readAllBytes(file)));
        } catch (NoSuchFileException e) {
            throw new IllegalArgumentException("trace file " + file + " does not exist");
        } catch (IOException e) {
            throw new IllegalArgumentException("trace file " + file + " cannot be read: " + e.getMessage());
        }
    }

    private static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JVM", e);
        }
    }

    /** A JSON number, or a string of one, as an exact decimal; null when it is neither. */
    static BigDecimal decimal(JsonNode n) {
        if (n == null) {
            return null;
        }
        if (n.isNumber()) {
            return n.decimalValue();
        }
        if (n.isTextual()) {
            try {
                return new BigDecimal(n.asText().strip());
            } catch (NumberFormatException e) {
                return null;
            }
        }
        return null;
    }
}
