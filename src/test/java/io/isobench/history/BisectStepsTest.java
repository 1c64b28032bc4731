package io.isobench.history;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.isobench.store.TrackCommit;
import io.isobench.track.Bisect;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** The bisect's bookkeeping: the row's first commit and its JSON, over {@link Bisect#first} with recorded answers. */
class BisectStepsTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    private static TrackCommit commit(int position) {
        return new TrackCommit("t1", position, "c" + position, "c" + (position - 1), "subject " + position,
                position % 5 == 0, "measured", null);
    }

    /** Commits 6..10 after the good commit 5; the answers per position; the steps recorded as the confirmer does. */
    private static BisectSteps.Outcome bisect(List<Bisect.Answer> answers) {
        List<TrackCommit> range = new ArrayList<>();
        for (int p = 6; p <= 10; p++) {
            range.add(commit(p));
        }
        List<BisectSteps.Step> steps = new ArrayList<>();
        Bisect.Result r = Bisect.first(range.size(), i -> {
            Bisect.Answer a = answers.get(i);
            steps.add(new BisectSteps.Step(range.get(i).position(), range.get(i).commitId(), a, "s" + i,
                    a == Bisect.Answer.SKIP ? 0 : 1, "evidence " + i));
            return a;
        });
        return BisectSteps.outcome(commit(5), range, r, steps);
    }

    @Test
    void theFirstCommitFoundPastASkippedOneWithEverythingAskedRecorded() throws Exception {
        // 6 clean, 7 carries (first), 8 does not build, 9 carries, 10 the measured bad commit
        BisectSteps.Outcome o = bisect(List.of(Bisect.Answer.CLEAN, Bisect.Answer.CARRIES, Bisect.Answer.SKIP,
                Bisect.Answer.CARRIES, Bisect.Answer.CARRIES));
        assertThat(o.firstCommit()).isEqualTo("c7");
        assertThat(o.json()).isEqualTo("{\"good\":\"c5\",\"bad\":\"c10\",\"found\":true,\"first_commit\":\"c7\","
                + "\"first_low\":\"c7\",\"first_high\":\"c7\",\"sessions\":2,\"asked\":["
                + "{\"position\":8,\"commit\":\"c8\",\"answer\":\"skip\",\"session\":\"s2\",\"evidence\":\"evidence 2\"},"
                + "{\"position\":7,\"commit\":\"c7\",\"answer\":\"carries\",\"session\":\"s1\",\"evidence\":\"evidence 1\"},"
                + "{\"position\":6,\"commit\":\"c6\",\"answer\":\"clean\",\"session\":\"s0\",\"evidence\":\"evidence 0\"}],"
                + "\"skipped\":[{\"position\":8,\"commit\":\"c8\",\"reason\":\"evidence 2\"}]}");
    }

    @Test
    void onlySkippedCommitsLeftGiveTheEarliestPossibleCommitAndTheRange() throws Exception {
        // 6 clean, 7 and 8 do not build, 9 carries: the first is 7, 8 or 9
        BisectSteps.Outcome o = bisect(List.of(Bisect.Answer.CLEAN, Bisect.Answer.SKIP, Bisect.Answer.SKIP,
                Bisect.Answer.CARRIES, Bisect.Answer.CARRIES));
        assertThat(o.firstCommit()).isEqualTo("c7");
        JsonNode j = JSON.readTree(o.json());
        assertThat(j.path("found").asBoolean()).isFalse();
        assertThat(j.path("first_low").asText()).isEqualTo("c7");
        assertThat(j.path("first_high").asText()).isEqualTo("c9");
        List<String> skipped = new ArrayList<>();
        j.path("skipped").forEach(s -> skipped.add(s.path("commit").asText()));
        assertThat(skipped).containsExactly("c7", "c8");
    }

    @Test
    void aChangeAtTheBadCommitItselfIsFoundWhenTheCommitsAskedAreClean() throws Exception {
        BisectSteps.Outcome o = bisect(List.of(Bisect.Answer.CLEAN, Bisect.Answer.CLEAN, Bisect.Answer.CLEAN,
                Bisect.Answer.CLEAN, Bisect.Answer.CARRIES));
        assertThat(o.firstCommit()).isEqualTo("c10");
        JsonNode j = JSON.readTree(o.json());
        assertThat(j.path("found").asBoolean()).isTrue();
        assertThat(j.path("sessions").asInt()).isEqualTo(2); // 8, then 9: both clean
        assertThat(j.path("skipped")).isEmpty();
    }
}
