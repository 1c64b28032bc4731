package io.isobench.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/** The correctness gate's input: greedy ({@code temperature 0}) completions of fixed prompts. */
public final class Greedy {

    private static final ObjectMapper JSON = new ObjectMapper();

    private Greedy() {
    }

    /** The {@code n} fixed prompts (seeded, identical for every arm). */
    public static List<String> prompts(int n) {
        Random rng = new Random(20260105L);
        List<String> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            out.add(prompt(rng, 6 + i % 7));
        }
        return out;
    }

    private static final String LETTERS = "abcdefghiklmnoprstuvz";

    static String prompt(Random rng, int words) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < words; i++) {
            if (i > 0) {
                sb.append(' ');
            }
            int len = 2 + rng.nextInt(5);
            for (int k = 0; k < len; k++) {
                sb.append(LETTERS.charAt(rng.nextInt(LETTERS.length())));
            }
        }
        return sb.toString();
    }

    /** Greedy texts of each prompt from the server at {@code baseUrl}. */
    public static List<String> outputs(URI baseUrl, String model, int prompts, int maxTokens)
            throws IOException, InterruptedException {
        return probe(baseUrl, model, prompts, maxTokens, false).stream().map(Probe::text).toList();
    }

    /**
     * Runs the probe set against the server at {@code baseUrl}: each prompt once with {@code temperature 0}, a fixed
     * seed and {@code max_tokens}, then the first prompt a second time (greedy decoding must repeat itself).
     *
     * @param logprobs also ask for per-token logprobs ({@code "logprobs": 1}) and token ids
     * @throws ProbeException PROBE_REJECTED when the server answers a probe with an error, NO_GREEDY_SUPPORT when it
     *                        refuses temperature 0 or two identical greedy requests give different text
     */
    public static List<Probe> probe(URI baseUrl, String model, int prompts, int maxTokens, boolean logprobs)
            throws IOException, InterruptedException {
        List<Probe> out = new ArrayList<>();
        List<String> ps = prompts(prompts);
        try (HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build()) {
            for (int i = 0; i < ps.size(); i++) {
                out.add(one(http, baseUrl, model, ps.get(i), i, maxTokens, logprobs));
            }
            Probe again = one(http, baseUrl, model, ps.get(0), 0, maxTokens, logprobs);
            if (!again.text().equals(out.get(0).text())) {
                throw new ProbeException(ProbeException.Kind.NO_GREEDY_SUPPORT, "the server does not decode greedily:"
                        + " two identical temperature-0 requests for prompt 0 gave different text ("
                        + quote(out.get(0).text()) + " then " + quote(again.text()) + ")");
            }
        }
        return out;
    }

    private static Probe one(HttpClient http, URI baseUrl, String model, String prompt, int index, int maxTokens,
                             boolean logprobs) throws IOException, InterruptedException {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("model", model);
        body.put("prompt", prompt);
        body.put("max_tokens", maxTokens);
        body.put("temperature", 0);
        body.put("seed", SEED);
        if (logprobs) {
            body.put("logprobs", 1);
            body.put("return_token_ids", true);
        }
        HttpRequest req = HttpRequest.newBuilder(baseUrl.resolve("/v1/completions"))
                .timeout(Duration.ofSeconds(60)).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(JSON.writeValueAsString(body))).build();
        HttpResponse<java.io.InputStream> r = http.send(req, HttpResponse.BodyHandlers.ofInputStream());
        String answer;
        try (java.io.InputStream in = r.body()) {
            // a probe's answer is small: a server that sends more is refused, never held
            byte[] bytes = in.readNBytes(MAX_BODY_BYTES + 1);
            if (bytes.length > MAX_BODY_BYTES) {
                throw new ProbeException(ProbeException.Kind.PROBE_REJECTED, "response_too_large: the answer to probe "
                        + index + " passed " + (MAX_BODY_BYTES >> 20) + " MiB, the most read");
            }
            answer = new String(bytes, java.nio.charset.StandardCharsets.UTF_8);
        }
        if (r.statusCode() != 200) {
            String b = answer.strip();
            String low = b.toLowerCase(java.util.Locale.ROOT);
            boolean greedy = low.contains("temperature") || low.contains("greedy");
            throw new ProbeException(greedy ? ProbeException.Kind.NO_GREEDY_SUPPORT : ProbeException.Kind.PROBE_REJECTED,
                    (greedy ? "the server refuses greedy decoding: " : "the server rejected probe " + index + ": ")
                            + "HTTP " + r.statusCode() + " from /v1/completions: "
                            + (b.length() > 300 ? b.substring(0, 300) + "…" : b));
        }
        JsonNode n;
        try {
            n = JSON.readTree(answer);
        } catch (IOException e) {
            throw new ProbeException(ProbeException.Kind.PROBE_REJECTED, "the server answered probe " + index
                    + " with a body that is not JSON: " + e.getMessage());
        }
        JsonNode c = n.path("choices").path(0);
        if (!c.path("text").isTextual()) {
            throw new ProbeException(ProbeException.Kind.PROBE_REJECTED, "the server's answer to probe " + index
                    + " has no choices[0].text");
        }
        List<Integer> ids = null;
        JsonNode tid = c.path("token_ids");
        if (tid.isArray()) {
            ids = new ArrayList<>();
            for (JsonNode t : tid) {
                ids.add(t.asInt());
            }
        }
        List<Double> lps = null;
        JsonNode tl = c.path("logprobs").path("token_logprobs");
        if (tl.isArray()) {
            lps = new ArrayList<>();
            for (JsonNode t : tl) {
                lps.add(t.isNumber() ? t.asDouble() : Double.NaN);
            }
        }
        return new Probe(c.path("text").asText(), ids, lps);
    }

    /** The largest probe answer read ({@code response_too_large} beyond). */
    static final int MAX_BODY_BYTES = 8 << 20;

    /** The seed sent with every probe (greedy decoding must not depend on it). */
    public static final long SEED = 0;

    private static String quote(String s) {
        String t = s.replace("\n", "\\n");
        return "\"" + (t.length() > 40 ? t.substring(0, 40) + "…" : t) + "\"";
    }

    /** Fraction of prompts whose text differs from the reference's (1.0 when the sizes differ). */
    public static double mismatchFraction(List<String> reference, List<String> texts) {
        if (reference.size() != texts.size() || reference.isEmpty()) {
            return 1.0;
        }
        int diff = 0;
        for (int i = 0; i < reference.size(); i++) {
            if (!reference.get(i).equals(texts.get(i))) {
                diff++;
            }
        }
        return (double) diff / reference.size();
    }
}
