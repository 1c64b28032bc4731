package io.isobench.loadgen;

import com.fasterxml.jackson.databind.JsonNode;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.function.UnaryOperator;
import java.util.regex.Pattern;

/**
 * The SentencePiece-style half of {@link BpeTokenizer} (HF {@code tokenizer.json} of the Llama-2 / Mistral family):
 * the {@code Metaspace} pre-tokenizer ({@code replacement}, {@code prepend_scheme} always/first/never, {@code split}),
 * BPE over the whole pre-token by merge rank (HF's {@code Word::merge_all}: lowest rank first, leftmost on ties, so a
 * long unsplit text stays O(n log n)), {@code byte_fallback} ({@code <0xNN>} tokens for characters outside the
 * vocabulary), the unknown token with {@code fuse_unk}, and the decoder chain (Replace, ByteFallback, Fuse, Strip,
 * Metaspace). The legacy normalizer ({@code Prepend "▁"} + {@code Replace " "→"▁"}) is applied by
 * {@link BpeTokenizer}'s normalizers before this.
 */
final class SentencePieceBpe {

    /** The Metaspace pre-tokenizer's settings (absent for the legacy normalizer form). */
    record Metaspace(String replacement, String prependScheme, boolean split) {
    }

    private final Map<String, Integer> vocab;
    /** (left id << 32 | right id) → (rank << 32 | merged id): merges on ids, as HF's BPE does. */
    private final Map<Long, Long> merges = new HashMap<>();
    private final boolean ignoreMerges;
    private final boolean byteFallback;
    private final int unkId;
    private final boolean fuseUnk;
    private final Metaspace metaspace;
    private final List<UnaryOperator<List<String>>> decoders;
    private final int[] byteIds = new int[256];
    private final Map<String, int[]> cache = new HashMap<>();

    SentencePieceBpe(JsonNode model, Map<String, Integer> vocab, Map<String, Integer> mergeRank, Metaspace metaspace,
                     JsonNode decoder) {
        this.vocab = vocab;
        mergeRank.forEach((pair, rank) -> {
            int sp = pair.indexOf(' ', 1);
            if (sp < 0) {
                return;
            }
            Integer a = vocab.get(pair.substring(0, sp));
            Integer b = vocab.get(pair.substring(sp + 1));
            Integer ab = vocab.get(pair.substring(0, sp) + pair.substring(sp + 1));
            if (a != null && b != null && ab != null) {
                merges.put(((long) a << 32) | b, ((long) rank << 32) | ab);
            }
        });
        this.ignoreMerges = model.path("ignore_merges").asBoolean(false);
        this.metaspace = metaspace;
        String unk = model.path("unk_token").isTextual() ? model.path("unk_token").asText() : null;
        this.unkId = unk == null ? -1 : vocab.getOrDefault(unk, -1);
        this.fuseUnk = model.path("fuse_unk").asBoolean(false);
        boolean allBytes = model.path("byte_fallback").asBoolean(false);
        for (int b = 0; b < 256; b++) {
            Integer id = vocab.get(String.format("<0x%02X>", b));
            byteIds[b] = id == null ? -1 : id;
            allBytes &= id != null;
        }
        this.byteFallback = allBytes;
        List<UnaryOperator<List<String>>> d = new ArrayList<>();
        decoders(decoder, d);
        this.decoders = d;
    }

    /** Pre-tokenizes one normalized segment ({@code atStart}: it begins the input) and appends its ids. */
    void encode(String s, boolean atStart, List<Integer> out) {
        if (metaspace == null) {
            word(s, out);
            return;
        }
        String r = metaspace.replacement();
        s = s.replace(" ", r);
        String scheme = metaspace.prependScheme();
        if (!s.startsWith(r) && (scheme.equals("always") || scheme.equals("first") && atStart)) {
            s = r + s;
        }
        if (!metaspace.split()) {
            word(s, out);
            return;
        }
        // split on the replacement, each one merged with what follows it (SplitDelimiterBehavior::MergedWithNext)
        int last = 0;
        for (int i = s.indexOf(r, 1); i >= 0; i = s.indexOf(r, i + r.length())) {
            word(s.substring(last, i), out);
            last = i;
        }
        word(s.substring(last), out);
    }

    private void word(String w, List<Integer> out) {
        if (w.isEmpty()) {
            return;
        }
        int[] hit = cache.get(w);
        if (hit == null) {
            hit = bpe(w);
            if (w.length() <= 64 && cache.size() < 100_000) {
                cache.put(w, hit);
            }
        }
        for (int id : hit) {
            out.add(id);
        }
    }

    /** The merge of ids {@code a} and {@code b} as (rank << 32 | merged id), or -1. */
    private long merge(int a, int b) {
        if (a < 0 || b < 0) {
            return -1;
        }
        Long m = merges.get(((long) a << 32) | b);
        return m == null ? -1 : m;
    }

    private int[] bpe(String w) {
        Integer whole = vocab.get(w);
        if (ignoreMerges && whole != null) {
            return new int[] {whole};
        }
        int n = w.codePointCount(0, w.length());
        int[] id = new int[n]; // -1: a character outside the vocabulary (it never merges)
        int[] from = new int[n];
        int[] prev = new int[n];
        int[] next = new int[n];
        for (int i = 0, k = 0; i < w.length(); k++) {
            int c = Character.charCount(w.codePointAt(i));
            id[k] = vocab.getOrDefault(w.substring(i, i + c), -1);
            from[k] = i;
            prev[k] = k - 1;
            next[k] = k + 1 < n ? k + 1 : -1;
            i += c;
        }
        // (rank << 32 | position): lowest rank first, then leftmost
        PriorityQueue<Long> queue = new PriorityQueue<>();
        for (int i = 0; i + 1 < n; i++) {
            push(queue, merge(id[i], id[i + 1]), i);
        }
        while (!queue.isEmpty()) {
            long top = queue.poll();
            int pos = (int) top;
            int rk = (int) (top >>> 32);
            long m = next[pos] < 0 ? -1 : merge(id[pos], id[next[pos]]);
            if (m < 0 || (int) (m >>> 32) != rk) {
                continue; // stale: one side was merged away since
            }
            int right = next[pos];
            id[pos] = (int) m;
            id[right] = DEAD;
            next[pos] = next[right];
            if (next[pos] >= 0) {
                prev[next[pos]] = pos;
            }
            if (prev[pos] >= 0) {
                push(queue, merge(id[prev[pos]], id[pos]), prev[pos]);
            }
            if (next[pos] >= 0) {
                push(queue, merge(id[pos], id[next[pos]]), pos);
            }
        }
        List<Integer> ids = new ArrayList<>(n);
        for (int i = 0; i >= 0 && i < n; i = next[i]) {
            if (id[i] >= 0) {
                ids.add(id[i]);
                continue;
            }
            String ch = w.substring(from[i], from[i] + Character.charCount(w.codePointAt(from[i])));
            if (byteFallback) {
                for (byte b : ch.getBytes(StandardCharsets.UTF_8)) {
                    ids.add(byteIds[b & 0xff]);
                }
            } else if (unkId >= 0) {
                if (!(fuseUnk && !ids.isEmpty() && ids.get(ids.size() - 1) == unkId)) {
                    ids.add(unkId);
                }
            } else {
                throw new IllegalArgumentException("symbol '" + ch + "' is not in the vocabulary (no byte_fallback,"
                        + " no unk token)");
            }
        }
        return ids.stream().mapToInt(Integer::intValue).toArray();
    }

    private static final int DEAD = -2;

    private static void push(PriorityQueue<Long> queue, long merge, int pos) {
        if (merge >= 0) {
            queue.add((merge >>> 32 << 32) | pos);
        }
    }

    /** The decoder chain over the ids' token strings, joined. */
    String decode(List<String> tokens) {
        List<String> t = tokens;
        for (UnaryOperator<List<String>> d : decoders) {
            t = d.apply(t);
        }
        return String.join("", t);
    }

    private static void decoders(JsonNode n, List<UnaryOperator<List<String>>> out) {
        if (n == null || n.isNull() || n.isMissingNode()) {
            return;
        }
        switch (n.path("type").asText("")) {
            case "Sequence" -> n.path("decoders").forEach(c -> decoders(c, out));
            case "Replace" -> {
                UnaryOperator<String> r = TokenizerJson.replaceOp(n);
                out.add(ts -> ts.stream().map(r).toList());
            }
            case "ByteFallback" -> out.add(SentencePieceBpe::byteFallback);
            case "Fuse" -> out.add(ts -> List.of(String.join("", ts)));
            case "Strip" -> {
                String content = n.path("content").asText(" ");
                int start = n.path("start").asInt(0);
                int stop = n.path("stop").asInt(0);
                out.add(ts -> ts.stream().map(s -> strip(s, content, start, stop)).toList());
            }
            case "Metaspace" -> {
                String r = n.path("replacement").asText("\u2581");
                boolean prepend = !n.path("prepend_scheme").asText(
                        n.path("add_prefix_space").asBoolean(true) ? "always" : "never").equals("never");
                out.add(ts -> {
                    List<String> o = new ArrayList<>(ts.size());
                    for (int i = 0; i < ts.size(); i++) {
                        o.add(ts.get(i).replace(r, i == 0 && prepend ? "" : " "));
                    }
                    return o;
                });
            }
            default -> throw new IllegalArgumentException("decoder '" + n.path("type").asText("") + "' is not supported");
        }
    }

    /** HF's ByteFallback decoder: runs of {@code <0xNN>} tokens become their UTF-8 text, or U+FFFD per byte. */
    private static List<String> byteFallback(List<String> tokens) {
        List<String> out = new ArrayList<>(tokens.size());
        ByteArrayOutputStream run = new ByteArrayOutputStream();
        for (String t : tokens) {
            if (t.length() == 6 && t.startsWith("<0x") && t.endsWith(">") && t.substring(3, 5).matches("[0-9A-Fa-f]{2}")) {
                run.write(Integer.parseInt(t.substring(3, 5), 16));
                continue;
            }
            flush(run, out);
            out.add(t);
        }
        flush(run, out);
        return out;
    }

    private static void flush(ByteArrayOutputStream run, List<String> out) {
        if (run.size() == 0) {
            return;
        }
        byte[] b = run.toByteArray();
        run.reset();
        try {
            out.add(StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(b)).toString());
        } catch (CharacterCodingException e) {
            out.add("\uFFFD".repeat(b.length));
        }
    }

    private static String strip(String s, String content, int start, int stop) {
        int from = 0;
        for (int k = 0; k < start && s.startsWith(content, from); k++) {
            from += content.length();
        }
        int to = s.length();
        for (int k = 0; k < stop && to - content.length() >= from && s.startsWith(content, to - content.length()); k++) {
            to -= content.length();
        }
        return s.substring(from, to);
    }

    /** A split regex for Replace patterns ({@code {"String": s}} or {@code {"Regex": r}}). */
    static Pattern pattern(JsonNode pat) {
        return pat.has("Regex") ? Pattern.compile(pat.get("Regex").asText())
                : Pattern.compile(Pattern.quote(pat.path("String").asText()));
    }
}
