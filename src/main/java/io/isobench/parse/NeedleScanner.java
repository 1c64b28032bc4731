package io.isobench.parse;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Aho–Corasick automaton over ASCII needles, matched case-insensitively: one pass over the text reports every
 * occurrence of every needle, in text order, in time linear in the text length plus the number of occurrences.
 * Non-ASCII characters never occur in a needle and reset the match like any other non-matching character.
 */
final class NeedleScanner {

    private static final int ALPHABET = 128;

    /** Receives (needle index, start position) for every occurrence, in order of the occurrence's end. */
    interface Sink {
        void occurrence(int needle, int start);
    }

    private final int[] delta;        // state * ALPHABET + c -> next state
    private final int[][] outputs;    // state -> needle indexes ending here (own + via dictionary suffix links)
    private final int[] lengths;

    NeedleScanner(List<String> needles) {
        lengths = new int[needles.size()];
        List<int[]> go = new ArrayList<>();
        List<List<Integer>> out = new ArrayList<>();
        go.add(newRow());
        out.add(new ArrayList<>());
        for (int k = 0; k < needles.size(); k++) {
            String n = needles.get(k);
            lengths[k] = n.length();
            int state = 0;
            for (int i = 0; i < n.length(); i++) {
                int c = lower(n.charAt(i));
                if (c < 0) {
                    throw new IllegalArgumentException("needle must be ASCII: " + n);
                }
                if (go.get(state)[c] <= 0) {
                    go.get(state)[c] = go.size();
                    go.add(newRow());
                    out.add(new ArrayList<>());
                }
                state = go.get(state)[c];
            }
            out.get(state).add(k);
        }
        int states = go.size();
        int[] fail = new int[states];
        delta = new int[states * ALPHABET];
        ArrayDeque<Integer> queue = new ArrayDeque<>();
        for (int c = 0; c < ALPHABET; c++) {
            int s = go.get(0)[c];
            if (s > 0) {
                fail[s] = 0;
                queue.add(s);
                delta[c] = s;
            } else {
                delta[c] = 0;
            }
        }
        while (!queue.isEmpty()) {
            int r = queue.poll();
            out.get(r).addAll(out.get(fail[r]));
            for (int c = 0; c < ALPHABET; c++) {
                int s = go.get(r)[c];
                if (s > 0) {
                    fail[s] = delta[fail[r] * ALPHABET + c];
                    queue.add(s);
                    delta[r * ALPHABET + c] = s;
                } else {
                    delta[r * ALPHABET + c] = delta[fail[r] * ALPHABET + c];
                }
            }
        }
        outputs = new int[states][];
        for (int s = 0; s < states; s++) {
            outputs[s] = out.get(s).stream().mapToInt(Integer::intValue).distinct().toArray();
        }
    }

    private static int[] newRow() {
        int[] row = new int[ALPHABET];
        Arrays.fill(row, 0);
        return row;
    }

    private static int lower(char ch) {
        if (ch >= ALPHABET) {
            return -1;
        }
        return ch >= 'A' && ch <= 'Z' ? ch + 32 : ch;
    }

    void scan(String text, Sink sink) {
        int state = 0;
        for (int i = 0, n = text.length(); i < n; i++) {
            int c = lower(text.charAt(i));
            state = c < 0 ? 0 : delta[state * ALPHABET + c];
            int[] o = outputs[state];
            for (int k : o) {
                sink.occurrence(k, i + 1 - lengths[k]);
            }
        }
    }
}
