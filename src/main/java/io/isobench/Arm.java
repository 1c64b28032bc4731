package io.isobench;

import java.util.Locale;

/**
 * An arm of a task: {@code baseline} (parent commit), {@code human} (merged commit) or an agent arm
 * (parent + an agent's patch), plus {@code baseline-aa}: a second, independently started baseline whose paired
 * comparison with the baseline is the task's measured A/A noise band (docs/statistics.md). Agent arms carry the
 * agent's name; legacy data knows one agent per tree and never has an A/A arm.
 */
public record Arm(Kind kind, String agentName) {

    public enum Kind {
        BASELINE, BASELINE_AA, HUMAN, AGENT,
        /**
         * A label no arm of a suite has (an ad-hoc {@code isobench loadgen --store --arm X}, a row of a foreign store):
         * kept verbatim as its label, never an agent, never a column of a 3-way table or a comparison.
         */
        OTHER
    }

    public static final Arm BASELINE = new Arm(Kind.BASELINE, null);
    public static final Arm HUMAN = new Arm(Kind.HUMAN, null);
    /** The A/A arm: the baseline's code, started and measured as an arm of its own. */
    public static final Arm BASELINE_AA = new Arm(Kind.BASELINE_AA, null);

    public Arm {
        if (kind == null) {
            throw new IllegalArgumentException("arm kind must not be null");
        }
        if (kind == Kind.AGENT && (agentName == null || agentName.isBlank())) {
            throw new IllegalArgumentException("agent arm needs an agent name");
        }
        if (kind == Kind.OTHER && agentName == null) {
            throw new IllegalArgumentException("an arm of another label needs its label");
        }
        if (kind != Kind.AGENT && kind != Kind.OTHER) {
            agentName = null;
        }
    }

    /** An arm under a label no suite arm has ({@link Kind#OTHER}): {@code label} kept as it is. */
    public static Arm other(String label) {
        return new Arm(Kind.OTHER, label);
    }

    /** The agent's name of an agent arm; null for every other arm. */
    @Override
    public String agentName() {
        return kind == Kind.AGENT ? agentName : null;
    }

    public static Arm agent(String name) {
        return new Arm(Kind.AGENT, normalizeAgent(name));
    }

    /** {@code -} and {@code _} are interchangeable in agent names: {@code claude-code} = {@code claude_code}. */
    public static String normalizeAgent(String name) {
        return name == null ? null : name.trim().toLowerCase(Locale.ROOT).replace('-', '_');
    }

    /**
     * Stable label used in the store and in outputs: {@code baseline}, {@code baseline-aa}, {@code human},
     * {@code agent:<name>}.
     */
    public String label() {
        return switch (kind) {
            case BASELINE -> "baseline";
            case BASELINE_AA -> "baseline-aa";
            case HUMAN -> "human";
            case AGENT -> "agent:" + agentName;
            case OTHER -> agentName;
        };
    }

    public static Arm fromLabel(String label) {
        if (label.equals("baseline")) {
            return BASELINE;
        }
        if (label.equals("human")) {
            return HUMAN;
        }
        if (label.equals("baseline-aa")) {
            return BASELINE_AA;
        }
        if (label.startsWith("agent:")) {
            return agent(label.substring("agent:".length()));
        }
        throw new IllegalArgumentException("unknown arm label '" + label + "' (expected baseline, baseline-aa, human or agent:<name>)");
    }

    @Override
    public String toString() {
        return label();
    }
}
