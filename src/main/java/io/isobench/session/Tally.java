package io.isobench.session;

import java.util.LinkedHashMap;
import java.util.Map;

/** Counts of a session attempt, updated by the job threads. */
final class Tally {
    int total;
    final long startNs = System.nanoTime();
    int done;
    int ran;
    int ok;
    int bad;
    final Map<String, Integer> failures = new LinkedHashMap<>();

    Tally(int total, int done) {
        this.total = total;
        this.done = done;
    }

    /** Jobs planned that will not run (an adaptive session's stopped task): the total shrinks by them. */
    synchronized void skip(int jobs) {
        total -= jobs;
    }

    /** One job's run recorded in this attempt ({@code done} counts jobs, as the progress lines do). */
    synchronized void count(String failureCategory) {
        done++;
        countRun(failureCategory);
    }

    /** One run recorded in this attempt (a job's or an accuracy run). */
    synchronized void countRun(String failureCategory) {
        ran++;
        if (failureCategory == null) {
            ok++;
        } else {
            bad++;
            failures.merge(failureCategory, 1, Integer::sum);
        }
    }
}

