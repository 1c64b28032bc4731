package io.isobench.parse;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An engine's own failure lines (its adapter's, passed as data) are matched after the generic table
 * (docs/engines.md, "Failure lines"): a line only the engine's list knows is classified by it; on a tie of
 * precedence the table's signature wins; advice lines never match; no lines: the generic table alone.
 */
class FailureClassifierEngineLinesTest {

    private static final FailureSignature OWN = new FailureSignature("Scheduler lost its KV pool",
            FailureCategory.GPU_OOM, "the planted engine's KV pool is gone");

    @Test
    void aLineOnlyTheEnginesListKnowsIsClassifiedByIt() {
        String text = "Traceback (most recent call last):\nRuntimeError: Scheduler lost its KV pool (rank 0)\n";
        assertThat(FailureClassifier.classify(text).orElseThrow().category()).isEqualTo(FailureCategory.UNKNOWN);
        Failure f = FailureClassifier.classify(text, List.of(OWN)).orElseThrow();
        assertThat(f.category()).isEqualTo(FailureCategory.GPU_OOM);
        assertThat(f.detail()).startsWith("the planted engine's KV pool is gone: RuntimeError: Scheduler lost");
        // an INFO/WARNING record quoting it is advice, never a signature
        assertThat(FailureClassifier.classify("WARNING 01-01 scheduler.py:3] Scheduler lost its KV pool? retrying\n",
                List.of(OWN)).map(Failure::category)).isNotEqualTo(Optional.of(FailureCategory.GPU_OOM));
    }

    @Test
    void onATieTheGenericTablesSignatureWins() {
        String text = "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2 GiB\n"
                + "RuntimeError: Scheduler lost its KV pool\n";
        Failure generic = FailureClassifier.classify(text).orElseThrow();
        Failure withOwn = FailureClassifier.classify(text, List.of(OWN)).orElseThrow();
        assertThat(withOwn.category()).isEqualTo(FailureCategory.GPU_OOM);
        assertThat(withOwn.detail()).isEqualTo(generic.detail());
    }
}
