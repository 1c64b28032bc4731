package io.isobench.task;

import java.util.Collection;
import java.util.Optional;

/** "Did you mean": the closest known name by edit distance, when it is close enough to help. */
public final class Nearest {

    private Nearest() {
    }

    static Optional<String> of(String name, Collection<String> known) {
        String prefixed = null;
        for (String k : known) {
            if (k.startsWith(name) && k.length() > name.length() && (prefixed == null || k.length() < prefixed.length())) {
                prefixed = k;
            }
        }
        if (prefixed != null) {
            return Optional.of(prefixed);
        }
        String best = null;
        int bestD = Integer.MAX_VALUE;
        for (String k : known) {
            int d = distance(name, k);
            if (d < bestD || (d == bestD && best != null && k.compareTo(best) < 0)) {
                best = k;
                bestD = d;
            }
        }
        if (best == null) {
            return Optional.empty();
        }
        boolean prefix = best.startsWith(name) || name.startsWith(best);
        int limit = Math.max(2, Math.min(name.length(), best.length()) / 3);
        return prefix || bestD <= limit ? Optional.of(best) : Optional.empty();
    }

    /** Levenshtein edit distance. */
    public static int distance(String a, String b) {
        int[] prev = new int[b.length() + 1];
        int[] cur = new int[b.length() + 1];
        for (int j = 0; j <= b.length(); j++) {
            prev[j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            cur[0] = i;
            for (int j = 1; j <= b.length(); j++) {
                int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
                cur[j] = Math.min(Math.min(cur[j - 1] + 1, prev[j] + 1), prev[j - 1] + cost);
            }
            int[] t = prev;
            prev = cur;
            cur = t;
        }
        return prev[b.length()];
    }
}
