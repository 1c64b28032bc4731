package io.isobench.probe;

import io.isobench.Fields;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * An arm's probe outputs compared with a reference arm's (baseline or human): exact-match rate, first-divergence
 * position (characters; tokens where both sides returned token ids) and, where both returned logprobs, the largest
 * logprob drift over the tokens both generated identically.
 *
 * @param prompts                 probes compared (the reference's count)
 * @param exactMatches            probes whose text equals the reference's
 * @param exactMatchRate          exactMatches / prompts (0 when the counts differ)
 * @param firstDivergencePrompt   the first probe that differs; null when all match
 * @param firstDivergenceChar     the smallest character offset at which a probe differs; null when all match
 * @param firstDivergenceToken    the smallest token index at which token ids differ; null when none differ or
 *                                token ids were not returned
 * @param maxLogprobDrift         max |Δ logprob| over aligned identical tokens; null when logprobs were not returned
 * @param perPrompt               per probe: {@code match}, {@code first_divergence_char}, {@code first_divergence_token},
 *                                {@code max_logprob_drift}
 */
public record OutputDiff(int prompts, int exactMatches, double exactMatchRate, Integer firstDivergencePrompt,
                         Integer firstDivergenceChar, Integer firstDivergenceToken, Double maxLogprobDrift,
                         List<Map<String, Object>> perPrompt) {

    public static OutputDiff compare(List<Probe> reference, List<Probe> arm) {
        int n = reference.size();
        int matches = 0;
        Integer firstPrompt = null;
        Integer firstChar = null;
        Integer firstToken = null;
        Double drift = null;
        List<Map<String, Object>> per = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            Probe r = reference.get(i);
            Probe x = i < arm.size() ? arm.get(i) : null;
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("prompt", i);
            if (x == null) {
                m.put("match", false);
                m.put("missing", true);
                firstPrompt = firstPrompt == null ? i : firstPrompt;
                firstChar = min(firstChar, 0);
                per.add(m);
                continue;
            }
            boolean match = r.text().equals(x.text());
            m.put("match", match);
            if (match) {
                matches++;
            } else {
                int c = divergence(r.text(), x.text());
                m.put("first_divergence_char", c);
                firstPrompt = firstPrompt == null ? i : firstPrompt;
                firstChar = min(firstChar, c);
            }
            int aligned = Integer.MAX_VALUE;
            if (r.tokenIds() != null && x.tokenIds() != null) {
                int t = divergence(r.tokenIds(), x.tokenIds());
                if (t >= 0) {
                    m.put("first_divergence_token", t);
                    firstToken = min(firstToken, t);
                    aligned = t;
                }
            }
            if (r.logprobs() != null && x.logprobs() != null) {
                int k = Math.min(aligned, Math.min(r.logprobs().size(), x.logprobs().size()));
                double d = 0;
                for (int j = 0; j < k; j++) {
                    double a = r.logprobs().get(j);
                    double b = x.logprobs().get(j);
                    if (!Double.isNaN(a) && !Double.isNaN(b)) {
                        d = Math.max(d, Math.abs(a - b));
                    }
                }
                m.put("max_logprob_drift", d);
                drift = drift == null ? d : Math.max(drift, d);
            }
            per.add(m);
        }
        double rate = n == 0 || arm.size() != n ? (n == 0 ? 0.0 : (double) matches / Math.max(n, arm.size()))
                : (double) matches / n;
        return new OutputDiff(n, matches, rate, firstPrompt, firstChar, firstToken, drift, per);
    }

    /** Index of the first differing character; the shorter length when one is a prefix of the other. */
    static int divergence(String a, String b) {
        int k = Math.min(a.length(), b.length());
        for (int i = 0; i < k; i++) {
            if (a.charAt(i) != b.charAt(i)) {
                return i;
            }
        }
        return k;
    }

    /** Index of the first differing token; -1 when equal. */
    static int divergence(List<Integer> a, List<Integer> b) {
        int k = Math.min(a.size(), b.size());
        for (int i = 0; i < k; i++) {
            if (!a.get(i).equals(b.get(i))) {
                return i;
            }
        }
        return a.size() == b.size() ? -1 : k;
    }

    private static Integer min(Integer a, int b) {
        return a == null ? b : Math.min(a, b);
    }

    /** Fraction of probes that differ. */
    public double mismatchFraction() {
        return 1.0 - exactMatchRate;
    }

    /** For extra_json: the summary and the per-probe rows. */
    public Map<String, Object> toMap() {
        return Fields.inOrder("prompts", prompts, "exact_matches", exactMatches, "exact_match_rate", exactMatchRate,
                "first_divergence_prompt", firstDivergencePrompt, "first_divergence_char", firstDivergenceChar,
                "first_divergence_token", firstDivergenceToken, "max_logprob_drift", maxLogprobDrift,
                "per_prompt", perPrompt);
    }

    /** "6/8 exact (75 %), first divergence: prompt 2 at char 14". */
    public String describe() {
        String s = String.format(Locale.ROOT, "%d/%d exact (%.0f %%)", exactMatches, prompts, exactMatchRate * 100);
        if (firstDivergencePrompt != null) {
            s += String.format(Locale.ROOT, ", first divergence: prompt %d, char %d", firstDivergencePrompt,
                    firstDivergenceChar);
            if (firstDivergenceToken != null) {
                s += ", token " + firstDivergenceToken;
            }
        }
        if (maxLogprobDrift != null) {
            s += String.format(Locale.ROOT, ", max logprob drift %.3g", maxLogprobDrift);
        }
        return s;
    }
}
