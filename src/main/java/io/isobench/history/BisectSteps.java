package io.isobench.history;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.isobench.store.TrackCommit;
import io.isobench.track.Bisect;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The bookkeeping of one bisect (docs/statistics.md §21c): every commit asked with its answer and session, and what a
 * change row keeps of it — {@code first_commit} and {@code bisect_json}.
 *
 * <p>Rules: the bisected commits are those after the good (earlier measured) commit up to and including the bad
 * (later measured) one, in first-parent order; index i of {@link Bisect#first} is the i-th of them. When the first
 * commit is found, {@code first_commit} is it; when only skipped commits are left, {@code first_commit} is the earliest
 * commit that can be the first ({@code first_low}) and the JSON holds the range ({@code first_low} … {@code
 * first_high}, {@code found: false}). The JSON: {@code good}, {@code bad}, {@code found}, {@code first_commit},
 * {@code first_low}, {@code first_high}, {@code sessions} (paired sessions of the steps that answered: one or two
 * each), {@code asked} (in the order
 * asked: {@code position}, {@code commit}, {@code answer} carries|clean|skip, {@code session}, {@code evidence}) and
 * {@code skipped} (ascending: {@code position}, {@code commit}, {@code reason}).
 */
final class BisectSteps {

    private static final ObjectMapper JSON = new ObjectMapper();

    /**
     * One commit asked: its position in the track, the answer, the session that gave it (the second when there were
     * two), the paired sessions it took (0 without one, else 1 or 2) and its evidence line.
     */
    record Step(int position, String commit, Bisect.Answer answer, String sessionId, int sessions, String evidence) {
    }

    /** What the change row keeps: the first commit (or the earliest possible one) and the bisect's JSON. */
    record Outcome(String firstCommit, String json) {
    }

    private BisectSteps() {
    }

    /**
     * The row's part of a bisect.
     *
     * @param good   the earlier measured commit
     * @param range  the commits after it up to the later measured commit, in order
     * @param result what {@link Bisect#first} found over {@code range}
     * @param steps  every commit asked, in the order asked
     */
    static Outcome outcome(TrackCommit good, List<TrackCommit> range, Bisect.Result result, List<Step> steps) {
        String low = range.get(result.firstLow()).commitId();
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("good", good.commitId());
        m.put("bad", range.get(range.size() - 1).commitId());
        m.put("found", result.found());
        m.put("first_commit", low);
        m.put("first_low", low);
        m.put("first_high", range.get(result.firstHigh()).commitId());
        m.put("sessions", steps.stream().filter(s -> s.answer() != Bisect.Answer.SKIP).mapToInt(Step::sessions)
                .sum());
        List<Map<String, Object>> asked = new ArrayList<>();
        for (Step s : steps) {
            Map<String, Object> a = new LinkedHashMap<>();
            a.put("position", s.position());
            a.put("commit", s.commit());
            a.put("answer", s.answer().name().toLowerCase(Locale.ROOT));
            a.put("session", s.sessionId());
            a.put("evidence", s.evidence());
            asked.add(a);
        }
        m.put("asked", asked);
        List<Map<String, Object>> skipped = new ArrayList<>();
        for (int i : result.skipped()) {
            TrackCommit c = range.get(i);
            Map<String, Object> k = new LinkedHashMap<>();
            k.put("position", c.position());
            k.put("commit", c.commitId());
            k.put("reason", steps.stream().filter(s -> s.position() == c.position()).map(Step::evidence)
                    .findFirst().orElse(null));
            skipped.add(k);
        }
        m.put("skipped", skipped);
        try {
            return new Outcome(low, JSON.writeValueAsString(m));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("a map of strings and numbers always writes", e);
        }
    }
}
