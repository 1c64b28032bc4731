package io.isobench;

import java.util.Locale;

/**
 * An arm of a task: {@code baseline} (parent commit), {@code human} (merged commit) or an agent arm
 * (parent + an agent's patch), plus {@code baseline-aa}: a second, independently started baseline whose paired
 * comparison with the baseline is the task's measured A/A noise band (docs/statistics.md). Agent arms carry the
 * agent's name; legacy data knows one agent per tree and never has an A/A arm.
 *
 * <p>An agent arm named {@code NAME@k} is attempt k of agent NAME ({@code isobench agents run}, docs/agents.md): the
 * suffix ({@code @} and 1–6 digits without a leading zero, after a non-empty name) is read once, here, when the arm is made, and kept typed
 * as {@link #attempt()}; {@link #agentBase()} is NAME. Every other arm has attempt 0.
 *
 * @param kind      the arm's kind
 * @param agentName an agent arm's name as labelled ({@code NAME} or {@code NAME@k}); an {@code OTHER} arm's label
 * @param attempt   k of an agent arm named {@code NAME@k}; 0 for every other arm (derived from the name: pass 0)
 */
public record Arm(Kind kind, String agentName, int attempt) {

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
        int k = kind == Kind.AGENT ? attemptSuffix(agentName) : 0;
        if (attempt != 0 && attempt != k) {
            throw new IllegalArgumentException("arm " + agentName + ": attempt " + attempt + " does not match its name");
        }
        attempt = k;
    }

    /** An arm of {@code kind}; an agent arm's attempt is read from its name. */
    public Arm(Kind kind, String agentName) {
        this(kind, agentName, 0);
    }

    /** Attempt {@code k} (≥ 1) of agent {@code name}: the agent arm {@code NAME@k}. */
    public static Arm attemptOf(String name, int k) {
        if (k < 1) {
            throw new IllegalArgumentException("attempt " + k + " of " + name + ": attempts count from 1");
        }
        return agent(name + "@" + k);
    }

    /** The agent's name without its attempt suffix ({@code NAME} of {@code NAME@k}); null for every other arm. */
    public String agentBase() {
        if (kind != Kind.AGENT) {
            return null;
        }
        return attempt == 0 ? agentName : agentName.substring(0, agentName.length() - ("@" + attempt).length());
    }

    /** True for an agent arm that is attempt k of an agent ({@code NAME@k}). */
    public boolean isAttempt() {
        return attempt > 0;
    }

    /** k of a name {@code NAME@k} ({@code @} then 1–6 digits, no leading zero, after a non-empty name), else 0. */
    private static int attemptSuffix(String name) {
        int at = name.lastIndexOf('@');
        String digits = at > 0 ? name.substring(at + 1) : "";
        if (digits.isEmpty() || digits.length() > 6 || digits.charAt(0) == '0'
                || !digits.chars().allMatch(c -> c >= '0' && c <= '9')) {
            return 0;
        }
        return Integer.parseInt(digits);
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

    /**
     * An arm label read back as written — a stored run's arm column, a key of a per-arm table — the one rule:
     * {@code agent:NAME} keeps NAME unnormalised (the label reads back byte-identical), the labels of
     * {@link #fromLabel} are their arms, any other text is {@link #other}: kept verbatim, compared by nothing; null
     * stays null.
     */
    public static Arm ofStored(String label) {
        if (label == null) {
            return null;
        }
        if (label.startsWith("agent:") && !label.substring("agent:".length()).isBlank()) {
            return new Arm(Kind.AGENT, label.substring("agent:".length()));
        }
        try {
            return fromLabel(label);
        } catch (IllegalArgumentException e) {
            return other(label);
        }
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
