package io.isobench.loadgen;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HexFormat;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Random;
import java.util.SplittableRandom;

/**
 * Builds the prompt list. With no model tokenizer at hand, random prompts are made of common short English words
 * that are one token each in GPT/LLaMA-style BPE vocabularies; the real length is checked afterwards against the
 * server's {@code usage.prompt_tokens} (and calibrated once with {@code /tokenize} when the server has it).
 */
final class Datasets {

    static final String[] WORDS = ("the of and to in is that for it as was with be by on not he this are or his from at"
            + " which but have an had they you were their one all we can her has there been if more when will would who"
            + " so no out up into do any your what has man could other than then its time only some these two may first"
            + " new very my also after most well where our over such even way many good must make year world work life")
            .split(" ");

    private static final ObjectMapper JSON = new ObjectMapper();

    private Datasets() {
    }

    /** Loads the dataset; I/O and format problems become {@link IllegalArgumentException} (a config error). */
    static List<Prompt> load(DatasetSpec spec, int count, long seed, double tokensPerWord) {
        return load(spec, count, seed, tokensPerWord, null);
    }

    /** As {@link #load(DatasetSpec, int, long, double)}; with a tokenizer, random prompts have exact token lengths. */
    static List<Prompt> load(DatasetSpec spec, int count, long seed, double tokensPerWord, BpeTokenizer tokenizer) {
        return switch (spec.kind()) {
            case RANDOM -> tokenizer == null ? random(spec, count, seed, tokensPerWord) : random(spec, count, seed, tokenizer);
            case FIXED -> {
                List<Prompt> l = new ArrayList<>(count);
                for (int i = 0; i < count; i++) {
                    l.add(new Prompt(spec.fixedPrompt(), -1, spec.outputLen()));
                }
                yield l;
            }
            case SHAREGPT -> cycle(sharegpt(spec, seed), count, spec);
            case CUSTOM -> cycle(custom(spec, seed), count, spec);
            case SONNET -> ReplayDatasets.sonnet(spec, count, seed, tokenizer);
            case PREFIX_REPETITION -> ReplayDatasets.prefixRepetition(spec, count, seed, tokensPerWord, tokenizer);
            case TIMED_TRACE -> TimedTrace.replay(spec, TimedTrace.window(spec, count), 0, seed, tokensPerWord, tokenizer)
                    .prompts();
        };
    }

    /**
     * The prompts' fingerprint, byte for byte: SHA-256 over each prompt's UTF-8 text, a NUL, its output length in
     * decimal and a newline, in order. Same dataset flags, file and seed → same digest on every arm.
     */
    static String digest(List<Prompt> prompts) {
        MessageDigest md;
        try {
            md = MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JVM", e);
        }
        for (Prompt p : prompts) {
            md.update(p.text().getBytes(StandardCharsets.UTF_8));
            md.update((byte) 0);
            md.update((p.outputLen() + "\n").getBytes(StandardCharsets.US_ASCII));
        }
        return HexFormat.of().formatHex(md.digest());
    }

    private static List<Prompt> cycle(List<Prompt> base, int count, DatasetSpec spec) {
        if (base.isEmpty()) {
            throw new IllegalArgumentException("dataset " + spec.path() + " has no usable prompts");
        }
        List<Prompt> out = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            out.add(base.get(i % base.size()));
        }
        return out;
    }

    /** vLLM's RandomDataset lengths: uniform integers in [floor(len·(1−r)), ceil(len·(1+r))]. */
    static List<Prompt> random(DatasetSpec spec, int count, long seed, double tokensPerWord) {
        SplittableRandom rng = new SplittableRandom(seed);
        int inLo = (int) Math.floor(spec.inputLen() * (1 - spec.rangeRatio()));
        int inHi = (int) Math.ceil(spec.inputLen() * (1 + spec.rangeRatio()));
        int outLo = Math.max(1, (int) Math.floor(spec.outputLen() * (1 - spec.rangeRatio())));
        int outHi = (int) Math.ceil(spec.outputLen() * (1 + spec.rangeRatio()));
        String prefix = words(rng, wordsFor(spec.prefixLen(), tokensPerWord));
        List<Prompt> out = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            int in = Math.max(1, rng.nextInt(inLo, inHi + 1));
            int o = rng.nextInt(outLo, outHi + 1);
            String body = words(rng, Math.max(1, wordsFor(in, tokensPerWord)));
            String text = prefix.isEmpty() ? body : prefix + " " + body;
            out.add(new Prompt(text, in + spec.prefixLen(), o));
        }
        return out;
    }

    /**
     * Random prompts of an exact token length: every word is one that the tokenizer turns into exactly one token
     * when preceded by a space (the pre-tokenizer cuts before each " word", and BPE never merges across that cut), so
     * n words are n tokens; each prompt is checked by encoding it. The intended length includes the special tokens
     * the tokenizer's template adds (a BOS, say), as a server counting with the same tokenizer reports it.
     */
    static List<Prompt> random(DatasetSpec spec, int count, long seed, BpeTokenizer tk) {
        String[] pool = singleTokenWords(tk);
        SplittableRandom rng = new SplittableRandom(seed);
        int inLo = (int) Math.floor(spec.inputLen() * (1 - spec.rangeRatio()));
        int inHi = (int) Math.ceil(spec.inputLen() * (1 + spec.rangeRatio()));
        int outLo = Math.max(1, (int) Math.floor(spec.outputLen() * (1 - spec.rangeRatio())));
        int outHi = (int) Math.ceil(spec.outputLen() * (1 + spec.rangeRatio()));
        String prefix = pick(rng, pool, spec.prefixLen());
        List<Prompt> out = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            int in = Math.max(1, rng.nextInt(inLo, inHi + 1));
            int o = rng.nextInt(outLo, outHi + 1);
            String text = joined(tk, prefix + pick(rng, pool, in));
            int n = tk.count(text, false);
            if (n != in + spec.prefixLen()) {
                throw new IllegalStateException("tokenizer " + tk.source() + ": a random prompt of " + (in + spec.prefixLen())
                        + " single-token words encodes to " + n + " tokens");
            }
            out.add(new Prompt(text, n + tk.specialTokenCount(), o));
        }
        return out;
    }

    /**
     * A run of {@code " word"} pieces as sent: a SentencePiece-style tokenizer puts the first word's space (its "▁")
     * there itself, so the leading space is dropped (else it would be a token of its own); byte-level: unchanged.
     */
    static String joined(BpeTokenizer tk, String spacedWords) {
        return tk.prependsSpace() && spacedWords.startsWith(" ") ? spacedWords.substring(1) : spacedWords;
    }

    static String pick(SplittableRandom rng, String[] pool, int n) {
        StringBuilder sb = new StringBuilder(n * 5);
        for (int i = 0; i < n; i++) {
            sb.append(pool[rng.nextInt(pool.length)]);
        }
        return sb.toString();
    }

    /** " word" strings that are one token each: the common-word list first, else letter-only vocabulary entries. */
    static String[] singleTokenWords(BpeTokenizer tk) {
        LinkedHashSet<String> pool = new LinkedHashSet<>();
        for (String w : WORDS) {
            if (tk.count(joined(tk, " " + w), false) == 1) {
                pool.add(" " + w);
            }
        }
        if (pool.size() < 32) {
            for (int id = 0; pool.size() < 256; id++) {
                String t = tk.token(id);
                if (t == null) {
                    if (id > 1_000_000) {
                        break;
                    }
                    continue;
                }
                String d = (tk.prependsSpace() ? " " : "") + tk.decode(new int[] {id});
                if (d.length() >= 3 && d.charAt(0) == ' ' && d.substring(1).chars().allMatch(Character::isLetter)
                        && tk.count(d, false) == 1) {
                    pool.add(d);
                }
                if (id > 1_000_000) {
                    break;
                }
            }
        }
        if (pool.isEmpty()) {
            throw new IllegalArgumentException("tokenizer " + tk.source() + " has no single-token words to build prompts from");
        }
        return pool.toArray(new String[0]);
    }

    private static int wordsFor(int tokens, double tokensPerWord) {
        return (int) Math.round(tokens / tokensPerWord);
    }

    static String words(SplittableRandom rng, int n) {
        StringBuilder sb = new StringBuilder(n * 5);
        for (int i = 0; i < n; i++) {
            if (i > 0) {
                sb.append(' ');
            }
            sb.append(WORDS[rng.nextInt(WORDS.length)]);
        }
        return sb.toString();
    }

    private static JsonNode readJson(DatasetSpec spec) {
        try {
            return JSON.readTree(spec.path().toFile());
        } catch (NoSuchFileException | FileNotFoundException e) {
            throw new IllegalArgumentException("dataset file " + spec.path() + " does not exist");
        } catch (IOException e) {
            throw new IllegalArgumentException("dataset file " + spec.path() + " is not valid JSON: "
                    + firstLine(e.getMessage()));
        }
    }

    /** ShareGPT: conversations with ≥ 2 turns, first turn = prompt, second = reply (its length = output length). */
    static List<Prompt> sharegpt(DatasetSpec spec, long seed) {
        JsonNode root = readJson(spec);
        if (!root.isArray()) {
            throw new IllegalArgumentException("dataset file " + spec.path()
                    + " is not ShareGPT format (expected a JSON array of {\"conversations\": [...]})");
        }
        List<Prompt> out = new ArrayList<>();
        for (JsonNode entry : root) {
            JsonNode conv = entry.get("conversations");
            if (conv == null || !conv.isArray() || conv.size() < 2) {
                continue;
            }
            String prompt = conv.get(0).path("value").asText("");
            String reply = conv.get(1).path("value").asText("");
            int promptTok = estimateTokens(prompt);
            int outTok = spec.outputLen() > 0 ? spec.outputLen() : estimateTokens(reply);
            // vLLM's filter: drop very short and very long pairs
            if (promptTok < 4 || (spec.outputLen() == 0 && outTok < 4)) {
                continue;
            }
            if (promptTok > 1024 || promptTok + outTok > 2048) {
                continue;
            }
            out.add(new Prompt(prompt, -1, outTok));
        }
        if (out.isEmpty() && root.size() > 0) {
            throw new IllegalArgumentException("dataset file " + spec.path()
                    + " has no usable ShareGPT conversations (each needs \"conversations\" with >= 2 turns)");
        }
        Collections.shuffle(out, new Random(seed));
        return out;
    }

    /** JSONL, one {"prompt": "..."} per line (vLLM's custom dataset). */
    static List<Prompt> custom(DatasetSpec spec, long seed) {
        List<String> lines;
        try {
            lines = Files.readAllLines(spec.path(), StandardCharsets.UTF_8);
        } catch (NoSuchFileException e) {
            throw new IllegalArgumentException("dataset file " + spec.path() + " does not exist");
        } catch (IOException e) {
            throw new IllegalArgumentException("dataset file " + spec.path() + " cannot be read: " + e.getMessage());
        }
        List<Prompt> out = new ArrayList<>();
        int lineNo = 0;
        for (String line : lines) {
            lineNo++;
            if (line.isBlank()) {
                continue;
            }
            JsonNode n;
            try {
                n = JSON.readTree(line);
            } catch (IOException e) {
                throw new IllegalArgumentException("dataset file " + spec.path() + " line " + lineNo
                        + " is not JSON (expected {\"prompt\": \"...\"} per line)");
            }
            JsonNode p = n.get("prompt");
            if (p == null || !p.isTextual()) {
                throw new IllegalArgumentException("dataset file " + spec.path() + " line " + lineNo
                        + " has no \"prompt\" string");
            }
            out.add(new Prompt(p.asText(), -1, spec.outputLen()));
        }
        Collections.shuffle(out, new Random(seed));
        return out;
    }

    /** Rough token estimate without a tokenizer (≈ 4 characters per token); used only for filtering. */
    static int estimateTokens(String s) {
        return (s.length() + 3) / 4;
    }

    private static String firstLine(String s) {
        if (s == null) {
            return "";
        }
        int i = s.indexOf('\n');
        return i < 0 ? s : s.substring(0, i);
    }
}
