package io.isobench;

import io.isobench.parse.Better;
import io.isobench.parse.Metric;
import io.isobench.store.RunRecord;
import io.isobench.store.SessionRecord;
import io.isobench.store.Store;
import io.isobench.store.TrackChange;
import io.isobench.store.TrackCommit;
import io.isobench.store.TrackRecord;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * A store holding one track as {@code isobench track} leaves it, rows written directly (the outputs' fixture of issue
 * 30): task {@code decode}, 8 first-parent commits, every 2nd measured (positions 0, 2, 4, 6, 7), 3 runs each of
 * {@code command_cpu_s} in session {@link #SERIES}; commit 6 does not build; commit 3's subject holds a
 * {@code <script>} element and a secret. Change rows: a candidate at 2 (vs 0), a confirmed faster change at 4 (vs 2,
 * bisected to 3, confirmed by {@link #CONFIRMING}), a rejected candidate at 7 (vs 4).
 */
public final class TrackHistoryStore {

    public static final String TASK = "decode";
    public static final String TRACK = "track-decode-4f2a";
    public static final String SERIES = "track-series-decode";
    /** The confirming session's id the confirmed row names (a session of the store when the test writes one). */
    public static final String CONFIRMING = "s-native";
    public static final String SECRET = "hf_abcdefghijklmnopqrstuvwxyz0123456789";
    public static final String SCRIPT_SUBJECT = "Unroll <script>alert(1)</script> the loop, token " + SECRET;
    private static final Instant T0 = Instant.parse("2026-11-28T20:00:00Z");
    private static final String[] SUBJECTS = {"Initial engine", "docs: fix a typo", "Comment the kernel",
            SCRIPT_SUBJECT, "Merge pull request #7 from dev/speedup", "docs: README, \"quotes\", commas",
            "Break the build", "Tidy comments"};

    private TrackHistoryStore() {
    }

    /** The full id of the commit at {@code position}. */
    public static String commit(int position) {
        return String.valueOf((char) ('a' + position)).repeat(8) + "0123456789abcdef0123456789abcdef";
    }

    /** Writes the track, its commits, its series runs and its change rows. */
    public static void write(Store store) {
        store.putSession(SessionRecord.builder(SERIES).time(T0, T0.plusSeconds(900))
                .machine("vm", "AMD EPYC, 2 cores", "none", "{}").seed(7L).status("complete").build());
        store.putTrack(new TrackRecord(TRACK, TASK, "llama2c", commit(0) + ".." + commit(7), "https://example/llama2.c",
                2, 3, commit(0), "command_cpu_s", "lower", SERIES, T0, "done", "{}"));
        List<TrackCommit> commits = new ArrayList<>();
        for (int p = 0; p < SUBJECTS.length; p++) {
            boolean selected = p % 2 == 0 || p == SUBJECTS.length - 1;
            String state = !selected ? "not_selected" : p == 6 ? "build_failed" : "measured";
            commits.add(new TrackCommit(TRACK, p, commit(p), p == 0 ? null : commit(p - 1), SUBJECTS[p], selected,
                    state, p == 6 ? "engine.c:12: error: expected ';' before '}' token\nmake: *** [all] Error 1" : null));
        }
        store.putTrackCommits(commits);
        double[][] values = {{10.0, 10.2, 9.9}, null, {10.1, 9.95, 10.05}, null, {8.5, 8.6, 8.45}, null, null,
                {8.55, 8.5, 8.6}};
        List<RunRecord> runs = new ArrayList<>();
        int job = 0;
        for (int pass = 0; pass < 3; pass++) {
            for (int p = 0; p < values.length; p++) {
                if (values[p] != null) {
                    runs.add(run(p, pass, values[p][pass], job++));
                }
            }
        }
        runs.add(run(7, 3, null, job));
        store.putRuns(runs);
        store.putTrackChange(new TrackChange(TRACK, TASK, 2, commit(2), commit(0), "command_cpu_s", "faster", -0.3,
                null, null, "candidate", null, null, 0.41, null, null, T0.plusSeconds(900)));
        store.putTrackChange(new TrackChange(TRACK, TASK, 4, commit(4), commit(2), "command_cpu_s", "faster",
                -15.2345, -16.01, -14.499, "confirmed", commit(3),
                "better: speedup 1.180× [1.172, 1.189] (95 % CI), A/A band 0.4 %, 6 rounds (all decided)", 0.0004,
                CONFIRMING, "{\"good\":\"" + commit(2) + "\",\"bad\":\"" + commit(4) + "\",\"found\":true,"
                        + "\"first_commit\":\"" + commit(3) + "\",\"first_low\":\"" + commit(3) + "\",\"first_high\":\""
                        + commit(3) + "\",\"sessions\":1,\"asked\":[{\"position\":3,\"commit\":\"" + commit(3)
                        + "\",\"answer\":\"carries\",\"session\":\"" + CONFIRMING + "\",\"evidence\":\"better\"}],"
                        + "\"skipped\":[]}",
                T0.plusSeconds(1200)));
        store.putTrackChange(new TrackChange(TRACK, TASK, 7, commit(7), commit(4), "command_cpu_s", "slower", 0.59,
                -0.8, 1.9, "rejected", null, "equivalent within ±2 %: speedup 0.994× [0.981, 1.008], token " + SECRET,
                0.03, "s-confirm-7", null, T0.plusSeconds(1500)));
    }

    private static RunRecord run(int position, int pass, Double cpuS, int job) {
        String id = SERIES + "/" + TASK + "/track/" + position + "/r" + pass;
        return RunRecord.builder(id)
                .session(SERIES)
                .kind(RunRecord.RunKind.MEASURED)
                .commit(commit(position), commit(position).substring(0, 8))
                .armLabel("track")
                .modeLabel("throughput")
                .round(pass)
                .startedAt(T0.plusSeconds(10L * job))
                .durationMs(400.0)
                .pipelineLabel("native")
                .status(cpuS == null ? RunRecord.RunStatus.FAILED : RunRecord.RunStatus.SUCCESS)
                .failure(cpuS == null ? new RunRecord.FailureInfo("UNKNOWN", "exit 139", "Segmentation fault", false)
                        : null)
                .primary("command_cpu_s", cpuS, cpuS == null ? null : "measured")
                .detailsJson("{\"task\":\"" + TASK + "\",\"job\":\"" + TASK + "/track/" + position + "/r" + pass
                        + "\",\"job_index\":" + job + ",\"primary_definition\":{\"better\":\"lower\","
                        + "\"name\":\"command_cpu_s\",\"unit\":\"s\"}}")
                .metrics(cpuS == null ? List.of() : List.of(new Metric("command_cpu_s", cpuS, "s", Better.LOWER)))
                .build();
    }
}
