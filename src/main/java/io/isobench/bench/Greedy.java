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
        List<String> texts = new ArrayList<>();
        try (HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build()) {
            for (String p : prompts(prompts)) {
                Map<String, Object> body = new LinkedHashMap<>();
                body.put("model", model);
                body.put("prompt", p);
                body.put("max_tokens", maxTokens);
                body.put("temperature", 0);
                HttpRequest req = HttpRequest.newBuilder(baseUrl.resolve("/v1/completions"))
                        .timeout(Duration.ofSeconds(60)).header("Content-Type", "application/json")
                        .POST(HttpRequest.BodyPublishers.ofString(JSON.writeValueAsString(body))).build();
                HttpResponse<String> r = http.send(req, HttpResponse.BodyHandlers.ofString());
                if (r.statusCode() != 200) {
                    throw new IOException("HTTP " + r.statusCode() + " from /v1/completions: " + r.body());
                }
                JsonNode n = JSON.readTree(r.body());
                texts.add(n.path("choices").path(0).path("text").asText());
            }
        }
        return texts;
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
