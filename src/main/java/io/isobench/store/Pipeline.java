package io.isobench.store;

import java.util.Optional;

/**
 * The pipeline a run came from, as stored in the {@code pipeline} column of runs and sources: one of the
 * {@link Id ids} isobench writes, or a label it does not know.
 *
 * <p><b>Unknown labels are kept, verbatim.</b> A store may hold pipeline text that no {@link Id} names (a row
 * written by another tool, or by a version with a pipeline since dropped). {@link #of(String)} never throws for
 * such text and never maps it onto a known id: it gives a pipeline with {@link #id()} empty and {@link #label()}
 * the exact stored text, so reading and writing such a row back is byte-identical, and such a pipeline equals
 * only a pipeline with the same text. Code that wants a known pipeline compares with the constants
 * ({@link #NATIVE}, …) or {@link #is(Id)}; an unknown one matches none of them, exactly as the text did before.
 *
 * @param known the pipeline id, or null when the label names none
 * @param label the exact stored text; never null
 */
public record Pipeline(Id known, String label) {

    /** Every pipeline id isobench writes; {@link #label()} is the exact DB text. */
    public enum Id {
        /** Measured runs of a native session. */
        NATIVE("native"),
        /** Correctness-check runs of a native session. */
        NATIVE_CHECK("native-check"),
        /** Accuracy runs of a native session. */
        NATIVE_ACCURACY("native-accuracy"),
        /** Pilot runs of a native session's {@code sweep: auto} task (the baseline's, before round 1; never measured). */
        NATIVE_PILOT("native-pilot"),
        /** Rows imported from a published HF table. */
        HF_IMPORT("hf_import"),
        /** Legacy R8: {@code reruns/4_fixable}. */
        RERUN_4_FIXABLE("rerun_4_fixable"),
        /** Legacy R7: {@code results/docker}. */
        DOCKER_3WAY("docker_3way"),
        /** Legacy R1: {@code results/modal}. */
        MODAL("modal"),
        /** Legacy R3: per-arm files of the 2026-01-18/19 run. */
        RUN_2026_01_18_19("run_2026-01-18/19"),
        /** Legacy R4/R5: {@code separate_*} folders. */
        SEPARATE("separate"),
        /** Legacy SGLang results. */
        SGLANG("sglang"),
        /** Legacy R6: single-version docker files. */
        DOCKER_SINGLE("docker_single"),
        /** Legacy runner output of micro-benchmarks. */
        MICRO("micro"),
        /** Legacy runner output. */
        NATIVE_RUNNER("native_runner");

        private final String label;

        Id(String label) {
            this.label = label;
        }

        /** The exact DB text. */
        public String label() {
            return label;
        }
    }

    public static final Pipeline NATIVE = of(Id.NATIVE);
    public static final Pipeline NATIVE_CHECK = of(Id.NATIVE_CHECK);
    public static final Pipeline NATIVE_ACCURACY = of(Id.NATIVE_ACCURACY);
    public static final Pipeline NATIVE_PILOT = of(Id.NATIVE_PILOT);
    public static final Pipeline HF_IMPORT = of(Id.HF_IMPORT);

    public Pipeline {
        if (label == null) {
            throw new IllegalArgumentException("pipeline label must not be null");
        }
        if (known != null && !known.label.equals(label)) {
            throw new IllegalArgumentException("pipeline " + known + " has label '" + known.label + "', not '" + label + "'");
        }
        if (known == null) {
            for (Id id : Id.values()) {
                if (id.label.equals(label)) {
                    throw new IllegalArgumentException("'" + label + "' is pipeline " + id + ": use Pipeline.of");
                }
            }
        }
    }

    /** The pipeline of a known id. */
    public static Pipeline of(Id id) {
        return new Pipeline(id, id.label);
    }

    /**
     * The pipeline stored as {@code label}, losslessly: the known id whose label is exactly this text (case and
     * spaces count), else an unknown pipeline keeping the text. Null for null (no pipeline recorded).
     */
    public static Pipeline of(String label) {
        if (label == null) {
            return null;
        }
        for (Id id : Id.values()) {
            if (id.label.equals(label)) {
                return of(id);
            }
        }
        return new Pipeline(null, label);
    }

    /** The id, or empty when the stored label names none. */
    public Optional<Id> id() {
        return Optional.ofNullable(known);
    }

    /** Whether this is pipeline {@code id}. */
    public boolean is(Id id) {
        return known == id;
    }

    /** The label of {@code p}, or null when there is none: for columns, JSON and CSV cells. */
    public static String labelOf(Pipeline p) {
        return p == null ? null : p.label;
    }

    @Override
    public String toString() {
        return label;
    }
}
