package io.isobench.loadgen;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.isobench.parse.Metric;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * What a multi-turn run ({@code --multi-turn}) adds to its requests: which turn each request was, and how each
 * conversation went. The per-turn and per-conversation metrics are derived here (docs/loadgen.md, "Multi-turn
 * conversations").
 *
 * @param conversations the measured conversations, in start order
 * @param turnOfRequest the turn (1-based) of each measured request, aligned with {@link LoadgenResult#requests()}
 * @param conversationOfRequest the conversation (its position in {@code conversations}) of each measured request,
 *                      aligned likewise
 * @param datasetSha256 SHA-256 of the conversation file's bytes
 */
public record MultiTurnResult(List<ConversationResult> conversations, List<Integer> turnOfRequest,
                              List<Integer> conversationOfRequest, String datasetSha256) {

    /** Turn indices up to this one get metrics of their own; every turn from 2 on is also pooled as later_turns. */
    public static final int STORED_TURNS = 8;

    public MultiTurnResult {
        conversations = List.copyOf(conversations);
        turnOfRequest = List.copyOf(turnOfRequest);
        conversationOfRequest = List.copyOf(conversationOfRequest);
    }

    /**
     * One conversation.
     *
     * @param conversation   its position in the run (0-based)
     * @param source         its entry in the file (0-based)
     * @param turnsPlanned   turns the dataset gives it (after {@code --max-turns} and {@code --max-context-len})
     * @param turnsCompleted turns that succeeded (a failed turn ends the conversation)
     * @param firstSendNs    when its first turn was sent (offset from the run start)
     * @param lastEndNs      when its last sent turn's response ended (offset from the run start)
     */
    public record ConversationResult(int conversation, int source, int turnsPlanned, int turnsCompleted,
                                     long firstSendNs, long lastEndNs) {

        /** Every planned turn succeeded. */
        public boolean complete() {
            return turnsCompleted == turnsPlanned;
        }

        /** Conversation duration: first turn sent → last response ended, in seconds. */
        public double durationS() {
            return (lastEndNs - firstSendNs) / 1e9;
        }
    }

    /** The conversations whose every turn succeeded. */
    public int completed() {
        return (int) conversations.stream().filter(ConversationResult::complete).count();
    }

    /** Per-turn distributions (successful requests) by turn index, then key 0: every turn from 2 on, pooled. */
    Map<Integer, TurnStats> byTurn(List<RequestResult> requests, List<Double> percentiles) {
        TreeMap<Integer, List<RequestResult>> groups = new TreeMap<>();
        for (int i = 0; i < requests.size(); i++) {
            RequestResult r = requests.get(i);
            if (!r.success()) {
                continue;
            }
            int t = turnOfRequest.get(i);
            groups.computeIfAbsent(t, k -> new ArrayList<>()).add(r);
            if (t >= 2) {
                groups.computeIfAbsent(0, k -> new ArrayList<>()).add(r);
            }
        }
        LinkedHashMap<Integer, TurnStats> out = new LinkedHashMap<>();
        groups.forEach((t, rs) -> {
            if (t > 0) {
                out.put(t, TurnStats.of(rs, percentiles));
            }
        });
        if (groups.containsKey(0)) {
            out.put(0, TurnStats.of(groups.get(0), percentiles));
        }
        return out;
    }

    /** One turn index's requests: TTFT, TPOT and E2EL distributions (ms) and the mean input tokens. */
    record TurnStats(int requests, LoadgenResult.Dist ttft, LoadgenResult.Dist tpot, LoadgenResult.Dist e2el,
                     double inputTokensMean) {

        /** The distributions by their metric family: ttft, tpot, e2el. */
        Map<String, LoadgenResult.Dist> dists() {
            Map<String, LoadgenResult.Dist> m = new LinkedHashMap<>();
            m.put("ttft", ttft);
            m.put("tpot", tpot);
            m.put("e2el", e2el);
            return m;
        }

        static TurnStats of(List<RequestResult> rs, List<Double> percentiles) {
            double[] ttft = new double[rs.size()];
            double[] e2el = new double[rs.size()];
            List<Double> tpot = new ArrayList<>();
            double in = 0;
            for (int i = 0; i < rs.size(); i++) {
                RequestResult r = rs.get(i);
                ttft[i] = r.ttftNs() / 1e6;
                e2el[i] = r.latencyNs() / 1e6;
                if (r.tpotNs() >= 0) {
                    tpot.add(r.tpotNs() / 1e6);
                }
                in += r.inputTokens();
            }
            return new TurnStats(rs.size(), Stats.dist(ttft, percentiles),
                    Stats.dist(tpot.stream().mapToDouble(Double::doubleValue).toArray(), percentiles),
                    Stats.dist(e2el, percentiles), rs.isEmpty() ? 0 : in / rs.size());
        }
    }

    private static String turnName(int t) {
        return t == 0 ? "later_turns" : "turn" + t;
    }

    /**
     * Stored metrics: {@code turnN_{ttft,tpot,e2el}_ms_{mean,median,pNN}} and {@code turnN_input_tokens_mean} for
     * N ≤ {@link #STORED_TURNS}, the same as {@code later_turns_*} (turn 2 on, pooled); {@code conversations_completed},
     * {@code conversations_failed}, {@code conversation_throughput_cps}, {@code turns_per_conversation_mean} and
     * {@code conversation_duration_s_{mean,median,max,pNN}}.
     */
    List<Metric> metrics(List<RequestResult> requests, double durationS, List<Double> percentiles) {
        List<Metric> out = new ArrayList<>();
        int completed = completed();
        out.add(Metric.of("conversations_completed", completed));
        out.add(Metric.of("conversations_failed", conversations.size() - completed));
        out.add(Metric.of("conversation_throughput_cps", durationS > 0 ? completed / durationS : 0.0));
        out.add(Metric.of("turns_per_conversation_mean", conversations.stream()
                .mapToInt(ConversationResult::turnsCompleted).average().orElse(0)));
        LoadgenResult.Dist d = durations(percentiles);
        if (d.count() > 0) {
            out.add(Metric.of("conversation_duration_s_mean", d.mean()));
            out.add(Metric.of("conversation_duration_s_median", d.median()));
            out.add(Metric.of("conversation_duration_s_max", d.max()));
            d.percentiles().forEach((p, v) -> out.add(Metric.of("conversation_duration_s_p" + LoadgenResult.pWord(p), v)));
        }
        byTurn(requests, percentiles).forEach((t, s) -> {
            if (t > STORED_TURNS) {
                return;
            }
            String name = turnName(t);
            out.add(Metric.of(name + "_input_tokens_mean", s.inputTokensMean()));
            for (var fam : s.dists().entrySet()) {
                LoadgenResult.Dist x = fam.getValue();
                if (x.count() == 0) {
                    continue;
                }
                String f = name + "_" + fam.getKey() + "_ms_";
                out.add(Metric.of(f + "mean", x.mean()));
                out.add(Metric.of(f + "median", x.median()));
                x.percentiles().forEach((p, v) -> out.add(Metric.of(f + "p" + LoadgenResult.pWord(p), v)));
            }
        });
        return out;
    }

    /** Durations of the complete conversations, in s. */
    private LoadgenResult.Dist durations(List<Double> percentiles) {
        return Stats.dist(conversations.stream().filter(ConversationResult::complete)
                .mapToDouble(ConversationResult::durationS).toArray(), percentiles);
    }

    /** The {@code isobench_multi_turn} object of the {@code --save-result} JSON. */
    ObjectNode json(List<RequestResult> requests, double durationS, List<Double> percentiles) {
        ObjectNode o = new ObjectMapper().createObjectNode();
        o.put("dataset_sha256", datasetSha256);
        o.put("conversations", conversations.size());
        o.put("conversations_completed", completed());
        o.put("conversation_throughput_cps", durationS > 0 ? completed() / durationS : 0.0);
        LoadgenResult.Dist d = durations(percentiles);
        o.put("mean_conversation_duration_s", d.mean());
        o.put("median_conversation_duration_s", d.median());
        d.percentiles().forEach((p, v) -> o.put("p" + LoadgenResult.pWord(p) + "_conversation_duration_s", v));
        ArrayNode turns = o.putArray("turns");
        byTurn(requests, percentiles).forEach((t, s) -> {
            ObjectNode n = turns.addObject();
            if (t == 0) {
                n.put("turn", "later"); // every turn from 2 on, pooled
            } else {
                n.put("turn", t);
            }
            n.put("requests", s.requests());
            n.put("mean_input_tokens", s.inputTokensMean());
            for (var fam : s.dists().entrySet()) {
                LoadgenResult.Dist x = fam.getValue();
                String k = fam.getKey();
                n.put("mean_" + k + "_ms", x.mean());
                n.put("median_" + k + "_ms", x.median());
                x.percentiles().forEach((p, v) -> n.put("p" + LoadgenResult.pWord(p) + "_" + k + "_ms", v));
            }
        });
        ArrayNode cs = o.putArray("per_conversation");
        for (ConversationResult c : conversations) {
            ObjectNode n = cs.addObject();
            n.put("source", c.source());
            n.put("turns_planned", c.turnsPlanned());
            n.put("turns_completed", c.turnsCompleted());
            n.put("duration_s", c.durationS());
        }
        ArrayNode tr = o.putArray("turn_of_request");
        turnOfRequest.forEach(tr::add);
        ArrayNode cr = o.putArray("conversation_of_request");
        conversationOfRequest.forEach(cr::add);
        return o;
    }

    /** Lines for the console's isobench detail block. */
    List<String> detailLines(List<RequestResult> requests, double durationS, List<Double> percentiles) {
        List<String> l = new ArrayList<>();
        l.add(row("Conversations completed:", completed() + "/" + conversations.size()));
        l.add(row("Conversation throughput (conv/s):", f2(durationS > 0 ? completed() / durationS : 0.0)));
        l.add(row("Mean conversation duration (s):", f2(durations(percentiles).mean())));
        byTurn(requests, percentiles).forEach((t, s) -> {
            if (t <= STORED_TURNS) {
                l.add(row("Mean TTFT, " + (t == 0 ? "later turns" : "turn " + t) + " (ms):",
                        f2(s.ttft().mean())));
            }
        });
        return l;
    }

    private static String row(String label, String value) {
        return String.format(Locale.ROOT, "%-40s %-10s", label, value);
    }

    private static String f2(double v) {
        return String.format(Locale.ROOT, "%.2f", v);
    }
}
