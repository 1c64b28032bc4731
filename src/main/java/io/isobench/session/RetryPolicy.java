package io.isobench.session;

import io.isobench.exec.JobResult;

import java.util.Locale;
import java.util.function.Consumer;
import java.util.function.IntFunction;

/**
 * How a session retries a job: a failure whose category is retryable (a server that did not come up, a lost node…)
 * runs the job again, at most {@code maxAttempts} times in all, waiting {@code firstBackoffMs} before the second
 * attempt and twice as long before each later one. A success, a failure that is not retryable or the last attempt
 * ends it.
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

    /** Whether attempt {@code attempt} (1-based), which gave {@code result}, is followed by another. */
    boolean retries(JobResult result, int attempt) {
        return !(result.success() || !result.failure().category().retryable() || attempt == maxAttempts);
    }

    /** The wait after attempt {@code attempt} (1-based) before the next. */
    long backoffMs(int attempt) {
        return firstBackoffMs << (attempt - 1);
    }

    /**
     * Runs the job's attempts until one is not retried; each retry is said ({@code retrying JOB after CATEGORY…}).
     *
     * @param attempt runs attempt n (1-based) and returns its result
     */
    JobResult run(String jobId, IntFunction<JobResult> attempt, Consumer<String> say) {
        JobResult result = null;
        for (int n = 1; n <= maxAttempts; n++) {
            result = attempt.apply(n);
            if (!retries(result, n)) {
                break;
            }
            long backoffMs = backoffMs(n);
            say.accept(String.format(Locale.ROOT, "retrying %s after %s (attempt %d/%d, backoff %d ms)", jobId,
                    result.failure().category(), n + 1, maxAttempts, backoffMs));
            sleep(backoffMs);
        }
        return result;
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
