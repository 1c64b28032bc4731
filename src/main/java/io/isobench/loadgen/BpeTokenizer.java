package io.isobench.loadgen;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A pure-Java BPE tokenizer read from a HuggingFace {@code tokenizer.json}, so prompts can be built to an exact token
 * length without the server ({@code --tokenizer}). Two families: byte-level BPE (GPT-2 / RoBERTa / Llama-3 / Qwen:
 * {@code model.type = "BPE"} with a {@code ByteLevel} pre-tokenizer, optionally after a regex {@code Split}) and
 * SentencePiece-style BPE (Llama-2 / Mistral: the {@code Prepend "▁"} + {@code Replace " "→"▁"} normalizer or the
 * {@code Metaspace} pre-tokenizer, {@code byte_fallback}, the Replace/ByteFallback/Fuse/Strip decoder; see
 * {@link SentencePieceBpe}). Supported: added (special) tokens matched literally, normalizers
 * NFC/NFD/NFKC/NFKD/Lowercase/Prepend/Replace (and Sequence), ByteLevel with or without its GPT-2 regex and
 * {@code add_prefix_space}, Split with a regex pattern, merges as {@code "a b"} strings or {@code [a, b]} pairs,
 * {@code ignore_merges}, and a TemplateProcessing post-processor's special tokens. Anything else (WordPiece, Unigram,
 * other pre-tokenizers) is refused with a message naming what is unsupported. This class encodes and decodes; the
 * file is read (and anything unsupported refused) by {@link TokenizerJson}.
 */
public final class BpeTokenizer {

    /** GPT-2's pre-tokenizer regex (what HF's ByteLevel uses when {@code use_regex} is true). */
    static final String GPT2_PATTERN = "'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)|\\s+";

    private static final char[] BYTE_TO_CHAR = new char[256];
    private static final Map<Character, Integer> CHAR_TO_BYTE = new HashMap<>();

    static {
        // GPT-2's bytes_to_unicode: printable bytes map to themselves, the rest to U+0100 upwards
        int n = 0;
        for (int b = 0; b < 256; b++) {
            boolean printable = (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF);
            char c = printable ? (char) b : (char) (256 + n++);
            BYTE_TO_CHAR[b] = c;
            CHAR_TO_BYTE.put(c, b);
        }
    }

    private final String source;
    private final Map<String, Integer> vocab;
    private final String[] idToToken;
    private final Map<String, Integer> mergeRank;
    private final boolean ignoreMerges;
    private final List<UnaryOperator<String>> normalizers;
    private final List<Pattern> splits;
    private final boolean byteLevelRegex;
    private final boolean addPrefixSpace;
    private final Map<String, Integer> added;
    private final Pattern addedPattern;
    private final int[] prefixIds;
    private final int[] suffixIds;
    private final Map<String, int[]> cache = new HashMap<>();
    private final SentencePieceBpe spm;

    /** The BPE model: token ids and merge ranks. */
    record Model(Map<String, Integer> vocab, Map<String, Integer> mergeRank, boolean ignoreMerges) {
    }

    /** How text is cut before BPE: normalizers, split patterns and the ByteLevel pre-tokenizer's settings. */
    record PreTokenizer(List<UnaryOperator<String>> normalizers, List<Pattern> splits, boolean byteLevelRegex,
                                boolean addPrefixSpace) {
    }

    /** Added tokens and the ids the post-processor puts before and after the text. */
    record Specials(Map<String, Integer> added, int[] prefixIds, int[] suffixIds) {
    }

    BpeTokenizer(String source, Model model, PreTokenizer pre, Specials specials, SentencePieceBpe spm) {
        Map<String, Integer> vocab = model.vocab();
        Map<String, Integer> added = specials.added();
        this.source = source;
        this.spm = spm;
        this.vocab = vocab;
        this.mergeRank = model.mergeRank();
        this.ignoreMerges = model.ignoreMerges();
        this.normalizers = pre.normalizers();
        this.splits = pre.splits();
        this.byteLevelRegex = pre.byteLevelRegex();
        this.addPrefixSpace = pre.addPrefixSpace();
        this.added = added;
        this.prefixIds = specials.prefixIds();
        this.suffixIds = specials.suffixIds();
        int max = 0;
        for (int id : vocab.values()) {
            max = Math.max(max, id);
        }
        for (int id : added.values()) {
            max = Math.max(max, id);
        }
        idToToken = new String[max + 1];
        vocab.forEach((t, id) -> idToToken[id] = t);
        added.forEach((t, id) -> idToToken[id] = t);
        if (added.isEmpty()) {
            addedPattern = null;
        } else {
            List<String> keys = new ArrayList<>(added.keySet());
            keys.sort((a, b) -> b.length() - a.length()); // longest first
            StringBuilder sb = new StringBuilder();
            for (String k : keys) {
                sb.append(sb.isEmpty() ? "" : "|").append(Pattern.quote(k));
            }
            addedPattern = Pattern.compile(sb.toString());
        }
    }

    /**
     * Reads a {@code tokenizer.json}; a missing file, bad JSON or an unsupported tokenizer is an
     * {@link IllegalArgumentException} naming the file and what is wrong (a config error).
     */
    public static BpeTokenizer load(Path file) {
        return TokenizerJson.load(file);
    }

    /** Where the tokenizer came from (for notes and results). */
    public String source() {
        return source;
    }

    /** Token ids of {@code text}, with the post-processor's special tokens (e.g. BOS) when {@code addSpecial}. */
    public int[] encode(String text, boolean addSpecial) {
        List<Integer> out = new ArrayList<>();
        if (addSpecial) {
            for (int id : prefixIds) {
                out.add(id);
            }
        }
        if (addedPattern == null) {
            encodeOrdinary(text, true, out);
        } else {
            Matcher m = addedPattern.matcher(text);
            int last = 0;
            while (m.find()) {
                encodeOrdinary(text.substring(last, m.start()), last == 0, out);
                out.add(added.get(m.group()));
                last = m.end();
            }
            encodeOrdinary(text.substring(last), last == 0, out);
        }
        if (addSpecial) {
            for (int id : suffixIds) {
                out.add(id);
            }
        }
        return out.stream().mapToInt(Integer::intValue).toArray();
    }

    /** Number of tokens of {@code text} (special tokens of the template included when {@code addSpecial}). */
    public int count(String text, boolean addSpecial) {
        return encode(text, addSpecial).length;
    }

    /**
     * True when the tokenizer puts a space before the text itself (SentencePiece-style: the Prepend normalizer or
     * Metaspace's prepend_scheme): a run of {@code " word"} pieces is then sent without its first space, or that space
     * would become a token of its own. False for byte-level BPE (its prompts keep the leading space).
     */
    boolean prependsSpace() {
        return spm != null && addPrefixSpace;
    }

    /** Whether this is a SentencePiece-style tokenizer (Metaspace / Prepend normalizer / byte_fallback). */
    boolean sentencePiece() {
        return spm != null;
    }

    /** Special tokens the post-processor adds around a single sequence (e.g. 1 for a BOS). */
    public int specialTokenCount() {
        return prefixIds.length + suffixIds.length;
    }

    /** The vocabulary entry of an id (byte-level form, e.g. {@code "Ġthe"}), or null. */
    public String token(int id) {
        return id >= 0 && id < idToToken.length ? idToToken[id] : null;
    }

    /** The id of a vocabulary entry, or -1. */
    public int id(String token) {
        Integer v = vocab.get(token);
        if (v == null) {
            v = added.get(token);
        }
        return v == null ? -1 : v;
    }

    /** Text of token ids (added tokens as their content; byte-level tokens back to UTF-8). */
    public String decode(int[] ids) {
        if (spm != null) {
            List<String> tokens = new ArrayList<>(ids.length);
            for (int id : ids) {
                String t = token(id);
                if (t != null) {
                    tokens.add(t);
                }
            }
            return spm.decode(tokens);
        }
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        for (int id : ids) {
            String t = token(id);
            if (t == null) {
                continue;
            }
            if (added.containsKey(t)) {
                b.writeBytes(t.getBytes(StandardCharsets.UTF_8));
                continue;
            }
            for (int i = 0; i < t.length(); i++) {
                Integer by = CHAR_TO_BYTE.get(t.charAt(i));
                if (by != null) {
                    b.write(by);
                }
            }
        }
        return b.toString(StandardCharsets.UTF_8);
    }

    private void encodeOrdinary(String text, boolean atStart, List<Integer> out) {
        if (text.isEmpty()) {
            return;
        }
        String s = normalize(text);
        if (spm != null) {
            for (String piece : splits.isEmpty() ? List.of(s) : splitAll(s)) {
                spm.encode(piece, atStart, out);
            }
            return;
        }
        if (addPrefixSpace && !s.startsWith(" ")) {
            s = " " + s;
        }
        List<String> pieces = splitAll(s);
        if (byteLevelRegex) {
            pieces = split(pieces, GPT2);
        }
        for (String piece : pieces) {
            for (int id : bpe(byteLevel(piece))) {
                out.add(id);
            }
        }
    }

    private static final Pattern GPT2 = Pattern.compile(GPT2_PATTERN);

    private List<String> splitAll(String s) {
        List<String> pieces = List.of(s);
        for (Pattern p : splits) {
            pieces = split(pieces, p);
        }
        return pieces;
    }

    /** HF Split(behavior = Isolated): matches and the text between them are separate pieces. */
    private static List<String> split(List<String> in, Pattern p) {
        List<String> out = new ArrayList<>();
        for (String s : in) {
            Matcher m = p.matcher(s);
            int last = 0;
            while (m.find()) {
                if (m.start() > last) {
                    out.add(s.substring(last, m.start()));
                }
                if (m.end() > m.start()) {
                    out.add(m.group());
                }
                last = m.end();
            }
            if (last < s.length()) {
                out.add(s.substring(last));
            }
        }
        return out;
    }

    private String normalize(String s) {
        for (UnaryOperator<String> n : normalizers) {
            s = n.apply(s);
        }
        return s;
    }

    private static String byteLevel(String piece) {
        byte[] bytes = piece.getBytes(StandardCharsets.UTF_8);
        char[] c = new char[bytes.length];
        for (int i = 0; i < bytes.length; i++) {
            c[i] = BYTE_TO_CHAR[bytes[i] & 0xff];
        }
        return new String(c);
    }

    /** Classic BPE on one pre-token: repeatedly merge the adjacent pair with the lowest merge rank. */
    private int[] bpe(String word) {
        int[] hit = cache.get(word);
        if (hit != null) {
            return hit;
        }
        int[] ids;
        Integer whole = vocab.get(word);
        if (ignoreMerges && whole != null) {
            ids = new int[] {whole};
        } else {
            List<String> sym = new ArrayList<>(word.length());
            for (int i = 0; i < word.length(); ) {
                int cp = word.codePointAt(i);
                int n = Character.charCount(cp);
                sym.add(word.substring(i, i + n));
                i += n;
            }
            while (sym.size() > 1) {
                int best = -1;
                int bestRank = Integer.MAX_VALUE;
                for (int i = 0; i + 1 < sym.size(); i++) {
                    Integer rk = mergeRank.get(sym.get(i) + " " + sym.get(i + 1));
                    if (rk != null && rk < bestRank) {
                        bestRank = rk;
                        best = i;
                    }
                }
                if (best < 0) {
                    break;
                }
                // merge every occurrence of that pair, left to right (GPT-2's bpe(); HF's merge order agrees)
                String a = sym.get(best);
                String b = sym.get(best + 1);
                List<String> next = new ArrayList<>(sym.size());
                for (int i = 0; i < sym.size(); ) {
                    if (i + 1 < sym.size() && sym.get(i).equals(a) && sym.get(i + 1).equals(b)) {
                        next.add(a + b);
                        i += 2;
                    } else {
                        next.add(sym.get(i));
                        i++;
                    }
                }
                sym = next;
            }
            ids = new int[sym.size()];
            for (int i = 0; i < ids.length; i++) {
                Integer v = vocab.get(sym.get(i));
                if (v == null) {
                    throw new IllegalArgumentException("tokenizer " + source + ": symbol '" + sym.get(i)
                            + "' is not in the vocabulary (no unk token)");
                }
                ids[i] = v;
            }
        }
        if (cache.size() < 100_000) {
            cache.put(word, ids);
        }
        return ids;
    }

}
