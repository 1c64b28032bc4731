package io.isobench.loadgen;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.Set;

/**
 * Multi-turn ShareGPT conversations ({@code --dataset-name sharegpt --multi-turn}): which turns of each conversation
 * are sent, and the context each turn carries. A turn is a human message and the output budget taken from the reply
 * that follows it in the file; what the model answered (not the file's reply) is the context of the next turn.
 *
 * <p>The turns sent are fixed by the file, the flags and the seed alone (never by what a server answers), so every
 * arm gets the same conversations, turns and output budgets: {@code --max-turns} and the {@code --max-context-len}
 * cap are applied to the file's estimates when the dataset is loaded.
 */
final class Conversations {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Set<String> HUMAN = Set.of("human", "user");
    private static final Set<String> MODEL = Set.of("gpt", "assistant", "chatgpt", "bard", "model");
    /** Between the context's parts on {@code /v1/completions} (no chat template here: plain text, one newline). */
    static final String COMPLETION_SEPARATOR = "\n";

    private Conversations() {
    }

    /**
     * One conversation to replay.
     *
     * @param source the entry's position in the file (0-based)
     * @param system the leading {@code system} message's text, or null
     * @param turns  the turns sent, in order (at least one)
     */
    record Conversation(int source, String system, List<Turn> turns) {
        Conversation {
            turns = List.copyOf(turns);
        }
    }

    /** One turn: the human message and the output tokens requested for its reply ({@code max_tokens}). */
    record Turn(String human, int outputLen) {
    }

    /** The conversations and the SHA-256 of the file's bytes. */
    record Loaded(List<Conversation> conversations, String fileSha256) {
    }

    /**
     * The file's usable conversations, shuffled with the seed ({@code java.util.Random(seed)}, as single-turn ShareGPT),
     * then taken in order and cycled to {@code count}.
     */
    static Loaded load(DatasetSpec spec, int count, long seed, BpeTokenizer tk) {
        byte[] bytes;
        try {
            bytes = Files.readAllBytes(spec.path());
        } catch (NoSuchFileException e) {
            throw new IllegalArgumentException("dataset file " + spec.path() + " does not exist");
        } catch (IOException e) {
            throw new IllegalArgumentException("dataset file " + spec.path() + " cannot be read: " + e.getMessage());
        }
        JsonNode root;
        try {
            root = JSON.readTree(bytes);
        } catch (IOException e) {
            throw new IllegalArgumentException("dataset file " + spec.path() + " is not valid JSON: "
                    + firstLine(e.getMessage()));
        }
        if (root == null || !root.isArray()) {
            throw new IllegalArgumentException("dataset file " + spec.path()
                    + " is not ShareGPT format (expected a JSON array of {\"conversations\": [...]})");
        }
        List<Conversation> usable = new ArrayList<>();
        for (int i = 0; i < root.size(); i++) {
            Conversation c = parse(i, root.get(i).get("conversations"), spec, tk);
            if (c != null) {
                usable.add(c);
            }
        }
        if (usable.isEmpty()) {
            throw new IllegalArgumentException("dataset file " + spec.path() + " has no usable multi-turn conversations"
                    + " (each needs \"conversations\" starting with a human turn followed by a reply, within"
                    + " --max-context-len " + spec.multiTurn().maxContextTokens() + ")");
        }
        Collections.shuffle(usable, new Random(seed));
        List<Conversation> out = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            out.add(usable.get(i % usable.size()));
        }
        return new Loaded(out, sha256(bytes));
    }

    /**
     * The turns of one entry: an optional leading system message, then (human, reply) pairs while they alternate; a
     * human message without a reply, or a role out of turn, ends the conversation there. {@code --max-turns} and the
     * context cap cut it further. Null when no turn is left.
     */
    static Conversation parse(int source, JsonNode conv, DatasetSpec spec, BpeTokenizer tk) {
        if (conv == null || !conv.isArray()) {
            return null;
        }
        DatasetSpec.MultiTurn mt = spec.multiTurn();
        int i = 0;
        String system = null;
        if (conv.size() > 0 && "system".equals(role(conv.get(0)))) {
            system = conv.get(0).path("value").asText("");
            i = 1;
        }
        long context = system == null ? 0 : tokens(system, tk);
        List<Turn> turns = new ArrayList<>();
        for (; i + 1 < conv.size(); i += 2) {
            if (!HUMAN.contains(role(conv.get(i))) || !MODEL.contains(role(conv.get(i + 1)))) {
                break;
            }
            if (mt.maxTurns() > 0 && turns.size() == mt.maxTurns()) {
                break;
            }
            String human = conv.get(i).path("value").asText("");
            String reply = conv.get(i + 1).path("value").asText("");
            int out = spec.outputLen() > 0 ? spec.outputLen() : Math.max(1, tokens(reply, tk));
            long needed = context + tokens(human, tk) + out;
            if (human.isEmpty() || (mt.maxContextTokens() > 0 && needed > mt.maxContextTokens())) {
                break;
            }
            turns.add(new Turn(human, out));
            context = needed;
        }
        return turns.isEmpty() ? null : new Conversation(source, system, turns);
    }

    private static String role(JsonNode message) {
        return message.path("from").asText(message.path("role").asText("")).toLowerCase(Locale.ROOT);
    }

    /** Tokens of a text: counted with the tokenizer when there is one, else ≈ 4 characters a token. */
    private static int tokens(String text, BpeTokenizer tk) {
        return tk == null ? Datasets.estimateTokens(text) : tk.count(text, false);
    }

    /**
     * The chat messages of turn {@code k} (0-based): the system message, then for every earlier turn its human
     * message ({@code user}) and the model's actual reply ({@code assistant}), then turn k's human message.
     */
    static List<Map<String, String>> messages(Conversation c, List<String> replies, int k) {
        List<Map<String, String>> m = new ArrayList<>(2 * k + 2);
        if (c.system() != null) {
            m.add(message("system", c.system()));
        }
        for (int j = 0; j < k; j++) {
            m.add(message("user", c.turns().get(j).human()));
            m.add(message("assistant", replies.get(j)));
        }
        m.add(message("user", c.turns().get(k).human()));
        return m;
    }

    /**
     * The {@code /v1/completions} prompt of turn {@code k}: the same parts as {@link #messages}, plain text joined by
     * {@link #COMPLETION_SEPARATOR} (no role markers: isobench applies no chat template).
     */
    static String prompt(Conversation c, List<String> replies, int k) {
        StringBuilder sb = new StringBuilder();
        for (Map<String, String> m : messages(c, replies, k)) {
            if (!sb.isEmpty()) {
                sb.append(COMPLETION_SEPARATOR);
            }
            sb.append(m.get("content"));
        }
        return sb.toString();
    }

    private static Map<String, String> message(String role, String content) {
        Map<String, String> m = new LinkedHashMap<>();
        m.put("role", role);
        m.put("content", content);
        return m;
    }

    /**
     * The conversations' fingerprint, byte for byte: SHA-256 over, per conversation, a {@code \u0001} byte, the
     * system text (empty when none) and a NUL, then per turn its human text, a NUL, its output length in decimal and a
     * newline. Same file, flags and seed → same digest on every arm (warm-up conversations included).
     */
    static String digest(List<Conversation> conversations) {
        MessageDigest md = sha();
        for (Conversation c : conversations) {
            md.update((byte) 1);
            md.update((c.system() == null ? "" : c.system()).getBytes(StandardCharsets.UTF_8));
            md.update((byte) 0);
            for (Turn t : c.turns()) {
                md.update(t.human().getBytes(StandardCharsets.UTF_8));
                md.update((byte) 0);
                md.update((t.outputLen() + "\n").getBytes(StandardCharsets.US_ASCII));
            }
        }
        return HexFormat.of().formatHex(md.digest());
    }

    static String sha256(byte[] bytes) {
        return HexFormat.of().formatHex(sha().digest(bytes));
    }

    private static MessageDigest sha() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JVM", e);
        }
    }

    private static String firstLine(String s) {
        if (s == null) {
            return "";
        }
        int i = s.indexOf('\n');
        return i < 0 ? s : s.substring(0, i);
    }
}
