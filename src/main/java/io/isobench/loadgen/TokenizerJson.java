package io.isobench.loadgen;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.text.Normalizer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.UnaryOperator;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads a HuggingFace {@code tokenizer.json} into a {@link BpeTokenizer}: the BPE model (vocabulary, merges), the
 * normalizers and pre-tokenizers, the added tokens and the post-processor's special tokens. Every setting the
 * tokenizer cannot honour is refused here, with a message naming the file and the setting, so a tokenizer that loads
 * counts as HF's does.
 */
final class TokenizerJson {

    private TokenizerJson() {
    }

    /**
     * Reads a {@code tokenizer.json}; a missing file, bad JSON or an unsupported tokenizer is an
     * {@link IllegalArgumentException} naming the file and what is wrong (a config error).
     */
    static BpeTokenizer load(Path file) {
        JsonNode root;
        try {
            root = new ObjectMapper().readTree(Files.readString(file, StandardCharsets.UTF_8));
        } catch (NoSuchFileException e) {
            throw new IllegalArgumentException("tokenizer file " + file + " does not exist");
        } catch (IOException e) {
            throw new IllegalArgumentException("tokenizer file " + file + " is not valid JSON: " + e.getMessage());
        }
        String where = "tokenizer file " + file;
        JsonNode model = root.path("model");
        String type = model.path("type").asText("");
        if (!type.equals("BPE")) {
            throw new IllegalArgumentException(where + ": model type '" + type + "' is not supported (only byte-level BPE)");
        }
        if (!model.path("continuing_subword_prefix").isNull() && !model.path("continuing_subword_prefix").isMissingNode()
                || !model.path("end_of_word_suffix").isNull() && !model.path("end_of_word_suffix").isMissingNode()) {
            throw new IllegalArgumentException(where + ": continuing_subword_prefix/end_of_word_suffix are not supported");
        }
        Map<String, Integer> vocab = new HashMap<>();
        model.path("vocab").fields().forEachRemaining(e -> vocab.put(e.getKey(), e.getValue().asInt()));
        if (vocab.isEmpty()) {
            throw new IllegalArgumentException(where + ": model.vocab is empty");
        }
        Map<String, Integer> ranks = new HashMap<>();
        int r = 0;
        for (JsonNode m : model.path("merges")) {
            String a;
            String b;
            if (m.isArray() && m.size() == 2) {
                a = m.get(0).asText();
                b = m.get(1).asText();
            } else {
                String s = m.asText();
                int sp = s.indexOf(' ', 1);
                if (sp < 0) {
                    throw new IllegalArgumentException(where + ": bad merge '" + s + "'");
                }
                a = s.substring(0, sp);
                b = s.substring(sp + 1);
            }
            ranks.putIfAbsent(a + " " + b, r++);
        }
        List<UnaryOperator<String>> norms = new ArrayList<>();
        boolean[] prepends = new boolean[1];
        normalizers(root.path("normalizer"), norms, prepends, where);
        List<Pattern> splits = new ArrayList<>();
        boolean[] byteLevel = new boolean[3]; // seen, use_regex, add_prefix_space
        SentencePieceBpe.Metaspace[] meta = new SentencePieceBpe.Metaspace[1];
        preTokenizer(root.path("pre_tokenizer"), splits, byteLevel, meta, where);
        boolean sentencePiece = model.path("byte_fallback").asBoolean(false) || meta[0] != null || prepends[0];
        if (byteLevel[0] && sentencePiece) {
            throw new IllegalArgumentException(where + ": ByteLevel mixed with SentencePiece-style settings"
                    + " (byte_fallback/Metaspace/Prepend) is not supported");
        }
        if (!byteLevel[0] && !sentencePiece) {
            throw new IllegalArgumentException(where + ": neither a ByteLevel pre-tokenizer nor a SentencePiece-style"
                    + " model (Metaspace, byte_fallback): only byte-level and SentencePiece-style BPE are supported");
        }
        SentencePieceBpe spm;
        try {
            spm = sentencePiece ? new SentencePieceBpe(model, vocab, ranks, meta[0], root.path("decoder")) : null;
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(where + ": " + e.getMessage());
        }
        if (spm != null) {
            prepends[0] |= meta[0] != null && !meta[0].prependScheme().equals("never");
        }
        Map<String, Integer> added = new HashMap<>();
        for (JsonNode t : root.path("added_tokens")) {
            added.put(t.path("content").asText(), t.path("id").asInt());
        }
        List<Integer> pre = new ArrayList<>();
        List<Integer> post = new ArrayList<>();
        postProcessor(root.path("post_processor"), pre, post, vocab, added, where);
        return new BpeTokenizer(file.toString(), new BpeTokenizer.Model(vocab, ranks, model.path("ignore_merges").asBoolean(false)),
                new BpeTokenizer.PreTokenizer(norms, splits, byteLevel[1], byteLevel[2] || prepends[0]), new BpeTokenizer.Specials(added,
                pre.stream().mapToInt(Integer::intValue).toArray(), post.stream().mapToInt(Integer::intValue).toArray()),
                spm);
    }

    private static void normalizers(JsonNode n, List<UnaryOperator<String>> out, boolean[] prepends, String where) {
        if (n == null || n.isNull() || n.isMissingNode()) {
            return;
        }
        String t = n.path("type").asText("");
        switch (t) {
            case "Sequence" -> n.path("normalizers").forEach(c -> normalizers(c, out, prepends, where));
            case "NFC" -> out.add(s -> Normalizer.normalize(s, Normalizer.Form.NFC));
            case "NFD" -> out.add(s -> Normalizer.normalize(s, Normalizer.Form.NFD));
            case "NFKC" -> out.add(s -> Normalizer.normalize(s, Normalizer.Form.NFKC));
            case "NFKD" -> out.add(s -> Normalizer.normalize(s, Normalizer.Form.NFKD));
            case "Lowercase" -> out.add(s -> s.toLowerCase(Locale.ROOT));
            case "Prepend" -> { // SentencePiece legacy (Llama-2): "▁" before every non-empty segment
                String p = n.path("prepend").asText();
                prepends[0] = true;
                out.add(s -> s.isEmpty() ? s : p + s);
            }
            case "Replace" -> out.add(replaceOp(n));
            default -> throw new IllegalArgumentException(where + ": normalizer '" + t + "' is not supported");
        }
    }

    /** HF's Replace (normalizer or decoder): every match of {@code pattern} (String or Regex) becomes {@code content}. */
    static UnaryOperator<String> replaceOp(JsonNode n) {
        Pattern p = SentencePieceBpe.pattern(n.path("pattern"));
        String content = Matcher.quoteReplacement(n.path("content").asText());
        return s -> p.matcher(s).replaceAll(content);
    }

    private static void preTokenizer(JsonNode n, List<Pattern> splits, boolean[] byteLevel,
                                     SentencePieceBpe.Metaspace[] meta, String where) {
        if (n == null || n.isNull() || n.isMissingNode()) {
            return;
        }
        String t = n.path("type").asText("");
        switch (t) {
            case "Sequence" -> n.path("pretokenizers").forEach(c -> preTokenizer(c, splits, byteLevel, meta, where));
            case "Metaspace" -> { // older files: add_prefix_space instead of prepend_scheme, always split
                String scheme = n.path("prepend_scheme").asText(
                        n.path("add_prefix_space").asBoolean(true) ? "always" : "never");
                meta[0] = new SentencePieceBpe.Metaspace(n.path("replacement").asText("\u2581"), scheme,
                        n.path("split").asBoolean(true));
            }
            case "ByteLevel" -> {
                byteLevel[0] = true;
                byteLevel[1] = n.path("use_regex").asBoolean(true);
                byteLevel[2] = n.path("add_prefix_space").asBoolean(false);
            }
            case "Split" -> {
                String behavior = n.path("behavior").asText("");
                JsonNode pat = n.path("pattern");
                if (!behavior.equals("Isolated") || n.path("invert").asBoolean(false)) {
                    throw new IllegalArgumentException(where + ": Split behavior '" + behavior + "' is not supported");
                }
                if (pat.has("Regex")) {
                    splits.add(Pattern.compile(pat.get("Regex").asText()));
                } else if (pat.has("String")) {
                    splits.add(Pattern.compile(Pattern.quote(pat.get("String").asText())));
                } else {
                    throw new IllegalArgumentException(where + ": Split without a pattern");
                }
            }
            default -> throw new IllegalArgumentException(where + ": pre-tokenizer '" + t + "' is not supported");
        }
    }

    private static void postProcessor(JsonNode n, List<Integer> pre, List<Integer> post, Map<String, Integer> vocab,
                                      Map<String, Integer> added, String where) {
        if (n == null || n.isNull() || n.isMissingNode()) {
            return;
        }
        String t = n.path("type").asText("");
        switch (t) {
            case "ByteLevel" -> {
                // offsets only
            }
            case "Sequence" -> n.path("processors").forEach(c -> postProcessor(c, pre, post, vocab, added, where));
            case "TemplateProcessing" -> {
                boolean seenA = false;
                for (JsonNode piece : n.path("single")) {
                    if (piece.has("Sequence")) {
                        seenA = true;
                    } else if (piece.has("SpecialToken")) {
                        String id = piece.get("SpecialToken").path("id").asText();
                        JsonNode spec = n.path("special_tokens").path(id);
                        List<Integer> ids = new ArrayList<>();
                        spec.path("ids").forEach(x -> ids.add(x.asInt()));
                        if (ids.isEmpty()) {
                            Integer v = added.getOrDefault(id, vocab.get(id));
                            if (v == null) {
                                throw new IllegalArgumentException(where + ": template special token '" + id + "' is unknown");
                            }
                            ids.add(v);
                        }
                        (seenA ? post : pre).addAll(ids);
                    }
                }
            }
            default -> throw new IllegalArgumentException(where + ": post-processor '" + t + "' is not supported");
        }
    }
}
