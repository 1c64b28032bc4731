package io.isobench.legacy;

/** The old ISO-Bench file formats (legacy-import.md "Formats"), detected from their keys ({@link FormatDetector}). */
public enum LegacyFormat {
    R1("modal 3-way result"),
    R2("modal progress log (superseded attempts)"),
    R3("per-version result (separate invocations)"),
    R4("separate_agent per-version result"),
    R5("separate_baseline hand-written result"),
    R6("docker single-version result"),
    R7("docker 3-way result"),
    R8("rerun (4_fixable) 3-way result"),
    R9("SGLang result (human only)"),
    R11("micro-benchmark result"),
    R12("native-runner result"),
    R13("aggregate report (derived data)"),
    /** A Stage A agent-run journal ({@code state/runs/…/journal.json}): one agent attempt, no benchmark result. */
    JOURNAL("Stage A agent-run journal (agent attempt)"),
    EXPORT("published export table"),
    OTHER("not a result file");

    private final String description;

    LegacyFormat(String description) {
        this.description = description;
    }

    public String id() {
        return this == OTHER ? "other" : this == EXPORT ? "export" : this == JOURNAL ? "journal" : name();
    }

    public String description() {
        return description;
    }
}
