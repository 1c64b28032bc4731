package io.isobench.session;

import io.isobench.exec.JobResult;
import io.isobench.parse.Metric;
import io.isobench.store.RunDetails;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.IntFunction;

/**
 * How a session retries a job: a failure whose category is retryable (a server that did not come up, a lost node…)
 * runs the job again, and so does a run whose load generator said it was saturated (docs/statistics.md, "Which rounds
 * count": its numbers are the client's, and its round would be excluded) — at most {@code maxAttempts} times in all,
 * waiting {@code firstBackoffMs} before the second attempt and twice as long before each later one. A success with a
 * client that kept up, a failure that is not retryable or the last attempt ends it; the saturated attempts a later one
 * replaced are kept ({@link Attempts#saturated()}) for the run's record.
 *
 * @param maxAttempts    attempts in all (1: no retry)
 * @param firstBackoffMs the wait before the second attempt
 */
record RetryPolicy(int maxAttempts, long firstBackoffMs) {

    /** Three attempts, 500 ms then 1 s apart. */
    static final RetryPolicy DEFAULT = new RetryPolicy(3, 500);

    RetryPolicy {
        if (maxAttempts < 1 || firstBackoffMs < 0) {
            throw new IllegalArgumentException("maxAttempts >= 1 and firstBackoffMs >= 0: " + maxAttempts + ", "
                    + firstBackoffMs);
        }
    }

    /**
     * What a job's attempts gave.
     *
     * @param last      the attempt that ended it: the run recorded
     * @param saturated the earlier attempts that succeeded but whose client was saturated, in order (with the attempt
     *                  number, 1-based), replaced by a later attempt
     */
    record Attempts(JobResult last, List<Saturated> saturated) {
        Attempts {
            saturated = List.copyOf(saturated);
        }
    }

    /** A replaced attempt whose client was saturated: its number (1-based) and its result. */
    record Saturated(int attempt, JobResult result) {
    }

    /** Whether attempt {@code attempt} (1-based), which gave {@code result}, is followed by another. */
    boolean retries(JobResult result, int attempt) {
        if (attempt == maxAttempts) {
            return false;
        }
        return result.success() ? clientSaturated(result) : result.failure().category().retryable();
    }

    /** A run that succeeded but whose load generator said it was saturated. */
    static boolean clientSaturated(JobResult result) {
        return result.success() && result.clientCheck() != null && result.clientCheck().saturated();
    }

    /**
     * Puts the replaced saturated attempts into a run's details as {@value RunDetails#SATURATED_ATTEMPTS} (nothing when
     * there were none): per attempt its number, duration, client check and every metric it measured, so a reader sees
     * what was measured again and whether it differed.
     */
    static void putSaturated(Map<String, Object> details, List<Saturated> saturated) {
        if (saturated.isEmpty()) {
            return;
        }
        List<Map<String, Object>> out = new ArrayList<>();
        for (Saturated s : saturated) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("attempt", s.attempt());
            m.put("duration_ms", s.result().durationMs());
            m.put("client_check", RunDetails.clientCheckSection(s.result().clientCheck()));
            Map<String, Double> metrics = new LinkedHashMap<>();
            for (Metric x : s.result().metrics()) {
                metrics.put(x.name(), x.value());
            }
            m.put("metrics", metrics);
            out.add(m);
        }
        details.put(RunDetails.SATURATED_ATTEMPTS, out);
    }

    /** The wait after attempt {@code attempt} (1-based) before the next. */
    long backoffMs(int attempt) {
        return firstBackoffMs << (attempt - 1);
    }

    /**
     * Runs the job's attempts until one is not retried; each retry is said ({@code retrying JOB after CATEGORY…}, or
     * {@code re-measuring JOB: its client was saturated (REASONS)…}).
     *
     * @param attempt runs attempt n (1-based) and returns its result
     */
    Attempts run(String jobId, IntFunction<JobResult> attempt, Consumer<String> say) {
        JobResult result = null;
        List<Saturated> saturated = new ArrayList<>();
        for (int n = 1; n <= maxAttempts; n++) {
            result = attempt.apply(n);
            if (!retries(result, n)) {
                break;
            }
            long backoffMs = backoffMs(n);
            if (result.success()) {
                saturated.add(new Saturated(n, result));
                say.accept(String.format(Locale.ROOT, "re-measuring %s: its client was saturated (%s) (attempt %d/%d,"
                        + " backoff %d ms)", jobId, String.join("; ", result.clientCheck().reasons()), n + 1,
                        maxAttempts, backoffMs));
            } else {
                say.accept(String.format(Locale.ROOT, "retrying %s after %s (attempt %d/%d, backoff %d ms)", jobId,
                        result.failure().category(), n + 1, maxAttempts, backoffMs));
            }
            sleep(backoffMs);
        }
        return new Attempts(result, saturated);
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
