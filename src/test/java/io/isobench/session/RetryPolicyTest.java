package io.isobench.session;

import io.isobench.exec.JobResult;
import io.isobench.parse.Failure;
import io.isobench.parse.FailureCategory;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** What a session retries, how often, and how long it waits. */
class RetryPolicyTest {

    private static JobResult failed(FailureCategory c) {
        return JobResult.notStarted(new Failure(c, "x", List.of()), "", List.of());
    }

    @Test
    void aRetryableFailureRunsAgainWithADoublingBackoff() {
        FailureCategory retryable = Arrays.stream(FailureCategory.values())
                .filter(FailureCategory::retryable).findFirst().orElseThrow();
        List<String> said = new ArrayList<>();
        int[] calls = {0};
        JobResult r = new RetryPolicy(3, 1).run("t/b/r0", n -> {
            calls[0]++;
            return failed(retryable);
        }, said::add);
        assertThat(calls[0]).isEqualTo(3);
        assertThat(r.failure().category()).isEqualTo(retryable);
        assertThat(said).containsExactly(
                "retrying t/b/r0 after " + retryable + " (attempt 2/3, backoff 1 ms)",
                "retrying t/b/r0 after " + retryable + " (attempt 3/3, backoff 2 ms)");
        assertThat(RetryPolicy.DEFAULT.backoffMs(1)).isEqualTo(500);
        assertThat(RetryPolicy.DEFAULT.backoffMs(2)).isEqualTo(1000);
    }

    @Test
    void aFailureThatIsNotRetryableRunsOnce() {
        FailureCategory fatal = Arrays.stream(FailureCategory.values())
                .filter(c -> !c.retryable()).findFirst().orElseThrow();
        int[] calls = {0};
        new RetryPolicy(3, 1).run("j", n -> {
            calls[0]++;
            return failed(fatal);
        }, s -> { });
        assertThat(calls[0]).isEqualTo(1);
    }
}
