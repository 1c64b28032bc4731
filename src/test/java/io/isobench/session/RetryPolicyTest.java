package io.isobench.session;

import io.isobench.exec.JobResult;
import io.isobench.probe.LostRequests;
import io.isobench.parse.Failure;
import io.isobench.parse.FailureCategory;
import io.isobench.parse.Metric;
import io.isobench.store.RunDetails;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

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
        }, said::add).last();
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

    /** A successful run whose client check says {@code saturated} (a reason as the check writes it), tpot {@code v}. */
    private static JobResult measured(boolean saturated, double v) {
        RunDetails.ClientCheck check = new RunDetails.ClientCheck(saturated, saturated
                ? List.of("event-loop lag p99 17.16 ms > 10 ms (8 of 243 ticks over)") : List.of(), 3.0,
                saturated ? 17.16 : 1.2, saturated ? 24.7 : 2.5, null);
        return new JobResult(null, List.of(Metric.of("tpot_ms_mean", v)), null, LostRequests.NONE, "", 10, Map.of(),
                List.of(), List.of(), null, null, null, null, null, Map.of(), null, check);
    }

    @Test
    void aRunWhoseClientWasSaturatedIsMeasuredAgainAndTheReplacedAttemptKept() {
        List<String> said = new ArrayList<>();
        List<JobResult> results = List.of(measured(true, 13.5), measured(false, 13.6));
        RetryPolicy.Attempts a = new RetryPolicy(3, 1).run("tpot/human/r3", n -> results.get(n - 1), said::add);
        assertThat(a.last()).isSameAs(results.get(1));
        assertThat(a.saturated()).extracting(RetryPolicy.Saturated::attempt).containsExactly(1);
        assertThat(said).containsExactly("re-measuring tpot/human/r3: its client was saturated (event-loop lag p99"
                + " 17.16 ms > 10 ms (8 of 243 ticks over)) (attempt 2/3, backoff 1 ms)");
        // the record keeps what the replaced attempt measured and why it was replaced
        Map<String, Object> details = new LinkedHashMap<>();
        RetryPolicy.putSaturated(details, a.saturated());
        assertThat(details).containsOnlyKeys(RunDetails.SATURATED_ATTEMPTS);
        @SuppressWarnings("unchecked")
        Map<String, Object> first = ((List<Map<String, Object>>) details.get(RunDetails.SATURATED_ATTEMPTS)).get(0);
        assertThat(first).containsEntry("attempt", 1).containsEntry("metrics", Map.of("tpot_ms_mean", 13.5));
        assertThat(first.get("client_check").toString()).contains("saturated=true").contains("17.16 ms > 10 ms");
        // nothing replaced: no section
        Map<String, Object> none = new LinkedHashMap<>();
        RetryPolicy.putSaturated(none, List.of());
        assertThat(none).isEmpty();
    }

    @Test
    void aClientSaturatedInEveryAttemptEndsWithTheLastOneItsRoundExcluded() {
        int[] calls = {0};
        RetryPolicy.Attempts a = new RetryPolicy(3, 1).run("j", n -> {
            calls[0]++;
            return measured(true, 10 + n);
        }, s -> { });
        assertThat(calls[0]).isEqualTo(3);
        assertThat(a.last().clientCheck().saturated()).isTrue();
        assertThat(a.last().metrics().get(0).value()).isEqualTo(13.0);
        assertThat(a.saturated()).extracting(RetryPolicy.Saturated::attempt).containsExactly(1, 2);
    }

    @Test
    void aClientThatKeptUpRunsOnce() {
        int[] calls = {0};
        RetryPolicy.Attempts a = RetryPolicy.DEFAULT.run("j", n -> {
            calls[0]++;
            return measured(false, 1);
        }, s -> { });
        assertThat(calls[0]).isEqualTo(1);
        assertThat(a.saturated()).isEmpty();
    }
}
