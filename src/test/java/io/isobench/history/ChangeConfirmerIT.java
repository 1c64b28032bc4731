package io.isobench.history;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.isobench.SharedData;
import io.isobench.plan.Planner;
import io.isobench.session.ProgressMode;
import io.isobench.session.SessionRequest;
import io.isobench.store.RunFilter;
import io.isobench.store.SessionRecord;
import io.isobench.store.Store;
import io.isobench.store.Stores;
import io.isobench.store.TrackChange;
import io.isobench.store.TrackCommit;
import io.isobench.store.TrackRecord;
import io.isobench.task.Suite;
import io.isobench.task.SuiteLoader;
import io.isobench.track.SyntheticHistory;
import io.isobench.track.SyntheticHistory.Change;
import io.isobench.track.SyntheticHistory.History;
import io.isobench.track.SyntheticHistory.Spec;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Isolated;

import java.io.File;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

/**
 * Confirming sessions and bisect with real components: a {@link SyntheticHistory} of 12 commits (commit 8 does 15 %
 * less work, commit 9 does not build, every other commit touches docs or comments), a generic suite measuring the
 * engine's CPU time with its correctness gate, real sessions by the local executor (adaptive rounds, A/A arm) in a
 * DuckDB store. The track rows are written directly, as the track command writes them; asserted from the store.
 */
@Isolated("its assertions come from measured times: nothing runs beside it (ItLocks)")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ChangeConfirmerIT {

    /**
     * About 0.2 s of CPU per run (SyntheticHistory's default): where no writable cgroup v2 exists (cgroup v1 hosts such
     * as this project's CI machines) command_cpu_s comes in 10 ms clock ticks, and at 0.05 s a run was 5 ticks, one
     * tick 19 % — the real change's paired CV reached 12 % and a docs-only commit's estimate 3.3 %; at 20 ticks one is
     * 5 %. A session of 3 to 8 rounds of 3 arms still takes seconds.
     */
    private static final int PASSES = Spec.DEFAULT_PASSES;
    private static final String TASK = "kernel";
    private static final ObjectMapper JSON = new ObjectMapper();

    private Path dir;

    private History history;
    private SessionRequest template;
    private final StringWriter progress = new StringWriter();

    @BeforeAll
    void history(@TempDir Path tmp) throws Exception {
        dir = tmp;
        SharedData.requireService(onPath("gcc") && onPath("make") && onPath("git") && onPath("setsid"),
                "gcc, make, git and setsid for the synthetic engine");
        history = SyntheticHistory.build(dir.resolve("repo"), new Spec(12, List.of(new Change(8, 0.85)), PASSES),
                Set.of(9));
        Path suiteFile = dir.resolve("suite.yaml");
        // the track task names its commits only until the suite format lets a track task omit them: the confirmer
        // replaces both
        Files.writeString(suiteFile, """
                name: synthetic-history
                engine:
                  name: generic
                  repo: %s
                  build: [make]
                tasks:
                  - id: %s
                    human_commit: %s
                    parent_commit: %s
                    offline:
                      command: [./engine]
                      metrics:
                        - {name: command_cpu_s, primary: true}
                    correctness:
                      output: {from: stdout}
                      tolerance: 0.0
                run:
                  rounds: adaptive
                  timeouts: {run_s: 60, build_s: 60}
                """.formatted(history.repo(), TASK, history.commit(12).sha(), history.commit(1).sha()));
        Suite suite = SuiteLoader.load(suiteFile);
        template = new SessionRequest(suite, new Planner.Options(null, null, dir.resolve("work"), null, null),
                dir.resolve("track.duckdb").toString(), null, false, new SessionRequest.ExecutorChoice("local", 1,
                false), new SessionRequest.Feedback(ProgressMode.PLAIN.listener(new PrintWriter(progress, true)),
                id -> "isobench track (resume)"));
    }

    @Test
    @Timeout(value = 10, unit = TimeUnit.MINUTES)
    void aRealChangeIsConfirmedAndADocsOnlyCandidateRejectedWithItsNumbers() {
        // every commit measured: candidates at commit 8 (the real change, faster) and commit 5 (docs only, "slower").
        // The rule abstains on a machine too noisy to judge (its paired per-run CV over the limit: "inconclusive:
        // noisy", stored as rejected; on a CI host with 10-30 % hypervisor steal the real change's CV reached 12 %):
        // such a try (both of the pair's sessions noisy: an inconclusive first session gets a second, §21b) is repeated
        // under a new track, up to 3 tries, chosen by that measured label alone; the first try the rule did not call
        // noisy is judged, and three noisy tries fail
        TrackRecord track = null;
        List<TrackCommit> commits = null;
        ChangeConfirmer confirmer = null;
        List<TrackChange> rows = null;
        for (int attempt = 1; attempt <= 3; attempt++) {
            track = track("t-every1-" + attempt, 1);
            commits = commits(track, 1);
            try (Store store = Stores.open(template.db())) {
                store.putTrack(track);
                store.putTrackCommits(commits);
                store.putTrackChange(candidate(track, 7, 8, "faster", -14.1));
                store.putTrackChange(candidate(track, 4, 5, "slower", 3.2));
                // the docs candidate's session was started by a killed attempt (stored, not complete): it is resumed
                store.putSession(SessionRecord.builder(ConfirmSessions.sessionId(track.trackId(), sha(4), sha(5)))
                        .status("running").build());
            }
            confirmer = new ChangeConfirmer(template, TASK, true);
            long t0 = System.nanoTime();
            rows = confirmer.confirm(track, commits);
            System.out.printf("ChangeConfirmerIT every 1, try %d: %d sessions in %.1f s%n", attempt,
                    confirmer.sessionsStarted(), (System.nanoTime() - t0) / 1e9);
            rows.forEach(r -> System.out.println("  " + r.status() + " " + r.direction() + " " + r.changePct() + " ["
                    + r.ciLowPct() + ", " + r.ciHighPct() + "] " + r.evidence()));
            assertThat(rows).hasSize(2);
            if (!row(rows, 8).evidence().startsWith("inconclusive: noisy")) {
                break;
            }
        }
        TrackChange real = row(rows, 8);
        assertThat(real.status()).as(real.evidence()).isEqualTo("confirmed");
        assertThat(real.direction()).isEqualTo("faster");
        assertThat(real.changePct()).isBetween(-25.0, -8.0);
        assertThat(real.ciLowPct()).isLessThan(real.changePct());
        // confirmed means the interval lies wholly on the faster side (docs/track.md); how far from zero its upper end
        // falls is the machine's noise (-0.57 % on a loaded CI machine), not the rule's
        assertThat(real.ciHighPct()).isGreaterThan(real.changePct()).isNegative();
        assertThat(real.evidence()).startsWith("better: ").contains("A/A ±").contains("round");
        assertThat(real.firstCommit()).as("adjacent: the commit itself, no bisect").isEqualTo(sha(8));
        assertThat(real.bisectJson()).isNull();
        // the deciding session: the pair's first, or its second when the first was inconclusive (§21b)
        int realSeconds = count(real.evidence());
        assertThat(real.sessionId()).isEqualTo(ConfirmSessions.sessionId(track.trackId(), sha(7), sha(8),
                1 + realSeconds));
        assertThat(real.candidatePValue()).isEqualTo(0.001);

        TrackChange docs = row(rows, 5);
        assertThat(docs.status()).as(docs.evidence()).isEqualTo("rejected");
        assertThat(docs.direction()).as(docs.evidence()).isEqualTo("none");
        // no change: its interval holds zero, and the estimate is near it
        assertThat(docs.changePct()).isNotNull().isBetween(-3.0, 3.0);
        assertThat(docs.ciLowPct()).as(docs.evidence()).isLessThan(0.0);
        assertThat(docs.ciHighPct()).as(docs.evidence()).isGreaterThan(0.0);
        assertThat(docs.evidence()).matches("(equivalent|inconclusive).*").contains("A/A ±");
        assertThat(docs.firstCommit()).isNull();
        assertThat(confirmer.sessionsStarted()).isEqualTo(2 + realSeconds + count(docs.evidence()));
        try (Store store = Stores.open(template.db())) {
            assertThat(store.session(docs.sessionId()).orElseThrow().status()).isEqualTo("complete");
        }

        // resume: a second call reads both stored sessions and runs nothing
        int runs = runs();
        ChangeConfirmer again = new ChangeConfirmer(template, TASK, true);
        assertThat(again.confirm(track, commits)).extracting(TrackChange::status, TrackChange::sessionId)
                .containsExactlyElementsOf(rows.stream().map(r -> tuple(r.status(),
                        r.sessionId())).toList());
        assertThat(again.sessionsStarted()).isZero();
        assertThat(runs()).isEqualTo(runs);
    }

    @Test
    @Timeout(value = 10, unit = TimeUnit.MINUTES)
    void aChangeBetweenMeasuredCommitsIsBisectedPastACommitThatDoesNotBuild() throws Exception {
        // every 5th commit measured (1, 6, 11): the change is found between 6 and 11; 9 does not build
        TrackRecord track = track("t-every5", 5);
        List<TrackCommit> commits = commits(track, 5);
        try (Store store = Stores.open(template.db())) {
            store.putTrack(track);
            store.putTrackCommits(commits);
            store.putTrackChange(candidate(track, 6, 11, "faster", -13.0));
        }
        ChangeConfirmer confirmer = new ChangeConfirmer(template, TASK, true);
        long t0 = System.nanoTime();
        List<TrackChange> rows = confirmer.confirm(track, commits);
        System.out.printf("ChangeConfirmerIT every 5: %d sessions in %.1f s%n", confirmer.sessionsStarted(),
                (System.nanoTime() - t0) / 1e9);

        rows.forEach(r -> System.out.println("  " + r.status() + " " + r.evidence() + "\n  " + r.bisectJson()));
        assertThat(rows).hasSize(1);
        TrackChange c = rows.get(0);
        assertThat(c.status()).as(c.evidence()).isEqualTo("confirmed");
        assertThat(c.direction()).isEqualTo("faster");
        assertThat(c.firstCommit()).as(c.bisectJson()).isEqualTo(sha(8));
        JsonNode b = JSON.readTree(c.bisectJson());
        assertThat(b.path("found").asBoolean()).isTrue();
        assertThat(b.path("good").asText()).isEqualTo(sha(6));
        assertThat(b.path("bad").asText()).isEqualTo(sha(11));
        // asked: 9 (the midpoint of 7..10: does not build, skipped), then 8 (carries), then 7 (clean)
        List<String> asked = new ArrayList<>();
        b.path("asked").forEach(s -> asked.add(s.path("commit").asText() + " " + s.path("answer").asText()));
        assertThat(asked).containsExactly(sha(9) + " skip", sha(8) + " carries", sha(7) + " clean");
        // a step whose first session's interval holds the change's midpoint gets a second (docs/statistics.md §21c):
        // its evidence names the first
        int stepSeconds = count(c.bisectJson());
        assertThat(b.path("sessions").asInt()).isEqualTo(2 + stepSeconds);
        String ofTheChange = " of the change " + ConfirmEvidence.pct(c.changePct());
        b.path("asked").forEach(s -> {
            String evidence = s.path("evidence").asText();
            String answer = s.path("answer").asText();
            if (answer.equals("skip")) {
                assertThat(evidence).startsWith("not built: ");
            } else {
                assertThat(evidence).as(s.toString()).contains("; " + answer + ": estimate ").endsWith(ofTheChange);
            }
        });
        assertThat(b.path("skipped")).hasSize(1);
        assertThat(b.path("skipped").get(0).path("commit").asText()).isEqualTo(sha(9));
        assertThat(b.path("skipped").get(0).path("reason").asText()).startsWith("not built: later commit BUILD_FAILED");
        // the confirming session and three asked (one skipped after its session), plus the candidate's second session
        // when its first was inconclusive (docs/statistics.md §21b: its evidence names the first) and the steps' second
        int seconds = count(c.evidence()) + stepSeconds;
        assertThat(confirmer.sessionsStarted()).as("the confirming session and three asked, %d second", seconds)
                .isEqualTo(4 + seconds);

        int runs = runs();
        ChangeConfirmer again = new ChangeConfirmer(template, TASK, true);
        assertThat(again.confirm(track, commits)).containsExactlyElementsOf(rows);
        assertThat(again.sessionsStarted()).isZero();
        assertThat(runs()).isEqualTo(runs);
    }

    /** Second sessions named in a text: each is "second session (the first, ID: …". */
    private static int count(String text) {
        int n = 0;
        for (int i = text.indexOf("second session (the first, "); i >= 0;
                i = text.indexOf("second session (the first, ", i + 1)) {
            n++;
        }
        return n;
    }

    private TrackRecord track(String id, int every) {
        return new TrackRecord(id, TASK, "synthetic-history", sha(1) + ".." + sha(12), history.repo().toString(),
                every, 3, sha(1), "command_cpu_s", "lower", id + "-series", Instant.parse("2026-11-29T00:00:00Z"),
                "measured", null);
    }

    /** Positions 0..11 = commits 1..12; selected: every N-th from the base and the last. */
    private List<TrackCommit> commits(TrackRecord track, int every) {
        List<TrackCommit> out = new ArrayList<>();
        for (int i = 1; i <= 12; i++) {
            boolean selected = (i - 1) % every == 0 || i == 12;
            out.add(new TrackCommit(track.trackId(), i - 1, sha(i), i == 1 ? null : sha(i - 1),
                    history.commit(i).subject(), selected, selected ? "measured" : "not_selected", null));
        }
        return out;
    }

    private TrackChange candidate(TrackRecord track, int earlier, int later, String direction, double pct) {
        return new TrackChange(track.trackId(), TASK, later - 1, sha(later), sha(earlier), "command_cpu_s", direction,
                pct, null, null, "candidate", null, "candidate: t test p = 0.001", 0.001, null, null,
                Instant.parse("2026-11-29T00:00:00Z"));
    }

    private static TrackChange row(List<TrackChange> rows, int commit) {
        return rows.stream().filter(r -> r.position() == commit - 1).findFirst().orElseThrow();
    }

    private String sha(int index) {
        return history.commit(index).sha();
    }

    private int runs() {
        AtomicInteger n = new AtomicInteger();
        try (Store store = Stores.open(template.db())) {
            store.forEachRun(RunFilter.runs(), r -> n.incrementAndGet());
        }
        return n.get();
    }

    private static boolean onPath(String tool) {
        for (String p : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
            if (Files.isExecutable(Path.of(p, tool))) {
                return true;
            }
        }
        return false;
    }
}
