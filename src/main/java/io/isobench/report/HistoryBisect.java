package io.isobench.report;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.util.ArrayList;
import java.util.List;

/**
 * A confirmed change's bisect as the store keeps it ({@code track_change.bisect_json}, written by
 * {@code history.BisectSteps}): the commits asked in order with their answer ({@code carries}, {@code clean},
 * {@code skip}) and confirming session, the skipped commits (they did not build), and whether the first commit was
 * found or only bounded ({@code first_low}..{@code first_high}: the skipped commits between could not be told apart).
 *
 * @param found     whether the first commit was found (false: only bounded by skipped commits)
 * @param firstLow  the earliest commit that can be the first
 * @param firstHigh the latest commit that can be the first
 * @param asked     every commit asked, in the order asked
 * @param skipped   the commits skipped (each with its reason in {@link Step#evidence})
 */
record HistoryBisect(boolean found, String firstLow, String firstHigh, List<Step> asked, List<Step> skipped) {

    private static final ObjectMapper JSON = new ObjectMapper();

    /**
     * One commit of a bisect.
     *
     * @param commit   its full id
     * @param answer   carries, clean or skip (null for a skipped commit's entry)
     * @param session  the session that asked it, or null
     * @param evidence its one-line evidence, or null
     */
    record Step(String commit, String answer, String session, String evidence) {
    }

    /** The bisect of the stored text; null when there is none or it is not this shape (shown as stored then). */
    static HistoryBisect parse(String json) {
        if (json == null || json.isBlank()) {
            return null;
        }
        try {
            JsonNode n = JSON.readTree(json);
            if (n == null || !n.isObject() || !n.path("asked").isArray()) {
                return null;
            }
            return new HistoryBisect(n.path("found").asBoolean(true), text(n, "first_low"), text(n, "first_high"),
                    steps(n.path("asked")), steps(n.path("skipped")));
        } catch (JsonProcessingException e) {
            return null;
        }
    }

    private static List<Step> steps(JsonNode array) {
        List<Step> out = new ArrayList<>();
        for (JsonNode s : array) {
            String commit = text(s, "commit");
            if (commit != null) {
                out.add(new Step(commit, text(s, "answer"), text(s, "session"),
                        text(s, s.has("evidence") ? "evidence" : "reason")));
            }
        }
        return out;
    }

    private static String text(JsonNode n, String field) {
        JsonNode v = n.get(field);
        return v == null || v.isNull() ? null : v.asText();
    }

    /**
     * In words, short ids: {@code asked dddddddd: carries, cccccccc: clean; skipped gggggggg (did not build)}, and
     * when not found {@code first commit between X and Y}.
     */
    String describe() {
        StringBuilder b = new StringBuilder();
        b.append(asked.isEmpty() ? "no session asked" : "asked ");
        for (int i = 0; i < asked.size(); i++) {
            Step s = asked.get(i);
            b.append(i == 0 ? "" : ", ").append(HistoryModel.shortId(s.commit())).append(": ")
                    .append(s.answer() == null ? "?" : s.answer());
        }
        if (!skipped.isEmpty()) {
            b.append("; skipped ");
            for (int i = 0; i < skipped.size(); i++) {
                b.append(i == 0 ? "" : ", ").append(HistoryModel.shortId(skipped.get(i).commit()));
            }
            b.append(" (did not build)");
        }
        if (!found) {
            b.append("; the first commit lies between ").append(HistoryModel.shortId(firstLow)).append(" and ")
                    .append(HistoryModel.shortId(firstHigh)).append(": skipped commits between could not be asked");
        }
        return b.toString();
    }

    /** What the bisect said of the commit with this id: {@code carries}, {@code clean}, {@code skipped}; or null. */
    String answerFor(String commitId) {
        for (Step s : skipped) {
            if (HistoryModel.sameCommit(s.commit(), commitId)) {
                return "skipped (did not build)";
            }
        }
        for (Step s : asked) {
            if (HistoryModel.sameCommit(s.commit(), commitId)) {
                return s.answer();
            }
        }
        return null;
    }
}
